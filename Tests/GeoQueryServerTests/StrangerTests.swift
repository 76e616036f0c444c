import Accounts
import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProviderTestSupport
import Testing

/// Every write route of the service, tried by a signed-in stranger on someone else's things,
/// and by someone not signed in.
///
/// The route suites test each route's rules in depth. This one is the net under them: it reads
/// the router's own table, so a write route added later without a probe here, or without being
/// listed as one that only touches the caller's own account, fails it.
@Suite struct StrangerTests {
    typealias Client = AccountFixture.Client

    /// Write routes that act only on the caller's own account (or on nobody's data), with why:
    /// a stranger using them changes nothing of anyone else's.
    static let ownDataOnly: [String: String] = [
        "POST /v1/route": "orders stops; stores nothing",
        "POST /v1/discover/itinerary": "suggests an itinerary; stores nothing",
        "POST /v1/users": "signs up a new account",
        "POST /v1/sessions": "signs in to one's own account",
        "DELETE /v1/sessions/current": "signs out the caller's own session",
        "DELETE /v1/me/sessions": "ends the caller's own other sessions",
        "PATCH /v1/me": "the caller's own profile",
        "DELETE /v1/me": "the caller's own account",
        "PUT /v1/me/avatar": "the caller's own avatar",
        "POST /v1/me/favorites": "the caller's own favourites",
        "PUT /v1/me/favorites/{placeId}": "the caller's own favourites",
        "DELETE /v1/me/favorites/{placeId}": "the caller's own favourites",
        "POST /v1/me/friends/{username}": "a request from the caller, which the other person answers",
        "DELETE /v1/me/friends/{username}": "the caller's own side of a friendship",
        "PUT /v1/me/blocks/{username}": "the caller's own block list",
        "DELETE /v1/me/blocks/{username}": "the caller's own block list",
        "PUT /v1/me/following/{username}": "the caller's own follows (FollowRouteTests: another's unfollow finds nothing)",
        "DELETE /v1/me/following/{username}": "the caller's own follows (FollowRouteTests: another's unfollow finds nothing)",
        "POST /v1/me/notifications/read": "the caller's own notifications",
        "PUT /v1/me/webhook": "the caller's own webhook",
        "DELETE /v1/me/webhook": "the caller's own webhook",
        "POST /v1/gems": "creates a gem the caller owns",
        "POST /v1/itineraries": "creates an itinerary the caller owns",
        "POST /v1/trips": "creates a trip the caller leads",
    ]

    /// One try: the concrete path, its body, and what a stranger may be answered.
    struct Probe {
        var path: String
        var json: String? = nil
        var bytes: [UInt8]? = nil
        /// 404 where the stranger may not see the thing, 403 where they see it but may not change it.
        var refused: Set<Int> = [403, 404]
    }

    /// Ann's things, which the stranger (mal) is then let loose on: a private, a friends-only
    /// and a public gem (the public one with a photo), a private itinerary with a share link, a
    /// trip with a photo and a share link, a favourite, and her session.
    struct AnnsThings: Sendable {
        var ann = "", mal = ""
        var privateGem = "", friendsGem = "", publicGem = "", gemPhoto = ""
        var itinerary = "", itineraryShare = "", trip = "", tripPhoto = "", tripShare = "", session = ""

        /// Names, ids and the email address the stranger must never be shown.
        var secrets: [String] {
            [
                "Hidden Spring Zq", privateGem, "Friends Cove Zq", friendsGem, "Secret Weekend Zq", itinerary,
                "Secret Picnic Zq", trip, "ann@example.org",
            ]
        }

