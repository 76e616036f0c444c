import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Itineraries and share links over HTTP: the authorisation matrix (owner, editor, viewer,
/// friend, stranger, anonymous with and without a link) for every itinerary route, content,
/// costs, the map view, day ordering, and edits that race.
@Suite struct PlanRouteTests {
    typealias Client = AccountFixture.Client

    static let itinerary = """
        {"title":"Paris in spring","destination":{"place_id":"geonames:2988507"},"start_date":"2027-04-10","end_date":"2027-04-12",
         "budget":{"amount":1000,"currency":"EUR"},
         "transport":[{"mode":"train","from":{"lat":51.5313,"lon":-0.1263,"name":"St Pancras"},"to":{"lat":48.8809,"lon":2.3553,"name":"Gare du Nord"},
                       "departure":"2027-04-10T08:01:00+01:00","arrival":"2027-04-10T11:20:00+02:00","reference":"ES9010",
                       "price":{"amount":120.1,"currency":"GBP"}}],
         "lodging":[{"name":"Hôtel du Marais","location":{"lat":48.8590,"lon":2.3620},"check_in":"2027-04-10","check_out":"2027-04-12",
                     "price":{"amount":310.2,"currency":"EUR"}}],
         "stops":[{"id":"louvre","location":{"lat":48.8606,"lon":2.3376,"name":"Louvre"},"day":2,"duration_minutes":120,"price":{"amount":22,"currency":"EUR"}},
                  {"id":"orsay","location":{"lat":48.8600,"lon":2.3266,"name":"Orsay"},"day":2,"duration_minutes":90,"fixed_start":"15:00","price":{"amount":16.1,"currency":"EUR"}},
                  {"id":"vosges","location":{"lat":48.8556,"lon":2.3655,"name":"Place des Vosges"},"day":2,"duration_minutes":30},
                  {"id":"tower","location":{"lat":48.8584,"lon":2.2945,"name":"Eiffel Tower"},"day":3,"duration_minutes":60}]}
        """

    /// Makes ann's itinerary with bob as editor and cat as viewer; dan is ann's friend; eve a stranger.
    static func people(_ client: Client) async throws -> (tokens: [String: String], id: String) {
        var tokens: [String: String] = [:]
        for name in ["ann", "bob", "cat", "dan", "eve"] { tokens[name] = try await client.account(name) }
        #expect(try await client.send(.post, "/v1/me/friends/ann", token: tokens["dan"]).status == .created)
        #expect(try await client.send(.post, "/v1/me/friends/dan", token: tokens["ann"]).status == .ok)
        let made = try await client.send(.post, "/v1/itineraries", token: tokens["ann"], json: itinerary)
        #expect(made.status == .created, "\(made.text)")
        let id = made.json["id"] as? String ?? ""
        for (name, role) in [("bob", "editor"), ("cat", "viewer")] {
            let added = try await client.send(
                .put, "/v1/itineraries/\(id)/collaborators/\(name)", token: tokens["ann"], json: #"{"role":"\#(role)"}"#)
            #expect(added.status == .ok, "\(added.text)")
        }
        return (tokens, id)
    }

    @Test func everyItineraryRouteAnswersEachKindOfViewerAsItShould() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let (tokens, id) = try await Self.people(client)
            let viewers: [String?] = ["ann", "bob", "cat", "dan", "eve", nil]
            func status(_ method: HTTPRequest.Method, _ path: String, _ who: String?, json: String? = nil) async throws -> Int {
                Int(try await client.send(method, path, token: who.flatMap { tokens[$0] }, json: json).status.code)
            }
            for visibility in ["private", "friends", "public"] {
                #expect(try await status(.patch, "/v1/itineraries/\(id)", "ann", json: #"{"visibility":"\#(visibility)"}"#) == 200)
                // Who may read: owner, collaborators; friends when friends or public; anyone when public.
                let readers: Set<String?> =
                    visibility == "private"
                    ? ["ann", "bob", "cat"]
                    : visibility == "friends" ? ["ann", "bob", "cat", "dan"] : Set(viewers)
                for viewer in viewers {
                    let canRead = readers.contains(viewer)
                    let signedIn = viewer != nil
                    let notSeen = signedIn ? 404 : 401
                    #expect(
                        try await status(.get, "/v1/itineraries/\(id)", viewer) == (canRead ? 200 : 404),
                        "\(visibility) GET by \(viewer ?? "anonymous")")
                    #expect(try await status(.get, "/v1/itineraries/\(id)?format=geojson", viewer) == (canRead ? 200 : 404))
                    // Editing: owner and editor; readers who may not edit get 403; the rest 404 (or 401).
                    let edit = viewer == "ann" || viewer == "bob" ? 200 : !signedIn ? 401 : canRead ? 403 : 404
                    #expect(
                        try await status(.patch, "/v1/itineraries/\(id)", viewer, json: #"{"notes":"by \#(viewer ?? "-")"}"#) == edit,
                        "\(visibility) PATCH by \(viewer ?? "anonymous")")
                    let added = try await status(.post, "/v1/itineraries/\(id)/stops", viewer, json: #"{"place_id":"geonames:2988507","day":1}"#)
                    #expect(added == (edit == 200 ? 201 : edit), "\(visibility) add stop by \(viewer ?? "anonymous")")
                    #expect(try await status(.post, "/v1/itineraries/\(id)/days/3/optimize", viewer) == edit)
                    // Owner only: visibility, collaborators, links, deleting.
                    let own = viewer == "ann" ? 200 : !signedIn ? 401 : canRead ? 403 : notSeen
                    if viewer != "ann" {
                        #expect(
                            try await status(.patch, "/v1/itineraries/\(id)", viewer, json: #"{"visibility":"public"}"#) == own,
                            "\(visibility) visibility by \(viewer ?? "anonymous")")
                        #expect(try await status(.put, "/v1/itineraries/\(id)/collaborators/eve", viewer, json: #"{"role":"editor"}"#) == own)
                        #expect(try await status(.post, "/v1/itineraries/\(id)/shares", viewer) == (own == 200 ? 201 : own))
                        #expect(try await status(.get, "/v1/itineraries/\(id)/shares", viewer) == own)
                        #expect(try await status(.delete, "/v1/itineraries/\(id)/shares/sh_x", viewer) == (own == 200 ? 404 : own))
                        #expect(try await status(.delete, "/v1/itineraries/\(id)", viewer) == own)
                        if viewer != "bob" && viewer != "cat" {
                            #expect(try await status(.delete, "/v1/itineraries/\(id)/collaborators/bob", viewer) == own)
                        }
                    }
                }
            }
            // Listing: one's own and those one is on, never another's.
            for (viewer, count) in [("ann", 1), ("bob", 1), ("cat", 1), ("dan", 0), ("eve", 0)] {
                let list = try await client.send(.get, "/v1/itineraries", token: tokens[viewer])
                #expect((list.json["itineraries"] as? [Any])?.count == count, "\(viewer)'s list")
            }
            // A viewer leaves; the owner deletes.
            #expect(try await status(.delete, "/v1/itineraries/\(id)/collaborators/cat", "cat") == 204)
            #expect(try await status(.patch, "/v1/itineraries/\(id)", "ann", json: #"{"visibility":"private"}"#) == 200)
            #expect(try await status(.get, "/v1/itineraries/\(id)", "cat") == 404)
            #expect(try await status(.delete, "/v1/itineraries/\(id)", "ann") == 204)
            #expect(try await status(.get, "/v1/itineraries/\(id)", "ann") == 404)
        }
    }

    @Test func aShareLinkOpensTheItineraryReadOnlyUntilRevoked() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let (tokens, id) = try await Self.people(client)
            let made = try await client.send(.post, "/v1/itineraries/\(id)/shares", token: tokens["ann"])
            #expect(made.status == .created, "\(made.text)")
            let token = try #require(made.json["token"] as? String)
            let shareID = try #require(made.json["id"] as? String)
            #expect(token.count >= 43, "256 bits of base64url")
            #expect(!token.contains(id) && !token.contains(shareID), "the token is not made from ids")
            let second = try await client.send(.post, "/v1/itineraries/\(id)/shares", token: tokens["ann"])
            #expect(second.json["token"] as? String != token)

            let shared = try await client.send(.get, "/v1/shared/\(token)")
            #expect(shared.status == .ok)
            #expect(shared.json["title"] as? String == "Paris in spring" && shared.json["your_access"] as? String == "shared_link")
            #expect(shared.json["collaborators"] == nil, "a link's holder does not see who else is on it")
            #expect(try await client.send(.get, "/v1/shared/\(token)?format=geojson").status == .ok)
            // The link reads; it never writes: writes need an account with access.
            #expect(try await client.send(.patch, "/v1/itineraries/\(id)", token: tokens["eve"], json: #"{"notes":"x"}"#).status == .notFound)
            // A HEAD (a link checker) answers as GET does and is no view.
            let probe = try await client.send(.head, "/v1/shared/\(token)")
            #expect(probe.status == .ok && probe.body.readableBytes == 0)
            let unviewed = try #require(second.json["token"] as? String)
            #expect(try await client.send(.head, "/v1/shared/\(unviewed)").status == .ok)
            // The owner sees views, and is told of the first one once.
            let links = try await client.send(.get, "/v1/itineraries/\(id)/shares", token: tokens["ann"])
            let entry = ((links.json["shares"] as? [[String: Any]]) ?? []).first { $0["id"] as? String == shareID }
            #expect(entry?["view_count"] as? Int == 2 && entry?["last_viewed_at"] is String && entry?["token"] == nil)
            let probed = ((links.json["shares"] as? [[String: Any]]) ?? []).first { $0["id"] as? String == second.json["id"] as? String }
            #expect(probed?["view_count"] as? Int == 0 && probed?["last_viewed_at"] is NSNull, "\(String(describing: probed))")
            let notes = try await client.send(.get, "/v1/me/notifications", token: tokens["ann"])
            let viewed = ((notes.json["notifications"] as? [[String: Any]]) ?? []).filter { $0["kind"] as? String == "share_viewed" }
            #expect(viewed.count == 1)
            // Revoked: 404 like a token that never existed.
            #expect(try await client.send(.delete, "/v1/itineraries/\(id)/shares/\(shareID)", token: tokens["ann"]).status == .noContent)
            #expect(try await client.send(.get, "/v1/shared/\(token)").status == .notFound)
            #expect(try await client.send(.get, "/v1/shared/not-a-token").status == .notFound)
            #expect(
                try await client.send(
                    .post, "/v1/itineraries/\(id)/shares", token: tokens["ann"],
                    json: #"{"expires_at":"2001-01-01T00:00:00Z"}"#
                ).status == .badRequest)
        }
    }

    @Test func costsMapAndDayOrder() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("ann")
            let made = try await client.send(.post, "/v1/itineraries", token: ann, json: Self.itinerary)
            let id = made.json["id"] as? String ?? ""
            #expect(made.json["time_zone"] as? String == "Europe/Paris", "from the destination place")
            #expect(made.headers[.eTag] == "\"1\"")
            let cost = made.json["cost"] as? [String: Any] ?? [:]
            func amounts(_ key: String) -> [String] {
                ((cost[key] as? [[String: Any]]) ?? []).map { "\($0["amount"] ?? "") \($0["currency"] ?? "")" }
            }
            #expect(amounts("total") == ["348.3 EUR", "120.1 GBP"], "per currency, never converted: \(amounts("total"))")
            #expect(amounts("stops") == ["38.1 EUR"] && amounts("lodging") == ["310.2 EUR"] && amounts("transport") == ["120.1 GBP"])
            #expect((cost["remaining"] as? [String: Any])?["amount"] as? Double == 651.7)
            #expect(cost["other_currencies"] as? [String] == ["GBP"])

            // The map: numbered stops per day and a line per day from the lodging and back.
            let map = try await client.send(.get, "/v1/itineraries/\(id)?format=geojson", token: ann)
            #expect(map.headers[.contentType] == "application/geo+json")
            let features = (map.json["features"] as? [[String: Any]]) ?? []
            let stops = features.filter { ($0["properties"] as? [String: Any])?["kind"] as? String == "stop" }
            #expect(stops.compactMap { ($0["properties"] as? [String: Any])?["number"] as? Int } == [1, 2, 3, 1])
            let lines = features.filter { ($0["geometry"] as? [String: Any])?["type"] as? String == "LineString" }
            let dayTwo = lines.first { ($0["properties"] as? [String: Any])?["day"] as? Int == 2 }
            let coordinates = ((dayTwo?["geometry"] as? [String: Any])?["coordinates"] as? [[Double]]) ?? []
            #expect(
                coordinates.count == 5 && coordinates.first == [2.362, 48.859] && coordinates.last == [2.362, 48.859],
                "lodging, three stops, lodging; longitude first")

            // Day 2: Orsay fixed at 15:00; the rest ordered around it with the least walking.
            let ordered = try await client.send(.post, "/v1/itineraries/\(id)/days/2/optimize", token: ann, json: #"{"mode":"walk"}"#)
            #expect(ordered.status == .ok, "\(ordered.text)")
            let schedule = (ordered.json["schedule"] as? [[String: Any]]) ?? []
            #expect(schedule.first { $0["stop_id"] as? String == "orsay" }?["start"] as? String == "15:00")
            #expect(ordered.json["proven_optimal"] as? Bool == true)
            let order = ordered.json["order"] as? [String] ?? []
            #expect(Set(order) == ["louvre", "orsay", "vosges"])
            let after = try await client.send(.get, "/v1/itineraries/\(id)", token: ann)
            let stored = ((after.json["stops"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            #expect(Array(stored.prefix(3)) == order && stored.last == "tower", "the day is saved in its new order, other days kept")

            // A day that cannot hold a stop says which and why, and changes nothing.
            let late = try await client.send(
                .post, "/v1/itineraries/\(id)/stops", token: ann,
                json: """
                    {"location":{"lat":48.8530,"lon":2.3499,"name":"Notre-Dame"},"day":3,"fixed_start":"22:30","duration_minutes":30}
                    """)
            #expect(late.status == .created)
            let refused = try await client.send(.post, "/v1/itineraries/\(id)/days/3/optimize", token: ann)
            #expect(refused.status == .unprocessableContent, "\(refused.text)")
            let unplaced = (refused.json["unplaced"] as? [[String: Any]]) ?? []
            #expect(unplaced.count == 1 && unplaced.first?["name"] as? String == "Notre-Dame")
            #expect((unplaced.first?["reason"] as? String)?.contains("22:30") == true, "\(unplaced)")
            #expect(try await client.send(.post, "/v1/itineraries/\(id)/days/9/optimize", token: ann).status == .badRequest)

            // Bad input names the value.
            let bad = try await client.send(.patch, "/v1/itineraries/\(id)", token: ann, json: #"{"budget":{"amount":5,"currency":"euro"}}"#)
            #expect(bad.status == .badRequest && bad.text.contains("'euro'"))
            let stray = try await client.send(.patch, "/v1/itineraries/\(id)", token: ann, json: #"{"end_date":"2027-04-10"}"#)
            #expect(stray.status == .badRequest && stray.text.contains("day 2"), "\(stray.text)")
            // A member of the wrong kind: the answer says what was sent and what is valid.
            for (json, detail) in [
                (#"{"destination":"Paris"}"#, #"destination is the string "Paris"; it must be a JSON object with place_id, lat, lon, name"#),
                (#"{"stops":{"id":"x"}}"#, "stops is an object with id; it must be an array of objects"),
                (
                    #"{"stops":[3]}"#,
                    "stops[0] is the number 3; it must be a JSON object with id, location, day, fixed_start, duration_minutes, notes, price"
                ),
                (#"{"title":["a","b"]}"#, "title is an array of 2 entries; it must be a string"),
                (#"{"budget":{"amount":"5","currency":"EUR"}}"#, #"budget.amount is the string "5"; it must be a number from 0 to 1e12"#),
                (#"{"budget":{"amount":-1,"currency":"EUR"}}"#, "budget.amount is the number -1; it must be a number from 0 to 1e12"),
                (
                    #"{"transport":[{"mode":"train","from":{"lat":51.5,"lon":-0.1},"to":{"lat":48.9,"lon":2.4},"departure":"tomorrow","arrival":"2027-04-10T11:20:00+02:00"}]}"#,
                    "transport[0].departure 'tomorrow' is invalid: give an RFC 3339 time with an offset, e.g. 2027-05-02T09:40:00+02:00"
                ),
                (
                    #"{"transport":[{"from":{"lat":51.5,"lon":-0.1},"to":{"lat":48.9,"lon":2.4}}]}"#,
                    "field 'transport[0].mode' is required: flight, train, bus, car, ferry, taxi, walk, bike, other"
                ),
            ] {
                let wrong = try await client.send(.patch, "/v1/itineraries/\(id)", token: ann, json: json)
                #expect(wrong.status == .badRequest && wrong.json["detail"] as? String == detail, "\(json): \(wrong.text)")
            }
        }
    }

    @Test func concurrentEditsAreAllKeptAndAStaleRevisionIsRefused() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let (tokens, id) = try await Self.people(client)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for n in 0..<12 {
                    let token = n % 2 == 0 ? tokens["ann"] : tokens["bob"]
                    group.addTask {
                        Int(
                            try await client.send(
                                .post, "/v1/itineraries/\(id)/stops", token: token,
                                json: #"{"location":{"lat":48.85,"lon":2.3\#(n)},"day":1}"#
                            ).status.code)
                    }
                }
                for try await status in group { #expect(status == 201) }
            }
            let now = try await client.send(.get, "/v1/itineraries/\(id)", token: tokens["ann"])
            #expect(((now.json["stops"] as? [Any]) ?? []).count == 4 + 12, "no edit lost")
            let revision = now.json["revision"] as? Int ?? 0
            let stale = try await client.send(
                .patch, "/v1/itineraries/\(id)", token: tokens["bob"], json: #"{"notes":"x"}"#,
                headers: [.ifMatch: "\"\(revision - 1)\""])
            #expect(stale.status == .preconditionFailed)
            let fresh = try await client.send(
                .patch, "/v1/itineraries/\(id)", token: tokens["bob"], json: #"{"notes":"x"}"#,
                headers: [.ifMatch: "\"\(revision)\""])
            #expect(fresh.status == .ok && fresh.json["revision"] as? Int == revision + 1)
        }
    }
}
