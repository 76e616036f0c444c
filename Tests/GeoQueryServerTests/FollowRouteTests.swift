import Foundation
import GeoQueryServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Following accounts over the API: no acceptance, the followed told once, lists in pages,
/// blocks that end follows and hide each from the other, and nobody acting for another.
extension TripRouteTests {
    @Test func followingNeedsNoAcceptanceAndTellsTheFollowedOnce() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("ann")
            let bob = try await client.account("bob")
            let eve = try await client.account("eve")
            let first = try await client.send(.put, "/v1/me/following/Bob", token: ann)
            #expect(first.status == .created && first.json["username"] as? String == "bob" && first.json["followed_at"] is String, "\(first.text)")
            let again = try await client.send(.put, "/v1/me/following/bob", token: ann)
            #expect(again.status == .ok && again.json["followed_at"] as? String == first.json["followed_at"] as? String, "the first follow stays")
            #expect(try await client.send(.delete, "/v1/me/following/bob", token: ann).status == .noContent)
            #expect(try await client.send(.put, "/v1/me/following/bob", token: ann).status == .created)
            let notes = try await client.send(.get, "/v1/me/notifications", token: bob)
            let kinds = (notes.json["notifications"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "")" }
            #expect(kinds == ["new_follower"], "told once, however often ann follows: \(notes.text)")

            let following = try await client.send(.get, "/v1/me/following", token: ann)
            #expect(following.json["total"] as? Int == 1 && (following.json["following"] as? [[String: Any]])?.first?["username"] as? String == "bob")
            #expect(following.headers[.cacheControl] == "no-store", "a signed-in list is personal")
            let exported = try await client.send(.get, "/v1/me/export", token: ann).json["following"] as? [[String: Any]] ?? []
            #expect(exported.compactMap { $0["username"] as? String } == ["bob"], "the export holds whom one follows")
            let followers = try await client.send(.get, "/v1/users/bob/followers")
            #expect(followers.status == .ok && (followers.json["followers"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["ann"])
            #expect(try await client.send(.get, "/v1/users/nobody/followers").status == .notFound)
            let profile = try await client.send(.get, "/v1/users/ann")
            #expect(profile.json["following_count"] as? Int == 1 && profile.json["followers_count"] as? Int == 0, "\(profile.text)")
            #expect(try await client.send(.get, "/v1/users/bob").json["followers_count"] as? Int == 1)

            // Nobody follows or unfollows for another, or themselves, or without signing in.
            #expect(try await client.send(.put, "/v1/me/following/bob").status == .unauthorized)
            #expect(try await client.send(.delete, "/v1/me/following/bob", token: eve).status == .notFound, "eve follows no one")
            #expect(try await client.send(.put, "/v1/me/following/eve", token: eve).status == .badRequest)
            #expect(try await client.send(.put, "/v1/me/following/nobody", token: eve).status == .notFound)
            #expect(try await client.send(.get, "/v1/users/bob/followers").json["total"] as? Int == 1, "ann's follow stands")

            // A block ends the follow, and each is unknown to the other.
            #expect(try await client.send(.put, "/v1/me/blocks/ann", token: bob).status == .created)
            #expect(try await client.send(.get, "/v1/me/following", token: ann).json["total"] as? Int == 0)
            #expect(try await client.send(.put, "/v1/me/following/bob", token: ann).status == .notFound)
            #expect(try await client.send(.get, "/v1/users/bob/followers", token: ann).status == .notFound)
            #expect(try await client.send(.get, "/v1/users/bob", token: ann).status == .notFound, "the blocker is unknown to the blocked")
            #expect(try await client.send(.get, "/v1/users/ann", token: bob).status == .notFound, "and the other way round")
            #expect(try await client.send(.get, "/v1/users/bob").status == .ok, "anonymous readers still see the profile")
            #expect(try await client.send(.get, "/v1/users/bob/followers", token: eve).json["total"] as? Int == 0)
        }
    }

    @Test func followersComeInPagesNewestFirst() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let star = try await client.account("star")
            var order: [String] = []
            for number in 0..<5 {
                let name = "fan\(number)"
                let token = try await client.account(name)
                #expect(try await client.send(.put, "/v1/me/following/star", token: token).status == .created)
                order.insert(name, at: 0)
                try await Task.sleep(for: .milliseconds(5))
            }
            var seen: [String] = []
            var uri = "/v1/users/star/followers?limit=2"
            for _ in 0..<4 {
                let page = try await client.send(.get, uri, token: star)
                #expect(page.status == .ok && page.json["total"] as? Int == 5, "\(page.text)")
                seen += (page.json["followers"] as? [[String: Any]] ?? []).compactMap { $0["username"] as? String }
                guard let cursor = page.json["next_cursor"] as? String else { break }
                #expect(page.headers[HTTPField.Name("Link")!]?.contains(cursor) == true)
                uri = "/v1/users/star/followers?limit=2&cursor=\(cursor)"
                let elsewhere = try await client.send(.get, "/v1/me/following?cursor=\(cursor)", token: star)
                #expect(elsewhere.status == .badRequest, "a cursor of another list is refused: \(elsewhere.text)")
            }
            #expect(seen == order, "every follower once, newest first: \(seen)")
        }
    }
}
