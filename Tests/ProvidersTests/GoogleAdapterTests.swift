import Foundation
import GeoCore
import PlaceModel
import ProviderTestSupport
import Testing

@testable import Providers

@Suite(.ownThreads) struct GoogleAdapterTests {
    @Test func searchNearbySendsTheDocumentedRequest() async throws {
        try await withServer([.recorded("google_searchNearby.json")]) { server in
            _ = try await GooglePlacesAdapter(settings: settings(server, .google)).search(try request(radius: 1000, categories: ["food.cafe"]))
            let sent = try #require(await server.requests.first)
            #expect(sent.method == "POST")
            #expect(sent.path == "/v1/places:searchNearby")
            #expect(sent.headers["x-goog-api-key"] == "test-key-0123456789")
            #expect(sent.headers["content-type"] == "application/json")
            let mask = try #require(sent.headers["x-goog-fieldmask"]).split(separator: ",").map(String.init)
            #expect(!mask.contains("*") && !mask.contains("places.reviews"), "only what the model uses")
            #expect(mask.contains("places.id") && mask.contains("places.location") && mask.contains("places.regularOpeningHours"))
            #expect(mask.allSatisfy { $0.hasPrefix("places.") })
            let body = try #require(sent.jsonBody)
            let circle = try #require((body["locationRestriction"] as? [String: Any])?["circle"] as? [String: Any])
            #expect(circle["radius"] as? Double == 1000)
            let center = try #require(circle["center"] as? [String: Double])
            #expect(center["latitude"] == 37.7825 && center["longitude"] == -122.4075)
            #expect(Set(body["includedTypes"] as? [String] ?? []) == ["cafe", "coffee_shop", "tea_house"])
            #expect(body["maxResultCount"] as? Int == 20)
            #expect(body["rankPreference"] as? String == "DISTANCE")
        }
    }