        static func make(_ client: Client) async throws -> AnnsThings {
            var things = AnnsThings()
            let ann = try await client.account("ann")
            things.ann = ann
            things.mal = try await client.account("mal")
            things.privateGem = try await client.gem(ann, name: "Hidden Spring Zq", lat: 43.7301, lon: 7.4219, visibility: "private")
            things.friendsGem = try await client.gem(ann, name: "Friends Cove Zq", lat: 43.7305, lon: 7.4225, visibility: "friends")
            things.publicGem = try await client.gem(ann, name: "Open Lookout", lat: 43.7402, lon: 7.4301, visibility: "public")
            let gemImage = TestImages.png(grey: 61)
            #expect(try await client.send(.post, "/v1/gems/\(things.publicGem)/photos", token: ann, bytes: gemImage).status == .created)
            things.gemPhoto = StoredPhoto.id(gemImage)
            things.itinerary = try #require(
                try await client.send(
                    .post, "/v1/itineraries", token: ann,
                    json: PlanRouteTests.itinerary
                        .replacingOccurrences(of: "Paris in spring", with: "Secret Weekend Zq")
                ).json["id"] as? String)
            things.itineraryShare = try #require(
                try await client.send(.post, "/v1/itineraries/\(things.itinerary)/shares", token: ann)
                    .json["id"] as? String)
            things.trip = try #require(
                try await client.send(
                    .post, "/v1/trips", token: ann,
                    json: TripRouteTests.trip(
                        start: "2030-06-12T12:00:00+02:00", end: "2030-06-12T16:00:00+02:00", invitees: []
                    )
                    .replacingOccurrences(of: "Picnic", with: "Secret Picnic Zq")
                ).json["id"] as? String)
            things.tripPhoto = try #require(
                try await client.send(
                    .post, "/v1/trips/\(things.trip)/photos", token: ann,
                    bytes: TestImages.png(grey: 62)
                ).json["photo_id"] as? String)
            things.tripShare = try #require(try await client.send(.post, "/v1/trips/\(things.trip)/shares", token: ann).json["id"] as? String)
            #expect(try await client.send(.put, "/v1/me/favorites/\(things.privateGem)", token: ann).status.code < 300)
            let sessions = try await client.send(.get, "/v1/me/sessions", token: ann).json["sessions"] as? [[String: Any]] ?? []
            things.session = try #require(sessions.first?["id"] as? String)
            return things
        }
    }

    /// Runs `body` on a fresh service with Ann's things made, and the router's table.
    static func withAnnsThings(_ body: @escaping @Sendable (Client, AnnsThings, RouteTable) async throws -> Void) async throws {
        let fixture = try await AccountFixture()
        let (_, table) = fixture.service.makeRouter()
        try await fixture.test { client in try await body(client, try await AnnsThings.make(client), table) }
    }

    @Test func aStrangerChangesNothingOfAnothersThroughAnyWriteRoute() async throws {
        try await Self.withAnnsThings { client, things, table in
            let (ann, mal, privateGem, publicGem, gemPhoto) = (things.ann, things.mal, things.privateGem, things.publicGem, things.gemPhoto)
            let (itinerary, itineraryShare, trip) = (things.itinerary, things.itineraryShare, things.trip)
            let (tripPhoto, tripShare, annSession) = (things.tripPhoto, things.tripShare, things.session)

            let photo = TestImages.png(grey: 63)
            let probes: [String: [Probe]] = [
                "DELETE /v1/me/sessions/{sessionId}": [Probe(path: "/v1/me/sessions/\(annSession)")],
                "PATCH /v1/gems/{id}": [
                    Probe(path: "/v1/gems/\(privateGem)", json: #"{"name":"Mine now"}"#),
                    Probe(path: "/v1/gems/\(publicGem)", json: #"{"name":"Mine now"}"#),
                ],
                "DELETE /v1/gems/{id}": [Probe(path: "/v1/gems/\(privateGem)"), Probe(path: "/v1/gems/\(publicGem)")],
                // Rating and reporting a public gem is everyone's right (their own rating or
                // report); a private one the stranger may not even see.
                "PUT /v1/gems/{id}/rating": [Probe(path: "/v1/gems/\(privateGem)/rating", json: #"{"stars":1}"#)],
                "DELETE /v1/gems/{id}/rating": [Probe(path: "/v1/gems/\(privateGem)/rating")],
                "PUT /v1/gems/{id}/report": [Probe(path: "/v1/gems/\(privateGem)/report", json: #"{"reason":"spam"}"#)],
                "POST /v1/gems/{id}/photos": [
                    Probe(path: "/v1/gems/\(privateGem)/photos", bytes: photo),
                    Probe(path: "/v1/gems/\(publicGem)/photos", bytes: photo),
                ],
                "DELETE /v1/gems/{id}/photos/{photoId}": [Probe(path: "/v1/gems/\(publicGem)/photos/\(gemPhoto)")],
                "POST /v1/moderation/gems/{id}/hide": [Probe(path: "/v1/moderation/gems/\(publicGem)/hide", json: #"{"reason":"mine"}"#)],
                "POST /v1/moderation/gems/{id}/restore": [Probe(path: "/v1/moderation/gems/\(publicGem)/restore", json: "{}")],
                "POST /v1/moderation/gems/{id}/dismiss": [Probe(path: "/v1/moderation/gems/\(publicGem)/dismiss", json: "{}")],
                "PATCH /v1/itineraries/{id}": [Probe(path: "/v1/itineraries/\(itinerary)", json: #"{"title":"Mine now"}"#)],
                "DELETE /v1/itineraries/{id}": [Probe(path: "/v1/itineraries/\(itinerary)")],
                "POST /v1/itineraries/{id}/stops": [
                    Probe(path: "/v1/itineraries/\(itinerary)/stops", json: #"{"place_id":"geonames:2988507","day":1}"#)
                ],
                "PUT /v1/itineraries/{id}/collaborators/{username}": [
                    Probe(path: "/v1/itineraries/\(itinerary)/collaborators/mal", json: #"{"role":"editor"}"#)
                ],
                "DELETE /v1/itineraries/{id}/collaborators/{username}": [Probe(path: "/v1/itineraries/\(itinerary)/collaborators/ann")],
                "POST /v1/itineraries/{id}/days/{day}/optimize": [Probe(path: "/v1/itineraries/\(itinerary)/days/2/optimize")],
                "POST /v1/itineraries/{id}/shares": [Probe(path: "/v1/itineraries/\(itinerary)/shares")],
                "DELETE /v1/itineraries/{id}/shares/{shareId}": [Probe(path: "/v1/itineraries/\(itinerary)/shares/\(itineraryShare)")],
                "PATCH /v1/trips/{id}": [Probe(path: "/v1/trips/\(trip)", json: #"{"invitees":["mal"]}"#)],
                "DELETE /v1/trips/{id}": [Probe(path: "/v1/trips/\(trip)")],
                "PUT /v1/trips/{id}/rsvp": [Probe(path: "/v1/trips/\(trip)/rsvp", json: #"{"answer":"accepted"}"#)],
                "PUT /v1/trips/{id}/availability": [Probe(path: "/v1/trips/\(trip)/availability", json: #"{"busy":[]}"#)],
                "POST /v1/trips/{id}/photos": [Probe(path: "/v1/trips/\(trip)/photos", bytes: photo)],
                "DELETE /v1/trips/{id}/photos/{photoId}": [Probe(path: "/v1/trips/\(trip)/photos/\(tripPhoto)")],
                "POST /v1/trips/{id}/shares": [Probe(path: "/v1/trips/\(trip)/shares")],
                "DELETE /v1/trips/{id}/shares/{shareId}": [Probe(path: "/v1/trips/\(trip)/shares/\(tripShare)")],
            ]

            // What ann reads of her things, before and after.
            let reads = [
                "/v1/gems/\(privateGem)", "/v1/gems/\(publicGem)", "/v1/itineraries/\(itinerary)",
                "/v1/itineraries/\(itinerary)/shares", "/v1/trips/\(trip)", "/v1/me",
            ]
            func snapshot() async throws -> [String: String] {
                var texts: [String: String] = [:]
                for path in reads {
                    let answer = try await client.send(.get, path, token: ann)
                    #expect(answer.status == .ok, "\(path): \(answer.text)")
                    texts[path] = answer.text
                }
                return texts
            }
            let before = try await snapshot()

            let writes = table.entries.filter { [.post, .put, .patch, .delete].contains($0.method) }
            #expect(writes.count >= 40, "the router's write routes")
            for route in writes {
                let key = "\(route.method.rawValue) \(route.path)"
                if Self.ownDataOnly[key] != nil { continue }
                guard let tries = probes[key] else {
                    Issue.record("no stranger probe for \(key): add one here, or list it in ownDataOnly with why")
                    continue
                }
                for probe in tries {
                    let answer = try await client.send(route.method, probe.path, token: mal, json: probe.json, bytes: probe.bytes)
                    #expect(probe.refused.contains(Int(answer.status.code)), "\(key) as a stranger on \(probe.path): \(answer.status) \(answer.text)")
                }
            }
            for key in probes.keys {
                #expect(writes.contains { "\($0.method.rawValue) \($0.path)" == key }, "a probe for a route the router lacks: \(key)")
            }
            for key in Self.ownDataOnly.keys {
                #expect(writes.contains { "\($0.method.rawValue) \($0.path)" == key }, "listed but not served: \(key)")
            }

            // Nobody signed in: every write route but signing up, signing in and the two that
            // store nothing answers 401, whatever the path names.
            let openToAll: Set<String> = ["POST /v1/users", "POST /v1/sessions", "POST /v1/route", "POST /v1/discover/itinerary"]
            for route in writes where !openToAll.contains("\(route.method.rawValue) \(route.path)") {
                let key = "\(route.method.rawValue) \(route.path)"
                let path = probes[key]?.first?.path ?? route.path.replacingOccurrences(of: #"\{[A-Za-z]+\}"#, with: "x", options: .regularExpression)
                let answer = try await client.send(route.method, path, json: probes[key]?.first?.json ?? "{}")
                #expect(answer.status == .unauthorized, "\(key) with no token on \(path): \(answer.status) \(answer.text)")
            }

            // Nothing of ann's changed; her session still works; the photos are still hers.
            let after = try await snapshot()
            for path in reads { #expect(before[path] == after[path], "\(path) changed") }
            #expect(try await client.send(.get, "/v1/photos/\(gemPhoto)").status == .ok)
            #expect(try await client.send(.get, "/v1/photos/\(tripPhoto)", token: ann).status == .ok)
        }
    }

    /// Every read route, asked by a signed-in stranger and by someone not signed in, near and
    /// about another person's private things: no answer holds any of them (names, ids, titles,
    /// the email address). Like the write sweep, it reads the router's table, so a read route
    /// added later is asked too.
    @Test func noReadRouteShowsAStrangerWhatIsNotTheirs() async throws {
        try await Self.withAnnsThings { client, things, table in
            let (ann, mal, privateGem, itinerary, trip) = (things.ann, things.mal, things.privateGem, things.itinerary, things.trip)
            let secrets = things.secrets

            // Values for the parameters a route may take, all aimed at ann's things.
            let values: [String: String] = [
                "lat": "43.7301", "lon": "7.4219", "radius": "20km", "bbox": "7.3,43.6,7.6,43.9",
                "k": "50", "max_distance": "50km", "q": "ann", "limit": "50",
            ]
            let document = try #require(try JSONSerialization.jsonObject(with: Data(try ServiceResources.openAPI())) as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let pathValues = ["id": privateGem, "username": "ann", "token": "not-a-real-token"]
            let skipped: Set<String> = [
                "/", "/openapi.json", "/metrics", "/healthz", "/leaflet/{file}", "/leaflet/images/{file}", "/map/countries.geojson",
                "/v1/photos/{id}", "/v1/weather", "/v1/images",
            ]
            var asked = 0
            for route in table.entries where route.method == .get && !skipped.contains(route.path) {
                var path = route.path
                if path.hasPrefix("/v1/itineraries/{id}") { path = path.replacingOccurrences(of: "{id}", with: itinerary) }
                if path.hasPrefix("/v1/trips/{id}") { path = path.replacingOccurrences(of: "{id}", with: trip) }
                for (name, value) in pathValues { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
                let parameters = ((paths[route.path]?["get"] as? [String: Any])?["parameters"] as? [[String: Any]] ?? [])
                    .compactMap { $0["name"] as? String }
                var query = parameters.compactMap { name in values[name].map { "\(name)=\($0)" } }
                if route.path == "/v1/search" { query += ["query=Hidden", "provider=local"] }
                if route.path == "/v1/cities" { query = ["q=Mon"] }
                let uri = query.isEmpty ? path : path + "?" + query.joined(separator: "&")
                for (viewer, token) in [("mal", Optional(mal)), ("nobody", nil)] {
                    let answer = try await client.send(.get, uri, token: token)
                    asked += 1
                    for secret in secrets where !uri.contains(secret) {
                        #expect(!answer.text.contains(secret), "GET \(uri) as \(viewer) shows \(secret): \(answer.text.prefix(300))")
                    }
                }
            }
            #expect(asked >= 60, "the router's read routes, twice each")
            // The sweep can see: ann herself finds her private gem near the same point.
            #expect(try await client.ids("/v1/gems/near?lat=43.7301&lon=7.4219&radius=20km", token: ann).contains(privateGem))
        }
    }
}
