import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProviderTestSupport
import Testing

/// Group trips, friends and notifications over HTTP: invitations and answers, who may do what,
/// busy times as JSON and iCalendar, meeting times, the album, reminders made once across a restart.
@Suite struct TripRouteTests {
    /// An RFC 3339 time of an answer.
    static func instant(_ text: String) -> Date? { try? Date(text, strategy: .iso8601) }

    static func trip(start: String, end: String, invitees: [String]) -> String {
        """
        {"title":"Picnic","place":{"place_id":"geonames:2988507"},"start":"\(start)","end":"\(end)",
         "invitees":[\(invitees.map { "\"\($0)\"" }.joined(separator: ","))]}
        """
    }

    @Test func invitationsAnswersAndWhoMayDoWhat() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            var tokens: [String: String] = [:]
            for name in ["ann", "bob", "cat", "eve"] { tokens[name] = try await client.account(name) }
            let made = try await client.send(
                .post, "/v1/trips", token: tokens["ann"],
                json: Self.trip(start: "2030-06-12T12:00:00+02:00", end: "2030-06-12T16:00:00+02:00", invitees: ["bob", "cat"]))
            #expect(made.status == .created, "\(made.text)")
            let id = made.json["id"] as? String ?? ""
            #expect(made.json["time_zone"] as? String == "Europe/Paris")
            #expect(
                try await client.send(
                    .post, "/v1/trips", token: tokens["ann"],
                    json: Self.trip(start: "2030-06-12T12:00:00+02:00", end: "2030-06-12T16:00:00+02:00", invitees: ["nobody"])
                ).status == .notFound)
            // Invitations arrive as notifications.
            let bobNotes = try await client.send(.get, "/v1/me/notifications", token: tokens["bob"])
            #expect(((bobNotes.json["notifications"] as? [[String: Any]]) ?? []).first?["kind"] as? String == "trip_invitation")

            func status(_ method: HTTPRequest.Method, _ path: String, _ who: String?, json: String? = nil) async throws -> Int {
                Int(try await client.send(method, path, token: who.flatMap { tokens[$0] }, json: json).status.code)
            }
            #expect(try await status(.put, "/v1/trips/\(id)/rsvp", "bob", json: #"{"answer":"accepted"}"#) == 200)
            #expect(try await status(.put, "/v1/trips/\(id)/rsvp", "cat", json: #"{"answer":"declined"}"#) == 200)
            #expect(try await status(.put, "/v1/trips/\(id)/rsvp", "ann", json: #"{"answer":"accepted"}"#) == 403, "the author does not answer")
            #expect(try await status(.put, "/v1/trips/\(id)/rsvp", "eve", json: #"{"answer":"accepted"}"#) == 404)
            #expect(try await status(.put, "/v1/trips/\(id)/rsvp", "bob", json: #"{"answer":"perhaps"}"#) == 400)
            let annNotes = try await client.send(.get, "/v1/me/notifications?unread=true", token: tokens["ann"])
            #expect(((annNotes.json["notifications"] as? [[String: Any]]) ?? []).filter { $0["kind"] as? String == "trip_answer" }.count == 2)

            // Reading, editing, deleting.
            for (who, read, edit) in [("ann", 200, 200), ("bob", 200, 403), ("cat", 200, 403), ("eve", 404, 404), (nil, 404, 401)]
                as [(String?, Int, Int)]
            {
                #expect(try await status(.get, "/v1/trips/\(id)", who) == read, "GET by \(who ?? "anonymous")")
                #expect(
                    try await status(.patch, "/v1/trips/\(id)", who, json: #"{"notes":"bring a blanket"}"#) == edit, "PATCH by \(who ?? "anonymous")")
                if who != "ann" { #expect(try await status(.delete, "/v1/trips/\(id)", who) == edit) }
                #expect(
                    try await status(.put, "/v1/trips/\(id)/availability", who, json: #"{"busy":[]}"#)
                        == (who == "ann" || who == "bob" ? 200 : who == "cat" ? 403 : edit), "availability by \(who ?? "anonymous")")
                #expect(
                    try await status(.get, "/v1/trips/\(id)/meeting-times", who)
                        == (who == "ann" || who == "bob" ? 200 : who == "cat" ? 403 : edit))
                #expect(try await status(.post, "/v1/trips/\(id)/shares", who) == (who == "ann" ? 201 : edit))
            }
            // Invitees are checked only once the caller is known to be the author.
            #expect(
                try await status(.patch, "/v1/trips/\(id)", "ann", json: #"{"invitees":["ann"]}"#) == 400, "the author does not invite themselves")
            #expect(
                try await status(.patch, "/v1/trips/\(id)", "eve", json: #"{"invitees":["eve"]}"#) == 404,
                "a stranger learns nothing, not even from an invitee list that names them")
            #expect(try await status(.patch, "/v1/trips/\(id)", "bob", json: #"{"invitees":["nobody"]}"#) == 403)

            // Upcoming and past.
            let upcoming = try await client.send(.get, "/v1/me/trips?when=upcoming", token: tokens["bob"])
            #expect(((upcoming.json["trips"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == [id])
            let past = try await client.send(.get, "/v1/me/trips?when=past", token: tokens["bob"])
            #expect((past.json["trips"] as? [Any])?.isEmpty == true)
            #expect(try await client.send(.get, "/v1/me/trips", token: tokens["eve"]).json["count"] as? Int == 0)

            // The album: attendees add, the author or the uploader removes.
            let png = TestImages.png(withText: false)
            let added = try await client.send(.post, "/v1/trips/\(id)/photos", token: tokens["bob"], bytes: png)
            #expect(added.status == .created, "\(added.text)")
            let photo = added.json["photo_id"] as? String ?? ""
            #expect(try await client.send(.post, "/v1/trips/\(id)/photos", token: tokens["cat"], bytes: png).status == .forbidden, "declined")
            #expect(try await status(.delete, "/v1/trips/\(id)/photos/\(photo)", "cat") == 403)
            let album = try await client.send(.get, "/v1/trips/\(id)", token: tokens["ann"])
            #expect(((album.json["album"] as? [[String: Any]]) ?? []).first?["uploader"] as? String == "bob")
            let bobs = try await client.send(.get, "/v1/me/photos", token: tokens["bob"]).json["photos"] as? [[String: Any]] ?? []
            #expect(
                bobs.count == 1 && (bobs.first?["used_by"] as? [[String: Any]])?.first?["id"] as? String == id
                    && (bobs.first?["used_by"] as? [[String: Any]])?.first?["kind"] as? String == "trip",
                "the uploader's photo shows in the trip's album: \(bobs)")
            #expect(try await status(.delete, "/v1/trips/\(id)/photos/\(photo)", "ann") == 204)
            #expect(try await status(.get, "/v1/photos/\(photo)", "ann") == 404, "a photo nothing uses is gone")

            // Re-inviting keeps answers; the author deletes.
            let changed = try await client.send(.patch, "/v1/trips/\(id)", token: tokens["ann"], json: #"{"invitees":["bob","eve"]}"#)
            let invitees = (changed.json["invitees"] as? [[String: Any]]) ?? []
            #expect(invitees.map { "\($0["username"] ?? ""):\($0["answer"] ?? "")" } == ["bob:accepted", "eve:invited"])
            #expect(try await status(.get, "/v1/trips/\(id)", "cat") == 404, "no longer invited")
            #expect(try await status(.delete, "/v1/trips/\(id)", "ann") == 204)
            #expect(try await status(.get, "/v1/trips/\(id)", "bob") == 404)
        }
    }

    /// Budgets are kept to 4 decimal places: an amount beyond Decimal's exponent (found by
    /// schemathesis) was stored as a number no reader took, and the trip answered 500 for ever.
    @Test func anyBudgetTheBodyMayHoldIsStoredAndReadBack() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let token = try await client.account("planner")
            for (amount, kept) in [("4.841613222204243e-289", 0.0), ("12.34567", 12.3457), ("12.1", 12.1), ("999999999999.5", 999_999_999_999.5)] {
                let made = try await client.send(
                    .post, "/v1/trips", token: token,
                    json: """
                        {"title":"Budget","place":{"place_id":"geonames:2988507"},"start":"0724-04-21T06:17:49Z","end":"0954-01-30T19:42:31Z",
                         "budget":{"amount":\(amount),"currency":"EUR"}}
                        """)
                #expect(made.status == .created, "\(amount): \(made.text)")
                let id = try #require(made.json["id"] as? String)
                let read = try await client.send(.get, "/v1/trips/\(id)", token: token)
                #expect(read.status == .ok && (read.json["budget"] as? [String: Any])?["amount"] as? Double == kept, "\(amount): \(read.text)")
            }
            #expect(try await client.send(.get, "/v1/me/trips", token: token).status == .ok)
        }
    }

    @Test func meetingTimesFromJSONAndICalendarBusyTimes() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("ann"), bob = try await client.account("bob"), cat = try await client.account("cat")
            let made = try await client.send(
                .post, "/v1/trips", token: ann,
                json: Self.trip(start: "2030-03-30T10:00:00+02:00", end: "2030-03-30T20:00:00+02:00", invitees: ["bob", "cat"]))
            let id = made.json["id"] as? String ?? ""
            _ = try await client.send(.put, "/v1/trips/\(id)/rsvp", token: bob, json: #"{"answer":"accepted"}"#)
            _ = try await client.send(.put, "/v1/trips/\(id)/rsvp", token: cat, json: #"{"answer":"accepted"}"#)
            // Paris is at UTC+1 on 30 March 2030 (summer time begins on the 31st).
            // ann is busy 09:00–12:00 local on the 30th; bob sends iCalendar: busy 12:00–14:00 local (10:00–12:00 UTC).
            let json = #"{"busy":[{"start":"2030-03-30T09:00:00+01:00","end":"2030-03-30T12:00:00+01:00"}]}"#
            #expect(try await client.send(.put, "/v1/trips/\(id)/availability", token: ann, json: json).status == .ok)
            let calendar =
                "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VFREEBUSY\r\nFREEBUSY;FBTYPE=BUSY:20300330T110000Z/PT2H\r\n"
                + "FREEBUSY;FBTYPE=FREE:20300330T150000Z/20300330T200000Z\r\nEND:VFREEBUSY\r\nEND:VCALENDAR\r\n"
            let sent = try await client.send(
                .put, "/v1/trips/\(id)/availability", token: bob, bytes: Array(calendar.utf8),
                headers: [.contentType: "text/calendar"])
            #expect(sent.status == .ok && sent.json["busy_periods"] as? Int == 1, "\(sent.text)")
            let broken = try await client.send(
                .put, "/v1/trips/\(id)/availability", token: bob, bytes: Array("BEGIN:VFREEBUSY\nFREEBUSY:yesterday\nEND:VFREEBUSY".utf8),
                headers: [.contentType: "text/calendar"])
            #expect(broken.status == .badRequest && broken.text.contains("yesterday"))
            // A JSON body's bad parts are named; nesting past 64 levels is refused, not recursed
            // into (where the body's shape is wrong before then, that is said first).
            for (body, expected) in [
                (#"{"busy":[{"start":"2030-03-30T09:00:00","end":"2030-03-30T12:00:00+01:00"}]}"#, "busy[0] start and end must be RFC 3339"),
                (#"{"busy":[{"start":"2030-03-30T09:00:00Z","end":"2030-03-30T12:00:00Z","note":1}]}"#, "unknown field 'busy[0].note'"),
                (#"{"busy":[{"start":"2030-03-30T12:00:00Z","end":"2030-03-30T09:00:00Z"}]}"#, "busy[0] ends"),
                (#"{"busy":"soon"}"#, "busy must be an array"), (#"{"free":[]}"#, "unknown field 'free'"),
                (#"{"busy":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}", "busy[0] must be a JSON object"),
                (#"{"busy":[{"start":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}]}", "nested deeper than 64"),
                (#"{"busy":[{"start":"2030-03-30T09:00:00Z","end":"2030-03-30T12:00:00Z"}"#, "the request body is not a JSON object: malformed JSON"),
            ] {
                let refused = try await client.send(.put, "/v1/trips/\(id)/availability", token: ann, json: body)
                #expect(refused.status == .badRequest && refused.text.contains(expected), "\(body.prefix(80)) → \(refused.text)")
            }
            let endless = try await client.send(
                .post, "/v1/trips", token: ann, json: #"{"title":"No end","place":{"lat":38.72,"lon":-9.14},"start":"2030-03-30T10:00:00+01:00"}"#)
            #expect(endless.json["detail"] as? String == "field 'end' is required: an RFC 3339 time with an offset, e.g. 2027-06-12T23:00:00+02:00")
            let unsure = try await client.send(.put, "/v1/trips/\(id)/rsvp", token: bob, json: "{}")
            #expect(unsure.json["detail"] as? String == "field 'answer' is required: accepted, declined or maybe")

            let answer = try await client.send(
                .get, "/v1/trips/\(id)/meeting-times?duration=2h&from=2030-03-30T00:00:00%2B01:00&to=2030-03-31T00:00:00%2B01:00&daily=09:00-18:00",
                token: cat)
            #expect(answer.status == .ok, "\(answer.text)")
            let slots = (answer.json["slots"] as? [[String: Any]]) ?? []
            // Everyone free first: from 14:00 local (13:00 UTC); then the best partial ones, earliest first.
            #expect(slots.first?["start"] as? String == "2030-03-30T13:00:00Z", "\(slots.prefix(3))")
            #expect(slots.first?["busy"] as? [String] == [])
            let partial = slots.dropFirst().first
            #expect(
                partial?["start"] as? String == "2030-03-30T08:00:00Z" && partial?["busy"] as? [String] == ["ann"], "\(String(describing: partial))")
            #expect(answer.json["without_availability"] as? [String] == ["cat"])
            // Without `from`, from the next quarter hour on: every slot starts on one (the day's
            // hours start at whole hours and no one's busy time ends at an odd minute).
            let soon = try await client.send(.get, "/v1/trips/\(id)/meeting-times?duration=30m&daily=00:00-24:00&limit=100", token: cat)
            let starts = ((soon.json["slots"] as? [[String: Any]]) ?? []).compactMap { ($0["start"] as? String).flatMap(Self.instant) }
            #expect(!starts.isEmpty && starts.allSatisfy { Int($0.timeIntervalSince1970) % 900 == 0 }, "\(soon.text.prefix(300))")
            #expect(
                starts.min().map { $0.timeIntervalSinceNow > -60 && $0.timeIntervalSinceNow <= 900 } == true,
                "the first slot is the next quarter hour")
            for bad in ["duration=2x", "daily=22:00-09:00", "from=tomorrow", "limit=0"] {
                #expect(try await client.send(.get, "/v1/trips/\(id)/meeting-times?\(bad)", token: ann).status == .badRequest, "\(bad)")
            }
        }
    }

    @Test func friendsAskAnswerAndAreToldOnce() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("ann"), bob = try await client.account("bob"), cat = try await client.account("cat")
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: ann).status == .created)
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: ann).status == .ok, "asking again changes nothing")
            let bobs = try await client.send(.get, "/v1/me/friends", token: bob)
            #expect(((bobs.json["friends"] as? [[String: Any]]) ?? []).map { "\($0["username"] ?? ""):\($0["state"] ?? "")" } == ["ann:incoming"])
            let accepted = try await client.send(.post, "/v1/me/friends/ann", token: bob)
            #expect(accepted.json["state"] as? String == "accepted")
            let annNotes = try await client.send(.get, "/v1/me/notifications", token: ann)
            #expect(((annNotes.json["notifications"] as? [[String: Any]]) ?? []).map { $0["kind"] as? String } == ["friend_accepted"])
            let bobNotes = try await client.send(.get, "/v1/me/notifications", token: bob)
            #expect(((bobNotes.json["notifications"] as? [[String: Any]]) ?? []).map { $0["kind"] as? String } == ["friend_request"])
            // A friends-only gem: listed to and opened by the owner's friends, to no one else.
            let gem = try await client.gem(ann, name: "Friends' cove", lat: 43.7301, lon: 7.4201, visibility: "friends")
            let near = "/v1/gems/near?lat=43.73&lon=7.42&radius=1km"
            #expect(try await client.ids(near, token: bob).contains(gem), "a friend sees it listed")
            #expect(try await client.ids("/v1/places/near?lat=43.73&lon=7.42&radius=1km", token: bob).contains(gem))
            #expect(try await client.send(.get, "/v1/gems/\(gem)", token: bob).status == .ok)
            #expect(try await !client.ids(near, token: cat).contains(gem), "a stranger does not")
            #expect(try await !client.ids(near).contains(gem))
            #expect(try await client.send(.get, "/v1/gems/\(gem)", token: cat).status == .notFound)
            #expect(try await client.send(.get, "/v1/places/\(gem)", token: cat).status == .notFound)
            #expect(
                try await client.send(.patch, "/v1/gems/\(gem)", token: bob, json: #"{"name":"mine"}"#).status == .forbidden,
                "a friend reads, never changes")
            // The friendship counts both ways: bob answered ann's request, and ann sees bob's gem.
            let bobsGem = try await client.gem(bob, name: "Bob's ledge", lat: 43.7302, lon: 7.4202, visibility: "friends")
            #expect(try await client.ids(near, token: ann).contains(bobsGem), "the one who asked sees it too")
            #expect(try await !client.ids(near, token: cat).contains(bobsGem))

            // cat asks ann; ann declines; nothing remains.
            #expect(try await client.send(.post, "/v1/me/friends/ann", token: cat).status == .created)
            #expect(try await !client.ids(near, token: cat).contains(gem), "a request not yet answered shows nothing")
            #expect(
                try await !client.ids(near, token: ann).contains(
                    try await client.gem(
                        cat, name: "Cat's nook", lat: 43.7303, lon: 7.4203,
                        visibility: "friends")),
                "nor to the one asked")
            #expect(try await client.send(.delete, "/v1/me/friends/cat", token: ann).status == .noContent)
            let catsFriends = try await client.send(.get, "/v1/me/friends", token: cat)
            #expect((catsFriends.json["friends"] as? [Any])?.isEmpty == true)
            #expect(try await client.send(.delete, "/v1/me/friends/cat", token: ann).status == .notFound)
            // Asking again after a decline, and again, leaves ann one notification from cat.
            for _ in 0..<3 {
                #expect(try await client.send(.post, "/v1/me/friends/ann", token: cat).status == .created)
                #expect(try await client.send(.delete, "/v1/me/friends/cat", token: ann).status == .noContent)
            }
            let fromCat = try await client.send(.get, "/v1/me/notifications", token: ann)
            #expect(
                ((fromCat.json["notifications"] as? [[String: Any]]) ?? []).filter { ($0["data"] as? [String: Any])?["from"] as? String == "cat" }
                    .count == 1)
            #expect(try await client.send(.post, "/v1/me/friends/ann", token: ann).status == .badRequest)
            #expect(try await client.send(.post, "/v1/me/friends/nobody", token: ann).status == .notFound)
            // Marking read: only one's own; all at once.
            let read = try await client.send(.post, "/v1/me/notifications/read", token: ann, json: "{}")
            #expect(read.json["marked_read"] as? Int == 2, "\(read.text)")
            #expect(try await client.send(.get, "/v1/me/notifications?unread=true", token: ann).json["count"] as? Int == 0)
            #expect(try await client.send(.get, "/v1/me/notifications?unread=true", token: bob).json["count"] as? Int == 1)
        }
    }

    @Test func remindersAreMadeOnceAcrossARestart() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("ann"), bob = try await client.account("bob"), cat = try await client.account("cat")
            let dan = try await client.account("dan")
            let formatter = ISO8601DateFormatter()
            let soon = Date().addingTimeInterval(3 * 3_600), later = Date().addingTimeInterval(3 * 86_400)
            for start in [soon, later] {
                let made = try await client.send(
                    .post, "/v1/trips", token: ann,
                    json: Self.trip(
                        start: formatter.string(from: start), end: formatter.string(from: start.addingTimeInterval(3_600)),
                        invitees: ["bob", "cat", "dan"]))
                _ = try await client.send(.put, "/v1/trips/\(made.json["id"] as? String ?? "")/rsvp", token: bob, json: #"{"answer":"accepted"}"#)
                _ = try await client.send(.put, "/v1/trips/\(made.json["id"] as? String ?? "")/rsvp", token: dan, json: #"{"answer":"declined"}"#)
            }
            #expect(
                try await fixture.service.sendPlanReminders() == 3,
                "the author, bob who accepted and cat yet to answer (not dan, who declined), for the trip within 24 hours")
            // A restart: a new service on the same store.
            let restarted = GeoQueryService(
                index: fixture.service.index, userData: fixture.store,
                configuration: fixture.service.configuration, logger: fixture.service.logger)
            #expect(try await restarted.sendPlanReminders() == 0)
            for (token, count) in [(ann, 1), (bob, 1), (cat, 1), (dan, 0)] {
                let notes = try await client.send(.get, "/v1/me/notifications", token: token)
                #expect(((notes.json["notifications"] as? [[String: Any]]) ?? []).filter { $0["kind"] as? String == "trip_reminder" }.count == count)
            }
        }
    }

    /// An itinerary reminds its owner and collaborators 24 hours before midnight of its first
    /// day in its own time zone (Paris: 22:00 UTC the evening before, in April).
    @Test func itinerariesRemindBeforeTheirFirstDayInTheirTimeZone() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("ann"), bob = try await client.account("bob"), cat = try await client.account("cat")
            let made = try await client.send(.post, "/v1/itineraries", token: ann, json: PlanRouteTests.itinerary)
            let id = try #require(made.json["id"] as? String, "\(made.text)")
            #expect(try await client.send(.put, "/v1/itineraries/\(id)/collaborators/bob", token: ann, json: #"{"role":"editor"}"#).status.code < 300)
            let utc = ISO8601DateFormatter()
            // 2027-04-10 00:00 in Paris is 2027-04-09 22:00 UTC.
            #expect(try await fixture.service.sendPlanReminders(now: try #require(utc.date(from: "2027-04-08T21:59:00Z"))) == 0, "25 h before")
            #expect(try await fixture.service.sendPlanReminders(now: try #require(utc.date(from: "2027-04-08T22:01:00Z"))) == 2, "ann and bob")
            #expect(try await fixture.service.sendPlanReminders(now: try #require(utc.date(from: "2027-04-09T12:00:00Z"))) == 0, "once")
            for (token, count) in [(ann, 1), (bob, 1), (cat, 0)] {
                let notes = try await client.send(.get, "/v1/me/notifications", token: token)
                let reminders = ((notes.json["notifications"] as? [[String: Any]]) ?? []).filter { $0["kind"] as? String == "itinerary_reminder" }
                #expect(reminders.count == count, "\(notes.text)")
                if let data = reminders.first?["data"] as? [String: Any] {
                    #expect(
                        data["itinerary"] as? String == id && data["title"] as? String == "Paris in spring"
                            && data["start"] as? String == "2027-04-09T22:00:00Z")
                }
            }
        }
    }
}
