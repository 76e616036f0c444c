import Foundation
import GeoQueryServer
import GeoQueryWire
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProviderTestSupport
import Testing

/// Every URL an answer holds is absolute, on `--public-url` when set, and every photo is one
/// object `{id, url, width, height, …}` wherever it appears (docs/api-conventions.md).
@Suite struct PublicURLTests {
    static let base = "https://api.example.org"

    @Test func photosAvatarsAndShareLinksAreAbsoluteOnThePublicURL() async throws {
        let fixture = try await AccountFixture { $0.publicURL = Self.base }
        try await fixture.test { client in
            let ann = try await client.account("ann.url")
            let png = TestImages.png(grey: 91)

            // An avatar, as the private and the public profile show it.
            #expect(try await client.send(.put, "/v1/me/avatar", token: ann, bytes: png).status.code < 300)
            let me = try await client.send(.get, "/v1/me", token: ann).json
            let avatar = try #require(me["avatar_url"] as? String, "\(me)")
            #expect(avatar.hasPrefix(Self.base + "/v1/photos/"), "\(avatar)")
            let shown = try await client.send(.get, "/v1/users/ann.url", token: ann).json
            #expect(shown["avatar_url"] as? String == avatar)
            #expect(try await client.send(.get, String(avatar.dropFirst(Self.base.count))).status == .ok, "the URL serves the photo")

            // A gem's photo (1 × 1 pixels): the upload's answer and the gem's photo are one object.
            let gem = try await client.gem(ann, name: "Absolute Spring", lat: 23.5, lon: 12.5, visibility: "public")
            let upload = try await client.send(.post, "/v1/gems/\(gem)/photos", token: ann, bytes: TestImages.png(grey: 92))
            #expect(upload.status == .created, "\(upload.text)")
            let id = try #require(upload.json["id"] as? String)
            let object = try #require((try await client.send(.get, "/v1/gems/\(gem)").json["photos"] as? [[String: Any]])?.first)
            for (key, value) in [("id", id), ("url", Self.base + "/v1/photos/\(id)")] {
                #expect(upload.json[key] as? String == value && object[key] as? String == value, "\(key): \(upload.text) \(object)")
            }
            for key in ["width", "height"] {
                #expect(upload.json[key] as? Int == 1 && object[key] as? Int == 1, "\(key): \(upload.text) \(object)")
            }

            // A trip's album photo: the same members, with who added it.
            let trip = try await client.send(
                .post, "/v1/trips", token: ann,
                json: TripRouteTests.trip(start: "2030-06-12T12:00:00+02:00", end: "2030-06-12T16:00:00+02:00", invitees: []))
            let tripID = try #require(trip.json["id"] as? String, "\(trip.text)")
            let added = try await client.send(.post, "/v1/trips/\(tripID)/photos", token: ann, bytes: TestImages.png(grey: 93))
            #expect(added.status == .created && added.json["url"] as? String == Self.base + "/v1/photos/\(added.json["id"] as? String ?? "")")
            let album = try #require((try await client.send(.get, "/v1/trips/\(tripID)", token: ann).json["album"] as? [[String: Any]])?.first)
            #expect(album["id"] as? String == added.json["id"] as? String && album["width"] as? Int == 1 && album["uploader"] as? String == "ann.url")

            // A share link is a link an app can text as it is.
            let plan = try await client.send(.post, "/v1/itineraries", token: ann, json: PlanRouteTests.itinerary)
            let planID = try #require(plan.json["id"] as? String, "\(plan.text)")
            let share = try await client.send(.post, "/v1/itineraries/\(planID)/shares", token: ann)
            let url = try #require(share.json["url"] as? String, "\(share.text)")
            #expect(url.hasPrefix(Self.base + "/v1/shared/") && (share.json["map_url"] as? String)?.hasPrefix(Self.base + "/s/") == true)
            #expect(try await client.send(.get, String(url.dropFirst(Self.base.count))).status == .ok, "the link opens the plan")
        }
    }

    /// Without `--public-url` the base is the request's `Host`; a `Host` that is not a host
    /// name or address (a path, a second URL, spaces) builds nothing on it.
    @Test func aHostThatIsNotAHostNameIsNotBuiltOn() {
        #expect(PublicURL.base(scheme: "http", host: "127.0.0.1:8080") == "http://127.0.0.1:8080")
        #expect(PublicURL.base(scheme: "http", host: "[::1]:8080") == "http://[::1]:8080")
        #expect(PublicURL.base(scheme: "http", host: "places.example.org") == "http://places.example.org")
        for hostile in ["evil.example/x?", "a b", "evil.example@x", "", ":80", "x\r\nSet-Cookie: a=b", nil] {
            #expect(PublicURL.base(scheme: "http", host: hostile) == nil, "\(String(describing: hostile))")
        }
        #expect(PublicURL.absolute("/v1/photos/x") == "/v1/photos/x", "no base bound: as it is")
        PublicURL.$base.withValue("https://a.example") {
            #expect(PublicURL.absolute("/v1/photos/x") == "https://a.example/v1/photos/x")
            #expect(PublicURL.absolute("https://maps.example/p.jpg") == "https://maps.example/p.jpg", "a provider's URL stays")
            #expect(PublicURL.absolute("//other.example/x") == "//other.example/x")
        }
    }
}
