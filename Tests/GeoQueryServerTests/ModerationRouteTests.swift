import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Reports, moderation and blocks, on whichever backend the route suites run on: anyone who can see a
/// gem reports it (not its owner); only moderators read the queue and hide, restore or clear;
/// a hidden gem is private, and its owner cannot publish it again until it is restored.
@Suite(.ownThreads) struct ModerationRouteTests {
    /// Moderation belongs to an account, not a name: a configured name nobody holds grants
    /// nothing to whoever registers it later, and a moderator's deleted account passes nothing
    /// to the next account of the same name.
    @Test func moderatorRightsNeverPassToAnotherAccountOfTheName() async throws {
        let fixture = try await AccountFixture { $0.moderators = ["ghostmod", "realmod"] }
        try await fixture.test { client in
            let moderator = try await client.account("realmod")
            #expect(try await fixture.service.grantModerators() == ["ghostmod"], "the name without an account is reported")
            #expect(try await client.send(.get, "/v1/moderation/reports", token: moderator).status == .ok)
            let squatter = try await client.account("ghostmod")
            let refused = try await client.send(.get, "/v1/moderation/reports", token: squatter)
            #expect(refused.status == .forbidden, "\(refused.text)")
            // The moderator leaves; someone takes the freed name.
            let deleted = try await client.send(.delete, "/v1/me", token: moderator)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            let taker = try await client.account("realmod", password: "another long secret")
            #expect(try await client.send(.get, "/v1/moderation/reports", token: taker).status == .forbidden)
        }
    }

