import Foundation
import GeoCore
import Testing

@testable import PlaceModel

@Suite struct PlaceIDTests {
    @Test func splitsSourceAndLocalID() throws {
        let id = try PlaceID("geonames:2988507")
        #expect(id.source == "geonames" && id.localID == "2988507")
        let nested = try PlaceID("osm:n:12")
        #expect(nested.source == "osm" && nested.localID == "n:12")
        #expect(try PlaceID(source: "airport", localID: "LFPG").rawValue == "airport:LFPG")
    }

    @Test func comparesItsPartsWithoutSplitting() throws {
        let nested = try PlaceID("osm:n:12")
        #expect(nested.hasSource("osm") && nested.hasLocalID("n:12"))
        #expect(!nested.hasSource("os") && !nested.hasSource("osm:") && !nested.hasSource("osmx"))
        #expect(!nested.hasLocalID("n:1") && !nested.hasLocalID("n:123") && !nested.hasLocalID("12"))
        let accented = try PlaceID("gem:café")
        #expect(accented.hasLocalID("café") && !accented.hasLocalID("cafe"))
    }

    @Test(arguments: ["", "nocolon", ":x", "x:", "Geo:1", "a b:1"])
    func rejectsMalformedIDs(text: String) {
        #expect(throws: PlaceModelError.invalidPlaceID(text)) { try PlaceID(text) }
    }

    @Test func ordersByUTF8BytesLikeSQLite() throws {
        // Trusted: "é:1" is not a valid id, but the order holds for any bytes.
        let ids = ["b:1", "a:2", "a:10", "a:1", "é:1", "Z:1".lowercased()].map { PlaceID(trustedRawValue: $0) }
        #expect(ids.sorted().map(\.rawValue) == ["a:1", "a:10", "a:2", "b:1", "z:1", "é:1"])
        #expect(PlaceID.utf8Precedes("a", "ab") && !PlaceID.utf8Precedes("ab", "a") && !PlaceID.utf8Precedes("a", "a"))
    }
}

@Suite struct CategoryTests {
    @Test func parentsMatchChildrenButNotSiblingsOrPrefixes() throws {
        let beach = try Category("water.beach")
        #expect(beach.isWithin(try Category("water")))
        #expect(beach.isWithin(beach))
        #expect(!beach.isWithin(try Category("water.lake")))
        #expect(!Category(trustedIdentifier: "food.cafeteria").isWithin(try Category("food.cafe")))
    }

    @Test func parentAndTopLevel() throws {
        let category = Category(trustedIdentifier: "food.restaurant.italian")
        #expect(category.parent == (try Category("food.restaurant")))
        #expect(category.topLevel == .food)
        #expect(Category.food.parent == nil)
    }

    @Test(arguments: ["", "Food", "food.", ".food", "spaceship", "food..bar", "food.Bar", "water beach", "food.ramen", "beach"])
    func rejectsInvalidIdentifiers(text: String) {
        #expect(throws: PlaceModelError.invalidCategory(text)) { try Category(text) }
    }
}

@Suite struct PlaceTests {
    func sample() throws -> Place {
        try Place(
            id: PlaceID("yelp:abc"), name: "Café Été", coordinate: Coordinate(latitude: 48.85, longitude: 2.35),
            categories: [Category("food.cafe")], address: Address(locality: "Paris", countryCode: "FR"),
            rating: Rating(sourceValue: 8.6, scale: 10, count: 120), priceLevel: PriceLevel(2),
            openingHours: OpeningHours(
                text: "Mo-Fr 08:00-18:00",
                periods: [.init(openDay: 1, openMinute: 480, closeDay: 1, closeMinute: 1080)]),
            tags: ["wifi": "yes"])
    }

    @Test func missingValuesAreNilNotDefaults() throws {
        let place = try Place(id: PlaceID("gem:42"), name: "Secret cove", coordinate: Coordinate(latitude: 43.7, longitude: 7.4))
        #expect(place.rating == nil && place.priceLevel == nil && place.address == nil && place.phone == nil)
        #expect(place.categories.isEmpty && place.tags.isEmpty && place.photos.isEmpty)
        #expect(place.provenance.source == "gem" && place.provenance.sourceID == "42")
    }

    @Test func ratingsAreNormalisedToFiveKeepingTheirScale() throws {
        let rating = try Rating(sourceValue: 8.6, scale: 10, count: 120)
        #expect(abs(rating.value - 4.3) < 1e-12 && rating.originalScale == 10 && rating.count == 120)
        #expect(abs(rating.sourceValue - 8.6) < 1e-12)
        #expect(throws: PlaceModelError.self) { try Rating(sourceValue: 11, scale: 10) }
        #expect(throws: PlaceModelError.invalidPriceLevel(5)) { try PriceLevel(5) }
    }

    @Test func copiesAreIndependentValues() throws {
        let original = try sample()
        var copy = original
        copy.name = "Renamed"
        copy.tags["wifi"] = "no"
        #expect(original.name == "Café Été" && original.tags["wifi"] == "yes")
        #expect(copy.name == "Renamed" && copy != original)
        var same = original
        same.name = original.name
        #expect(same == original && same.hashValue == original.hashValue)
    }

    @Test func codableRoundTrip() throws {
        let place = try sample()
        let decoded = try JSONDecoder().decode(Place.self, from: try JSONEncoder().encode(place))
        #expect(decoded == place)
        #expect(try place.isIn(Category("food")) && !place.isIn(.water))
    }
}
