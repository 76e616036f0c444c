import Foundation
import GeoCore
import PlaceModel
import ProviderTestSupport
import Testing

@testable import Providers

@Suite(.ownThreads) struct YelpAdapterTests {
    @Test func searchRequestAndFields() async throws {
        try await withServer([.recorded("yelp_search.json")]) { server in
            let result = try await YelpAdapter(settings: settings(server, .yelp))
                .search(try request(radius: 500, query: "coffee", categories: ["food.cafe"]))
            let sent = try #require(await server.requests.first)
            #expect(sent.method == "GET" && sent.path == "/v3/businesses/search")
            #expect(sent.headers["authorization"] == "Bearer test-key-0123456789")
            #expect(sent.query["latitude"] == "37.7825" && sent.query["longitude"] == "-122.4075")
            #expect(sent.query["radius"] == "500" && sent.query["term"] == "coffee" && sent.query["sort_by"] == "distance")
            #expect(sent.query["limit"] == "20" && sent.query["offset"] == "0")
            #expect(Set(sent.query["categories"]?.split(separator: ",").map(String.init) ?? []) == ["cafes", "coffee", "coffeeroasteries", "tea"])

            #expect(
                result.places.map(\.place.id.rawValue) == ["yelp:WavvLdfdP6g8aZTtbBQHTw", "yelp:Z8Ry2Qk9aJz0Lw6p3TQq1A"],
                "Gone For Good Bakery is closed for good")
            let cafe = result.places[0]
            #expect(
                cafe.distance.meters == Geodesic.distance(mintPlaza, cafe.place.coordinate) && cafe.distance.meters != 20.4,
                "GeoQuery's own WGS84 distance from the centre, not Yelp's 20.4 m")
            #expect(cafe.place.rating == (try Rating(sourceValue: 4, scale: 5, count: 2812)))
            #expect(cafe.place.priceLevel == (try PriceLevel(2)))
            #expect(cafe.place.phone == "+15106533394")
            #expect(
                cafe.place.address
                    == Address(
                        street: "66 Mint St", locality: "San Francisco", region: "CA", postcode: "94103",
                        countryCode: "US", formatted: "66 Mint St, San Francisco, CA 94103"),
                "address2 \"\" and address3 null are both absent")
            #expect(cafe.place.categories.map(\.identifier) == ["food.cafe"])
            #expect(cafe.place.photos == [PhotoReference(url: "https://s3-media1.fl.yelpcdn.com/bphoto/abc/o.jpg")])
            #expect(cafe.place.tags["yelp_alias"] == "blue-bottle-coffee-san-francisco-8")
            #expect(cafe.providerURL?.hasPrefix("https://www.yelp.com/biz/blue-bottle-coffee-san-francisco-8") == true)
            #expect(cafe.businessStatus == .operational && cafe.isOpenNow == nil, "search answers carry no hours")

            let bistro = result.places[1]
            #expect(bistro.place.phone == nil && bistro.place.photos.isEmpty, "\"\" is missing, not a value")
            #expect(bistro.place.priceLevel == (try PriceLevel(3)))
            #expect(bistro.place.categories.map(\.identifier) == ["food.restaurant", "drink.bar"], "french is a cuisine")
            let recorded = try JSONDecoder().decode(JSONValue.self, from: Recorded.data("yelp_search.json"))
            let gone = try YelpAdapter(settings: settings(server, .yelp)).business(recorded["businesses"]!.elements[2], center: mintPlaza)
            #expect(gone.businessStatus == .closedPermanently, "is_closed means closed for good")
        }
    }

    @Test func detailsCarryHoursWithMondayFirstDays() async throws {
        try await withServer([.recorded("yelp_business_details.json")]) { server in
            let found = try await YelpAdapter(settings: settings(server, .yelp)).details(id: "yelp:WavvLdfdP6g8aZTtbBQHTw", center: mintPlaza)
            #expect(await server.requests.first?.path == "/v3/businesses/WavvLdfdP6g8aZTtbBQHTw")
            // Yelp's day 0 is Monday; Saturday 22:00 overnight closes Sunday 02:00.
            #expect(
                found.place.openingHours?.periods == [
                    .init(openDay: 1, openMinute: 420, closeDay: 1, closeMinute: 1080),
                    .init(openDay: 5, openMinute: 420, closeDay: 5, closeMinute: 1080),
                    .init(openDay: 6, openMinute: 1320, closeDay: 7, closeMinute: 120),
                    .init(openDay: 7, openMinute: 480, closeDay: 7, closeMinute: 1020),
                ])
            #expect(found.isOpenNow == true)
            #expect(found.place.photos.count == 2)
            #expect(found.place.tags["cross_streets"] == "Jessie St & Mission St")
        }
    }

    /// A Yelp that has `total` businesses in a line north of the centre, paged by offset.
    static func pagingYelp(total: Int) async throws -> LoopbackServer {
        try await LoopbackServer.start { request in
            let offset = Int(request.query["offset"] ?? "0") ?? 0
            let limit = Int(request.query["limit"] ?? "20") ?? 20
            if offset + limit > 240 {
                return .json(
                    #"{"error":{"code":"VALIDATION_ERROR","description":"Too many results requested, limit+offset must be <= 240."}}"#, status: 400)
            }
            let businesses = (offset..<min(total, offset + limit)).map { index in
                #"{"id":"b\#(index)","name":"Business \#(index)","coordinates":{"latitude":\#(37.7825 + Double(index) * 0.00001),"longitude":-122.4075},"distance":\#(Double(index) * 1.11)}"#
            }
            return .json(#"{"businesses":[\#(businesses.joined(separator: ","))],"total":\#(total)}"#)
        }
    }

    @Test func pagingStopsAtYelpsCeilingOf240() async throws {
        let server = try await Self.pagingYelp(total: 5000)
        defer { Task { await server.stop() } }
        let result = try await YelpAdapter(settings: settings(server, .yelp)).search(try request(radius: 40_000, limit: 1000))
        let sent = await server.requests
        #expect(sent.map { $0.query["offset"]! } == ["0", "50", "100", "150", "200"])
        #expect(sent.map { $0.query["limit"]! } == ["50", "50", "50", "50", "40"])
        #expect(result.places.count == 240 && result.requests == 5)
        #expect(Set(result.places.map(\.place.id)).count == 240, "no duplicates across pages")
    }

    @Test func pagingStopsWhenYelpHasNoMore() async throws {
        let server = try await Self.pagingYelp(total: 70)
        defer { Task { await server.stop() } }
        let result = try await YelpAdapter(settings: settings(server, .yelp)).search(try request(radius: 40_000, limit: 200))
        #expect(await server.requests.count == 2)
        #expect(result.places.count == 70)
    }

    @Test func radiusIsClampedTo40km() async throws {
        try await withServer([.recorded("yelp_search.json")]) { server in
            let result = try await YelpAdapter(settings: settings(server, .yelp)).search(try request(radius: 45_000))
            #expect(result.radiusClamped && result.radiusUsed.meters == 40_000)
            #expect(await server.requests.first?.query["radius"] == "40000")
        }
    }
}

@Suite(.ownThreads) struct FoursquareAdapterTests {
    @Test func placesAPIRequestPagingAndFields() async throws {
        let server = try await LoopbackServer.start { request in
            if request.query["cursor"] == "c2" { return .recorded("foursquare_places_page2.json") }
            return .recorded(
                "foursquare_places_page1.json",
                headers: [
                    "Link": #"<https://places-api.foursquare.com/places/search?ll=37.7825%2C-122.4075&cursor=c2>; rel="next""#
                ])
        }
        defer { Task { await server.stop() } }
        let result = try await FoursquareAdapter(settings: settings(server, .foursquare)).search(try request(radius: 500, query: "coffee", limit: 10))
        let sent = await server.requests
        #expect(sent.count == 2, "followed the Link header once, then no next link")
        #expect(sent[0].path == "/places/search")
        #expect(sent[0].headers["authorization"] == "Bearer test-key-0123456789")
        #expect(sent[0].headers["x-places-api-version"] == FoursquareAdapter.placesAPIVersion)
        #expect(sent[0].query["ll"] == "37.7825,-122.4075" && sent[0].query["radius"] == "500" && sent[0].query["query"] == "coffee")
        #expect(sent[0].query["fields"]?.contains("fsq_place_id") == true)
        #expect(sent[1].path == "/places/search" && sent[1].query["cursor"] == "c2", "the next page went to the same (test) server")

        #expect(
            result.places.map(\.place.name) == ["Blue Bottle Coffee", "Mint Plaza", "Philz Coffee"],
            "nearest first; the closed café is left out")
        let cafe = result.places[0]
        #expect(cafe.place.id.rawValue == "foursquare:4b5a7b2cf964a520c0c128e3")
        #expect(cafe.place.rating == (try Rating(sourceValue: 8.6, scale: 10, count: 1021)))
        #expect(abs((cafe.place.rating?.value ?? 0) - 4.3) < 1e-12 && cafe.place.rating?.originalScale == 10)
        #expect(cafe.place.priceLevel == (try PriceLevel(2)))
        #expect(cafe.place.categories.map(\.identifier) == ["food.cafe"])
        #expect(cafe.place.photos.first?.url == "https://fastly.4sqi.net/img/general/original/123_abc.jpg")
        #expect(cafe.place.openingHours?.text == "Mon-Fri 6:30 AM-6:00 PM; Sat-Sun 7:00 AM-6:00 PM")
        #expect(
            cafe.place.openingHours?.periods == [
                .init(openDay: 1, openMinute: 390, closeDay: 1, closeMinute: 1080),
                .init(openDay: 7, openMinute: 420, closeDay: 7, closeMinute: 1080),
                .init(openDay: 5, openMinute: 1320, closeDay: 6, closeMinute: 120),
            ])
        #expect(
            cafe.distance.meters == Geodesic.distance(mintPlaza, cafe.place.coordinate) && cafe.isOpenNow == true
                && cafe.businessStatus == .operational)
        #expect(cafe.place.address?.countryCode == "US" && cafe.place.phone == "(510) 653-3394")
    }

    @Test func v3ModeUsesTheBareKeyAndNumericCategories() async throws {
        try await withServer([.recorded("foursquare_v3_search.json")]) { server in
            let result = try await FoursquareAdapter(settings: settings(server, .foursquare, extra: ["GEOQUERY_FOURSQUARE_API": "v3"]))
                .search(try request(radius: 500, categories: ["food", "shopping"]))
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/v3/places/search")
            #expect(sent.headers["authorization"] == "test-key-0123456789", "v3 keys go without a scheme")
            #expect(sent.headers["x-places-api-version"] == nil)
            #expect(sent.query["categories"] == "13000,17000")
            #expect(result.places.map(\.place.id.rawValue) == ["foursquare:4b5a7b2cf964a520c0c128e3", "foursquare:4a1b2c3d4e5f"])
            #expect(result.places[0].place.coordinate == Coordinate(uncheckedLatitude: 37.78253, longitude: -122.40765))
            #expect(result.places[0].timeZone == "America/Los_Angeles")
            #expect(result.places[1].place.categories.map(\.identifier) == ["shopping.mall"])
        }
    }

    @Test func radiusIsClampedTo100km() async throws {
        try await withServer([.recorded("foursquare_v3_search.json")]) { server in
            let result = try await FoursquareAdapter(settings: settings(server, .foursquare)).search(try request(radius: 150_000))
            #expect(result.radiusClamped && result.radiusUsed.meters == 100_000)
            #expect(await server.requests.first?.query["radius"] == "100000")
        }
    }
}