    @Test func placeFieldsLandWhereProvidersMdSays() async throws {
        let result = try await withServer([.recorded("google_searchNearby.json")]) { server in
            try await GooglePlacesAdapter(settings: settings(server, .google)).search(try request(radius: 1000))
        }
        #expect(
            result.places.map(\.place.id.rawValue) == ["google:ChIJh4s6cIWAhYARv2fJ4EoXbWM", "google:ChIJ0zQtYYiAhYAR2N9H0Jb2Y3Q"],
            "the diner 1.9 km away is outside the 1 km circle")
        let cafe = result.places[0]
        let place = cafe.place
        #expect(place.name == "Blue Bottle Coffee")
        #expect(place.coordinate == Coordinate(uncheckedLatitude: 37.7824868, longitude: -122.4077056))
        #expect(place.categories.map(\.identifier) == ["food.cafe", "shopping", "food"], "primary type first, then types in order")
        #expect(
            place.address
                == Address(
                    street: "66 Mint Street", locality: "San Francisco", region: "CA", postcode: "94103",
                    countryCode: "US", formatted: "66 Mint St, San Francisco, CA 94103, USA"))
        #expect(place.rating == (try Rating(sourceValue: 4.4, scale: 5, count: 1873)))
        #expect(place.priceLevel == (try PriceLevel(2)))
        #expect(place.phone == "+1 510-653-3394")
        #expect(place.website == "https://bluebottlecoffee.com/cafes/mint-plaza")
        #expect(place.tags["utc_offset_minutes"] == "-480")
        #expect(place.provenance == Provenance(source: "google", sourceID: "ChIJh4s6cIWAhYARv2fJ4EoXbWM", fetchedAt: fixedNow))
        // Google counts days from Sunday = 0; the model from Monday = 1 (ISO).
        #expect(
            place.openingHours?.periods == [
                .init(openDay: 7, openMinute: 420, closeDay: 7, closeMinute: 1080),
                .init(openDay: 1, openMinute: 390, closeDay: 1, closeMinute: 1080),
                .init(openDay: 5, openMinute: 1320, closeDay: 6, closeMinute: 120),
            ])
        #expect(place.openingHours?.text?.hasPrefix("Monday: 6:30 AM – 6:00 PM") == true)
        #expect(
            place.photos == [
                PhotoReference(
                    reference: "places/ChIJh4s6cIWAhYARv2fJ4EoXbWM/photos/AUc7tXW1", width: 4032, height: 3024,
                    attribution: "A Visitor")
            ])
        #expect(cafe.isOpenNow == true)
        #expect(cafe.businessStatus == .operational)
        #expect(cafe.timeZone == "America/Los_Angeles")
        #expect(cafe.providerURL == "https://maps.google.com/?cid=7164364049744914367")
        #expect(cafe.providerCategories.first == ProviderCategory(scheme: "google", id: "coffee_shop"))
        // Google gives no distance: GeoCore's ellipsoidal distance from the centre.
        #expect(abs(cafe.distance.meters - Geodesic.distance(mintPlaza, place.coordinate)) < 1e-9)
        #expect(cafe.distance.meters > 15 && cafe.distance.meters < 25)

        let park = result.places[1]
        #expect(park.place.priceLevel == nil && park.place.tags["price"] == "free", "PRICE_LEVEL_FREE is no price level")
        #expect(park.place.openingHours?.periods == ProviderHours.aroundTheClock, "a lone open with no close is 24/7")
        #expect(park.place.categories.map(\.identifier) == ["nature.park", "landmark.attraction"])
    }

    @Test func aRadiusOverTheCapIsClampedAndSaysSo() async throws {
        try await withServer([.recorded("google_searchNearby.json")]) { server in
            let result = try await GooglePlacesAdapter(settings: settings(server, .google)).search(try request(radius: 80_000))
            #expect(result.radiusClamped && result.radiusUsed.meters == 50_000)
            let body = try #require(await server.requests.first?.jsonBody)
            #expect(((body["locationRestriction"] as? [String: Any])?["circle"] as? [String: Any])?["radius"] as? Double == 50_000)
            #expect(result.places.count == 3)
            #expect(result.places[2].place.priceLevel == nil, "PRICE_LEVEL_UNSPECIFIED")
            #expect(result.places[2].businessStatus == .closedTemporarily)
            #expect(result.places[2].place.categories.first?.identifier == "food.restaurant", "american_restaurant by suffix")
        }
    }

    @Test func textSearchPagesByTokenAndStopsOnTheLastPage() async throws {
        try await withServer([
            .recorded("google_searchText_page1.json"), .recorded("google_searchText_page2.json"),
            .json(#"{"error":{"code":500,"message":"a third page was asked for"}}"#, status: 500),
        ]) { server in
            let result = try await GooglePlacesAdapter(settings: settings(server, .google))
                .search(try request(radius: 2000, query: "coffee", limit: 40))
            #expect(result.places.map(\.place.name) == ["Réveille Coffee Co.", "Sightglass Coffee"])
            let sent = await server.requests
            #expect(sent.count == 2 && result.requests == 2)
            #expect(sent.allSatisfy { $0.path == "/v1/places:searchText" })
            #expect(sent[0].headers["x-goog-fieldmask"]?.hasSuffix(",nextPageToken") == true)
            #expect(sent[0].jsonBody?["textQuery"] as? String == "coffee")
            #expect(sent[0].jsonBody?["pageToken"] == nil)
            #expect(sent[1].jsonBody?["pageToken"] as? String == "AeJbb3f-page-2")
            #expect((sent[1].jsonBody?["locationBias"] as? [String: Any])?["circle"] != nil)
        }
    }

    @Test func detailsAndPhotoMedia() async throws {
        let server = try await LoopbackServer.start { request in
            if request.path.hasSuffix("/media") {
                return .json(#"{"name":"places/X/photos/Y/media","photoUri":"https://lh3.googleusercontent.com/places/short-lived"}"#)
            }
            return LoopbackServer.Reply(
                body: try! JSONSerialization.data(
                    withJSONObject: (JSONSerialization.jsonObject(with: Recorded.data("google_searchNearby.json")) as! [String: Any])["places"].map {
                        ($0 as! [Any])[0]
                    }!))
        }
        defer { Task { await server.stop() } }
        let adapter = GooglePlacesAdapter(settings: settings(server, .google))
        let details = try await adapter.details(id: "google:ChIJh4s6cIWAhYARv2fJ4EoXbWM", center: mintPlaza)
        #expect(details.place.name == "Blue Bottle Coffee")
        let url = try await adapter.photoURL(reference: "places/ChIJh4s6cIWAhYARv2fJ4EoXbWM/photos/AUc7tXW1", maxWidth: 9000)
        #expect(url.absoluteString == "https://lh3.googleusercontent.com/places/short-lived")
        let sent = await server.requests
        #expect(sent[0].method == "GET" && sent[0].path == "/v1/places/ChIJh4s6cIWAhYARv2fJ4EoXbWM")
        #expect(sent[0].headers["x-goog-fieldmask"]?.hasPrefix("id,displayName") == true, "details masks have no places. prefix")
        #expect(sent[1].path == "/v1/places/ChIJh4s6cIWAhYARv2fJ4EoXbWM/photos/AUc7tXW1/media")
        #expect(sent[1].query["maxWidthPx"] == "4800" && sent[1].query["skipHttpRedirect"] == "true")
        #expect(sent[1].query["key"] == nil, "the key travels in a header, never in a URL an app might log")
    }

    @Test func legacyModePagesWithPageTokens() async throws {
        try await withServer([.recorded("google_legacy_nearby_page1.json"), .recorded("google_legacy_nearby_page2.json")]) { server in
            let adapter = GooglePlacesAdapter(settings: settings(server, .google, extra: ["GEOQUERY_GOOGLE_API": "legacy"]), pageTokenDelay: 0.01)
            let result = try await adapter.search(try request(radius: 1000, categories: ["nature.park"], limit: 40))
            let sent = await server.requests
            #expect(sent.count == 2)
            #expect(sent[0].path == "/maps/api/place/nearbysearch/json")
            #expect(sent[0].query["location"] == "37.7825,-122.4075" && sent[0].query["radius"] == "1000")
            #expect(sent[0].query["type"] == "park" && sent[0].query["key"] == "test-key-0123456789")
            #expect(sent[1].query["pagetoken"] == "ATplDJb-legacy-2")
            #expect(result.places.map(\.place.name) == ["Blue Bottle Coffee", "Yerba Buena Gardens"])
            let cafe = result.places[0]
            #expect(cafe.place.id.rawValue == "google:ChIJh4s6cIWAhYARv2fJ4EoXbWM")
            #expect(cafe.place.rating == (try Rating(sourceValue: 4.4, scale: 5, count: 1873)))
            #expect(cafe.place.priceLevel == (try PriceLevel(2)))
            #expect(cafe.place.address?.formatted == "66 Mint Street, San Francisco")
            #expect(cafe.place.photos.first?.reference == "AUc7legacyref")
            #expect(cafe.isOpenNow == false)
            #expect(result.places[1].place.priceLevel == nil && result.places[1].place.tags["price"] == "free")
        }
    }

    @Test func legacyErrorStatusesAreTypedAndKeyFree() async throws {
        try await withServer([.recorded("google_legacy_denied.json")]) { server in
            await #expect(
                throws: ProviderError.providerStatus(
                    provider: .google, status: "REQUEST_DENIED",
                    message: "The provided API key is invalid.")
            ) {
                try await GooglePlacesAdapter(settings: settings(server, .google, extra: ["GEOQUERY_GOOGLE_API": "legacy"]))
                    .search(try request())
            }
        }
        try await withServer([.json(#"{"results":[],"status":"ZERO_RESULTS"}"#)]) { server in
            let result = try await GooglePlacesAdapter(settings: settings(server, .google, extra: ["GEOQUERY_GOOGLE_API": "legacy"]))
                .search(try request())
            #expect(result.places.isEmpty, "ZERO_RESULTS is an empty answer, not an error")
        }
    }

    @Test func aMissingFieldMaskErrorSurfacesGooglesMessage() async throws {
        try await withServer([.recorded("google_error_400.json", status: 400)]) { server in
            do {
                _ = try await GooglePlacesAdapter(settings: settings(server, .google)).search(try request())
                Issue.record("accepted")
            } catch let error as ProviderError {
                guard case .rejected(.google, 400, "INVALID_ARGUMENT", let message) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(message.hasPrefix("FieldMask is a required parameter"))
            }
        }
    }
}