    @Test func reportsReachModeratorsWhoHideAGemItsOwnerCannotPublishAgain() async throws {
        let fixture = try await AccountFixture { $0.moderators = ["mod"] }
        try await fixture.test { client in
            let owner = try await client.account("maker")
            let walker = try await client.account("walker")
            let runner = try await client.account("runner")
            let nosy = try await client.account("nosy")
            let moderator = try await client.account("mod")
            // Rights go to the account the name has when the service resolves it (at start-up).
            #expect(try await fixture.service.grantModerators() == [])
            let (lat, lon) = (GemRouteTests.lat, GemRouteTests.lon)
            let rude = try await client.gem(owner, name: "Rude Rock", lat: lat, lon: lon, visibility: "public")
            let misplaced = try await client.gem(owner, name: "Misplaced Mill", lat: lat + 0.001, lon: lon, visibility: "public")
            let secret = try await client.gem(owner, name: "Secret Spot", lat: lat, lon: lon + 0.001, visibility: "private")
            let near = "/v1/places/near?lat=\(lat)&lon=\(lon)&radius=2km"

            // Reporting: one report per user and gem (a second replaces the first).
            let first = try await client.send(.put, "/v1/gems/\(rude)/report", token: walker, json: #"{"reason":"spam"}"#)
            #expect(first.status == .created && first.json["reason"] as? String == "spam" && first.json["username"] == nil)
            let replaced = try await client.send(.put, "/v1/gems/\(rude)/report", token: walker, json: #"{"reason":"offensive","note":"rude words"}"#)
            #expect(replaced.status == .ok && replaced.json["note"] as? String == "rude words")
            #expect(try await client.send(.put, "/v1/gems/\(rude)/report", token: runner, json: #"{"reason":"offensive"}"#).status == .created)
            #expect(
                try await client.send(.put, "/v1/gems/\(misplaced)/report", token: runner, json: #"{"reason":"wrong_location"}"#).status == .created)
            let own = try await client.send(.put, "/v1/gems/\(rude)/report", token: owner, json: #"{"reason":"spam"}"#)
            #expect(own.status == .forbidden)
            let badReason = try await client.send(.put, "/v1/gems/\(rude)/report", token: walker, json: #"{"reason":"ugly"}"#)
            #expect(
                badReason.status == .badRequest
                    && (badReason.json["detail"] as? String)?.contains("reason 'ugly' is invalid: it must be one of spam, offensive") == true)
            #expect(try await client.send(.put, "/v1/gems/\(secret)/report", token: walker, json: #"{"reason":"spam"}"#).status == .notFound)
            #expect(try await client.send(.put, "/v1/gems/\(rude)/report", json: #"{"reason":"spam"}"#).status == .unauthorized)

            // The queue: moderators only; most reported first, with who reported and why.
            #expect(try await client.send(.get, "/v1/moderation/reports", token: nosy).status == .forbidden)
            #expect(try await client.send(.get, "/v1/moderation/reports").status == .unauthorized)
            let queue = try await client.send(.get, "/v1/moderation/reports", token: moderator)
            #expect(queue.status == .ok)
            let gems = queue.json["gems"] as? [[String: Any]] ?? []
            #expect(gems.compactMap { $0["gem_id"] as? String } == [rude, misplaced])
            #expect(gems.first?["report_count"] as? Int == 2 && (gems.first?["reasons"] as? [String: Int]) == ["offensive": 2])
            let reports = gems.first?["reports"] as? [[String: Any]] ?? []
            #expect(Set(reports.compactMap { $0["username"] as? String }) == ["walker", "runner"])
            #expect(reports.contains { $0["note"] as? String == "rude words" })
            #expect((gems.first?["gem"] as? [String: Any])?["name"] as? String == "Rude Rock")
            // In pages: one gem each, the cursor and Link lead to the next, the last page has none.
            let firstPage = try await client.send(.get, "/v1/moderation/reports?limit=1", token: moderator)
            let cursor = firstPage.json["next_cursor"] as? String
            #expect((firstPage.json["gems"] as? [[String: Any]])?.compactMap { $0["gem_id"] as? String } == [rude])
            #expect(
                cursor != nil && firstPage.headers[PlaceRoutesLink.name]?.contains("cursor=\(cursor ?? "")>; rel=\"next\"") == true,
                "\(firstPage.text)")
            let secondPage = try await client.send(.get, "/v1/moderation/reports?limit=1&cursor=\(cursor ?? "")", token: moderator)
            #expect((secondPage.json["gems"] as? [[String: Any]])?.compactMap { $0["gem_id"] as? String } == [misplaced])
            #expect(secondPage.json["next_cursor"] is NSNull && secondPage.headers[PlaceRoutesLink.name] == nil, "\(secondPage.text)")
            let badCursor = try await client.send(.get, "/v1/moderation/reports?cursor=two_rocks", token: moderator)
            #expect(badCursor.status == .badRequest && (badCursor.json["detail"] as? String)?.contains("cursor 'two_rocks' is invalid") == true)

            // Hiding: not by anyone else; by a moderator, the gem leaves every listing but its owner's.
            #expect(try await client.send(.post, "/v1/moderation/gems/\(rude)/hide", token: nosy, json: #"{"reason":"no"}"#).status == .forbidden)
            #expect(try await client.send(.post, "/v1/moderation/gems/\(rude)/hide", token: owner, json: #"{"reason":"no"}"#).status == .forbidden)
            #expect(try await client.ids(near).contains(rude), "still listed after refused attempts")
            let hidden = try await client.send(
                .post, "/v1/moderation/gems/\(rude)/hide", token: moderator, json: #"{"reason":"Insults in the description"}"#)
            #expect(hidden.status == .ok && hidden.json["hidden"] as? Bool == true && hidden.json["moderator"] as? String == "mod")
            #expect(try await !client.ids(near).contains(rude))
            #expect(try await !client.ids(near, token: walker).contains(rude))
            #expect(try await client.send(.get, "/v1/gems/\(rude)", token: walker).status == .notFound)
            #expect(try await client.ids(near, token: owner).contains(rude), "the owner still has it")
            let notes = try await client.send(.get, "/v1/me/notifications", token: owner).json["notifications"] as? [[String: Any]] ?? []
            let notice = notes.first { $0["kind"] as? String == "gem_hidden" }?["data"] as? [String: Any]
            #expect(notice?["gem"] as? String == rude && notice?["reason"] as? String == "Insults in the description")
            let after = try await client.send(.get, "/v1/moderation/reports", token: moderator).json["gems"] as? [[String: Any]] ?? []
            #expect(after.compactMap { $0["gem_id"] as? String } == [misplaced], "hiding closes the gem's reports")

            // The owner edits it but cannot publish it again.
            let publish = try await client.send(.patch, "/v1/gems/\(rude)", token: owner, json: #"{"visibility":"public"}"#)
            #expect(
                publish.status == .forbidden
                    && (publish.json["detail"] as? String)?.contains("hidden by a moderator (Insults in the description)") == true)
            let renamed = try await client.send(.patch, "/v1/gems/\(rude)", token: owner, json: #"{"name":"Rock"}"#)
            #expect(renamed.status == .ok)
            // The owner's view of the gem says why it is hidden; nobody else's answer has it.
            func moderationNote(_ answer: TestResponse) -> [String: Any]? {
                answer.json["moderation"] as? [String: Any]
            }
            #expect(moderationNote(renamed)?["reason"] as? String == "Insults in the description")
            let ownView = try await client.send(.get, "/v1/gems/\(rude)", token: owner)
            #expect(moderationNote(ownView)?["hidden"] as? Bool == true && moderationNote(ownView)?["hidden_at"] is String, "\(ownView.text)")
            #expect(moderationNote(try await client.send(.get, "/v1/gems/\(misplaced)", token: owner)) == nil, "only a hidden gem has a note")
            let mine = try await client.send(.get, "/v1/me/gems?limit=50", token: owner).json["places"] as? [[String: Any]] ?? []
            let listed = Dictionary(
                uniqueKeysWithValues: mine.compactMap { place in
                    (place["id"] as? String).map { ($0, (place["moderation"] as? [String: Any])?["reason"] as? String ?? "") }
                })
            #expect(listed[rude] == "Insults in the description" && listed[misplaced] == "", "the owner's list marks the hidden gem alone: \(listed)")
            #expect(try await !client.ids(near).contains(rude), "an edit keeps it private")

            // Restored: the owner may publish it again.
            #expect(try await client.send(.post, "/v1/moderation/gems/\(rude)/restore", token: nosy).status == .forbidden)
            #expect(try await client.send(.post, "/v1/moderation/gems/\(rude)/restore", token: moderator).status == .noContent)
            #expect(try await client.send(.post, "/v1/moderation/gems/\(rude)/restore", token: moderator).status == .notFound)
            let republished = try await client.send(.patch, "/v1/gems/\(rude)", token: owner, json: #"{"visibility":"public"}"#)
            #expect(republished.status == .ok && moderationNote(republished) == nil)
            #expect(try await client.ids(near).contains(rude))

            // Dismissed reports leave the queue; a deleted account's reports go with it.
            #expect(try await client.send(.post, "/v1/moderation/gems/\(misplaced)/dismiss", token: nosy).status == .forbidden)
            #expect(try await client.send(.post, "/v1/moderation/gems/\(misplaced)/dismiss", token: moderator).json["dismissed"] as? Int == 1)
            #expect(try await client.send(.put, "/v1/gems/\(misplaced)/report", token: walker, json: #"{"reason":"closed"}"#).status == .created)
            let exported = try await client.send(.get, "/v1/me/export", token: walker).json["reports"] as? [[String: Any]] ?? []
            #expect(
                exported.compactMap { $0["gem_id"] as? String } == [misplaced] && exported.first?["reason"] as? String == "closed",
                "a report is the reporter's data: in their export")
            #expect(try await client.send(.delete, "/v1/me", token: walker).status == .noContent)
            #expect(try await client.send(.get, "/v1/moderation/reports", token: moderator).json["count"] as? Int == 0)
            #expect(
                try await client.send(
                    .post, "/v1/moderation/gems/gem:000000000000000000000000/hide", token: moderator,
                    json: #"{"reason":"x"}"#
                ).status == .notFound)
        }
    }

    /// Blocking: the friendship ends, neither can reach the other again (answered as an unknown
    /// user), only the blocker lifts it, and an account's deletion takes its blocks with it.
    @Test func aBlockEndsTheFriendshipAndKeepsBothApart() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("ann")
            let bob = try await client.account("bob")
            let cat = try await client.account("cat")
            #expect(try await client.send(.post, "/v1/me/friends/ann", token: bob).status == .created)
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: ann).status == .ok, "accepted")
            let (lat, lon) = (GemRouteTests.lat, GemRouteTests.lon)
            let friendsOnly = try await client.gem(bob, name: "For Friends", lat: lat, lon: lon, visibility: "friends")
            let near = "/v1/places/near?lat=\(lat)&lon=\(lon)&radius=2km"
            #expect(try await client.ids(near, token: ann).contains(friendsOnly))

            let blocked = try await client.send(.put, "/v1/me/blocks/bob", token: ann)
            #expect(blocked.status == .created && blocked.json["username"] as? String == "bob")
            #expect(try await client.send(.put, "/v1/me/blocks/bob", token: ann).status == .ok)
            #expect(
                (try await client.send(.get, "/v1/me/blocks", token: ann).json["blocks"] as? [[String: Any]])?.compactMap {
                    $0["username"] as? String
                } == ["bob"])
            for token in [ann, bob] {
                #expect((try await client.send(.get, "/v1/me/friends", token: token).json["friends"] as? [[String: Any]])?.isEmpty == true)
            }
            #expect(try await !client.ids(near, token: ann).contains(friendsOnly), "no longer a friend")

            // Neither reaches the other; someone else still reaches both.
            let ask = try await client.send(.post, "/v1/me/friends/ann", token: bob)
            #expect(ask.status == .notFound && (ask.json["detail"] as? String)?.contains("no user named 'ann'") == true)
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: ann).status == .notFound)
            #expect(
                try await client.send(
                    .post, "/v1/trips", token: bob,
                    json: TripRouteTests.trip(start: "2027-06-12T18:00:00+02:00", end: "2027-06-12T23:00:00+02:00", invitees: ["ann"])
                ).status == .notFound)
            let itinerary = try await client.send(.post, "/v1/itineraries", token: ann, json: PlanRouteTests.itinerary)
            let itineraryID = try #require(itinerary.json["id"] as? String)
            #expect(
                try await client.send(.put, "/v1/itineraries/\(itineraryID)/collaborators/bob", token: ann, json: #"{"role":"viewer"}"#).status
                    == .notFound)
            #expect(
                try await client.send(.put, "/v1/itineraries/\(itineraryID)/collaborators/cat", token: ann, json: #"{"role":"viewer"}"#).status == .ok
            )
            #expect(
                try await client.send(
                    .post, "/v1/trips", token: cat,
                    json: TripRouteTests.trip(start: "2027-06-12T18:00:00+02:00", end: "2027-06-12T23:00:00+02:00", invitees: ["ann", "bob"])
                ).status == .created)

            // Only the blocker lifts it; bad targets are refused.
            #expect(try await client.send(.delete, "/v1/me/blocks/ann", token: bob).status == .notFound)
            #expect(try await client.send(.put, "/v1/me/blocks/ann", token: ann).status == .badRequest)
            #expect(try await client.send(.put, "/v1/me/blocks/nobody", token: ann).status == .notFound)
            #expect(try await client.send(.put, "/v1/me/blocks/bob").status == .unauthorized)
            let exported = try await client.send(.get, "/v1/me/export", token: ann).json["blocks"] as? [[String: Any]] ?? []
            #expect(exported.compactMap { $0["username"] as? String } == ["bob"])
            #expect(try await client.send(.delete, "/v1/me/blocks/bob", token: ann).status == .noContent)
            #expect(try await client.send(.post, "/v1/me/friends/ann", token: bob).status == .created, "strangers again, not friends")

            // An account's deletion takes its blocks with it.
            #expect(try await client.send(.put, "/v1/me/blocks/cat", token: ann).status == .created)
            #expect(try await client.send(.delete, "/v1/me", token: cat).status == .noContent)
            #expect(try await client.send(.get, "/v1/me/blocks", token: ann).json["count"] as? Int == 0)
        }
    }
}