@Suite(.ownThreads) struct HEREAdapterTests {
    @Test func browseRequestAndFields() async throws {
        try await withServer([.recorded("here_browse.json")]) { server in
            let result = try await HEREAdapter(settings: settings(server, .here)).search(try request(radius: 500, categories: ["food.cafe"]))
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/v1/browse")
            #expect(sent.query["in"] == "circle:37.7825,-122.4075;r=500")
            #expect(sent.query["apiKey"] == "test-key-0123456789" && sent.query["limit"] == "20")
            #expect(sent.query["categories"] == "100-1100-0000")
            #expect(sent.rawQuery.contains("%3Br%3D500"), "the circle's ; and = are escaped")

            #expect(result.places.map(\.place.name) == ["Blue Bottle Coffee", "Hotel Zetta"], "the street is not a place")
            let cafe = result.places[0]
            #expect(cafe.place.id.rawValue == "here:here:pds:place:840jx7ps-7d3a1b2c3d4e4f5a8b9c0d1e2f3a4b5c")
            #expect(cafe.place.categories.map(\.identifier) == ["food.cafe", "food.restaurant"], "the primary category first")
            #expect(
                cafe.place.address
                    == Address(
                        street: "66 Mint St", locality: "San Francisco", region: "CA", postcode: "94103",
                        countryCode: "US", formatted: "Blue Bottle Coffee, 66 Mint St, San Francisco, CA 94103, United States"),
                "alpha-3 USA becomes US")
            #expect(cafe.place.phone == "+15106533394" && cafe.place.website == "https://bluebottlecoffee.com")
            #expect(cafe.place.rating == nil && cafe.place.priceLevel == nil, "HERE has neither")
            #expect(cafe.crossReferences == [try PlaceID("yelp:WavvLdfdP6g8aZTtbBQHTw")])
            #expect(cafe.isOpenNow == true && cafe.distance.meters == Geodesic.distance(mintPlaza, cafe.place.coordinate))
            let periods = try #require(cafe.place.openingHours?.periods)
            #expect(periods.count == 8)
            #expect(periods.contains(.init(openDay: 1, openMinute: 390, closeDay: 1, closeMinute: 1080)))
            #expect(periods.contains(.init(openDay: 6, openMinute: 1320, closeDay: 7, closeMinute: 120)), "22:00 for 4 h ends Sunday 02:00")
            #expect(cafe.place.tags["cuisine"] == "Coffee")
            #expect(result.places[1].place.categories.map(\.identifier) == ["lodging.hotel"])
        }
    }

    @Test func discoverForTextAndLookupById() async throws {
        try await withServer([.recorded("here_browse.json")]) { server in
            let adapter = HEREAdapter(settings: settings(server, .here))
            let result = try await adapter.search(try request(radius: 100, query: "blue bottle", categories: ["food"]))
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/v1/discover" && sent.query["q"] == "blue bottle")
            #expect(result.places.map(\.place.name) == ["Blue Bottle Coffee"], "Hotel Zetta is 111 m away and not food")
        }
        let server = try await LoopbackServer.start { _ in
            let json = try! JSONSerialization.jsonObject(with: Recorded.data("here_browse.json")) as! [String: Any]
            return LoopbackServer.Reply(body: try! JSONSerialization.data(withJSONObject: (json["items"] as! [Any])[0]))
        }
        defer { Task { await server.stop() } }
        let found = try await HEREAdapter(settings: settings(server, .here))
            .lookup(id: "here:here:pds:place:840jx7ps-7d3a1b2c3d4e4f5a8b9c0d1e2f3a4b5c", center: mintPlaza)
        #expect(found.place.name == "Blue Bottle Coffee")
        let sent = try #require(await server.requests.first)
        #expect(sent.path == "/v1/lookup" && sent.query["id"] == "here:pds:place:840jx7ps-7d3a1b2c3d4e4f5a8b9c0d1e2f3a4b5c")
    }
}
