import PlaceModel
import Testing

@testable import Providers

/// The category, hours and country-code tables.
@Suite struct NormalisationTests {
    @Test(arguments: [
        ("coffee_shop", "food.cafe"), ("thai_restaurant", "food.restaurant"), ("night_club", "drink.nightclub"),
        ("hotel", "lodging.hotel"), ("art_gallery", "culture.gallery"), ("beach", "water.beach"), ("airport", "transport.airport"),
        ("shoe_store", "shopping"), ("hindu_temple", "religious.temple"), ("tourist_attraction", "landmark.attraction"),
    ])
    func googleTypes(type: String, expected: String) {
        #expect(ProviderCategories.fromGoogle(primary: type, types: []).first?.identifier == expected)
    }

    @Test func googleUnknownTypesAreDroppedNotGuessed() {
        #expect(ProviderCategories.fromGoogle(primary: nil, types: ["point_of_interest", "establishment"]).isEmpty)
    }

    @Test func yelpAliasesTitlesAndCuisines() {
        #expect(ProviderCategories.fromYelp([("coffee", "Coffee & Tea")]).map(\.identifier) == ["food.cafe"])
        #expect(ProviderCategories.fromYelp([("ramen", "Ramen")]).map(\.identifier) == ["food.restaurant"])
        #expect(ProviderCategories.fromYelp([("beaches", nil), ("hotels", nil)]).map(\.identifier) == ["water.beach", "lodging.hotel"])
        #expect(ProviderCategories.fromYelp([("someNewAlias", "Ice Cream & Frozen Yogurt")]).map(\.identifier) == ["food.dessert"])
        #expect(ProviderCategories.fromYelp([("someNewAlias", "Plumbing")]).isEmpty)
    }

    @Test func foursquareByLabelThenRange() {
        #expect(ProviderCategories.fromFoursquare([("63be6904847c3692a84b9bb6", "Coffee Shop")]).map(\.identifier) == ["food.cafe"])
        #expect(ProviderCategories.fromFoursquare([("13065", nil)]).map(\.identifier) == ["food"], "leaf ids are not trusted; the range is")
        #expect(ProviderCategories.fromFoursquare([("17069", "Grocery Store / Supermarket")]).map(\.identifier) == ["shopping.supermarket"])
        #expect(ProviderCategories.fromFoursquare([("16032", "Park")]).map(\.identifier) == ["nature.park"])
        #expect(ProviderCategories.fromFoursquare([("4bf58dd8d48988d1f9931735", "Parking")]).isEmpty, "Parking is not a park")
    }

    @Test func hereByPrefix() {
        #expect(ProviderCategories.fromHERE(["100-1100-0010"]).map(\.identifier) == ["food.cafe"])
        #expect(ProviderCategories.fromHERE(["550-5510-0205"]).map(\.identifier) == ["water.beach"])
        #expect(ProviderCategories.fromHERE(["550-5510-0202"]).map(\.identifier) == ["nature.park"])
        #expect(ProviderCategories.fromHERE(["400-4000-4581"]).map(\.identifier) == ["transport.airport"])
        #expect(ProviderCategories.fromHERE(["900-9300-0000"]).isEmpty)
    }

    @Test func filtersTranslateIntoEachProvidersIds() throws {
        #expect(ProviderCategories.googleTypes(for: [try Category("nature.park")], limit: 1) == ["park"])
        #expect(ProviderCategories.googleTypes(for: [try Category("food")], limit: 1) == ["restaurant"])
        #expect(!ProviderCategories.googleTypes(for: [try Category("food")]).contains("food"), "Table B types cannot filter")
        #expect(ProviderCategories.googleTypes(for: [try Category("food")]).count <= 50)
        #expect(ProviderCategories.yelpAliases(for: [try Category("water.beach")]) == ["beaches"])
        #expect(ProviderCategories.hereIDs(for: [try Category("lodging")]) == ["500-5000-0000", "500-5100-0000", "500-0000-0000"])
        #expect(ProviderCategories.foursquareIDs(for: [try Category("food.cafe"), try Category("food")]) == ["13000"])
    }

    @Test func hoursPieces() {
        #expect(ProviderHours.minutes(hhmm: "0930") == 570 && ProviderHours.minutes(hhmm: "2400") == 0)
        #expect(ProviderHours.minutes(hhmm: "2460") == nil && ProviderHours.minutes(hhmm: "93") == nil)
        #expect(ProviderHours.minutes(isoDuration: "PT20H00M") == 1200 && ProviderHours.minutes(isoDuration: "PT45M") == 45)
        #expect(ProviderHours.minutes(isoDuration: "P1D") == nil)
        // Yelp: Sunday (day 6) 18:00 to 00:00 closes Monday at midnight.
        #expect(ProviderHours.yelp([(6, "1800", "0000", false)])?.periods == [.init(openDay: 7, openMinute: 1080, closeDay: 1, closeMinute: 0)])
        #expect(ProviderHours.yelp([]) == nil, "no hours is nil, not an empty schedule")
    }

    @Test func countryCodes() {
        #expect(CountryCodes.alpha2("USA") == "US" && CountryCodes.alpha2("NAM") == "NA" && CountryCodes.alpha2("MCO") == "MC")
        #expect(CountryCodes.alpha2("fr") == "FR" && CountryCodes.alpha2("XXX") == nil && CountryCodes.alpha2("") == nil)
        #expect(CountryCodes.alpha3ToAlpha2.count == 249)
    }
}
