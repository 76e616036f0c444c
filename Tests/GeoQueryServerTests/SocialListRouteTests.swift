import Accounts
import Foundation
import GeoQueryServer
import HTTPTypes
import HummingbirdTesting
import ProviderTestSupport
import Testing

/// The lists of friends and of blocks come in pages, like every other list.
extension TripRouteTests {
    @Test func friendsAndBlocksComeInPages() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            var tokens: [String: String] = [:]
            for name in ["hub", "ada", "bea", "cal", "dov", "eli", "zed_one", "zed_two", "zed_three"] {
                tokens[name] = try await client.account(name)
            }
            let hub = tokens["hub"]!
            for name in ["ada", "bea", "cal", "dov"] {
                #expect(try await client.send(.post, "/v1/me/friends/\(name)", token: hub).status == .created)
            }
            for name in ["ada", "bea", "cal"] {
                #expect(try await client.send(.post, "/v1/me/friends/hub", token: tokens[name]).status == .ok, "\(name) accepts")
            }
            #expect(try await client.send(.post, "/v1/me/friends/hub", token: tokens["eli"]).status == .created)

            // Pages of two, by username, each once, with a Link to the next.
            var seen: [String] = []
            var uri = "/v1/me/friends?limit=2"
            for page in 1...3 {
                let answer = try await client.send(.get, uri, token: hub)
                #expect(answer.status == .ok, "\(answer.text)")
                let friends = answer.json["friends"] as? [[String: Any]] ?? []
                #expect(friends.count == (page < 3 ? 2 : 1) && answer.json["count"] as? Int == friends.count)
                seen += friends.compactMap { "\($0["username"] ?? ""):\($0["state"] ?? "")" }
                guard let cursor = answer.json["next_cursor"] as? String else {
                    #expect(page == 3 && answer.headers[HTTPField.Name("Link")!] == nil)
                    break
                }
                #expect(answer.headers[HTTPField.Name("Link")!]?.contains("cursor=\(cursor)") == true)
                uri = "/v1/me/friends?limit=2&cursor=\(cursor)"
            }
            #expect(seen == ["ada:accepted", "bea:accepted", "cal:accepted", "dov:requested", "eli:incoming"], "\(seen)")
            func names(_ query: String) async throws -> [String] {
                let answer = try await client.send(.get, "/v1/me/friends?\(query)", token: hub)
                #expect(answer.status == .ok, "\(answer.text)")
                return (answer.json["friends"] as? [[String: Any]] ?? []).compactMap { $0["username"] as? String }
            }
            #expect(try await names("state=incoming") == ["eli"], "the requests waiting for an answer")
            #expect(try await names("state=accepted,requested") == ["ada", "bea", "cal", "dov"])
            // One cursor format: opaque, and good only for the query that issued it.
            let accepted = try await client.send(.get, "/v1/me/friends?state=accepted&limit=2", token: hub)
            let acceptedCursor = try #require(accepted.json["next_cursor"] as? String, "\(accepted.text)")
            #expect(accepted.json["count"] as? Int == 2 && accepted.json["total"] as? Int == 3, "the total of the list, not of the page")
            #expect(!acceptedCursor.contains("bea"), "opaque: \(acceptedCursor)")
            #expect(try await names("state=accepted&limit=5&cursor=\(acceptedCursor)") == ["cal"], "the page size may change")
            for other in ["/v1/me/friends?state=incoming&cursor=", "/v1/me/blocks?cursor=", "/v1/me/photos?cursor="] {
                let refused = try await client.send(.get, other + acceptedCursor, token: hub)
                #expect(
                    refused.status == .badRequest
                        && (refused.json["detail"] as? String)?.contains("cursor '\(acceptedCursor)' is invalid: it belongs to a different query")
                            == true,
                    "\(other): \(refused.text)")
            }
            #expect(
                try await client.send(.get, "/v1/me/friends?state=accepted&cursor=bea", token: hub).status == .badRequest, "a username is no cursor")
            let badState = try await client.send(.get, "/v1/me/friends?state=pending", token: hub)
            #expect(badState.status == .badRequest && (badState.json["detail"] as? String)?.contains("state 'pending' is invalid") == true)
            #expect(try await client.send(.get, "/v1/me/friends?cursor=No%20Such", token: hub).status == .badRequest)
            // Another account's list is its own.
            #expect(try await client.send(.get, "/v1/me/friends", token: tokens["eli"]).json["count"] as? Int == 1)

            // Blocks: newest first, in pages.
            for name in ["zed_one", "zed_two", "zed_three"] {
                #expect(try await client.send(.put, "/v1/me/blocks/\(name)", token: hub).status == .created)
                try await Task.sleep(for: .milliseconds(5))
            }
            let first = try await client.send(.get, "/v1/me/blocks?limit=2", token: hub)
            let firstNames = (first.json["blocks"] as? [[String: Any]] ?? []).compactMap { $0["username"] as? String }
            #expect(firstNames == ["zed_three", "zed_two"] && first.json["total"] as? Int == 3, "\(first.text)")
            let cursor = try #require(first.json["next_cursor"] as? String)
            let second = try await client.send(
                .get, "/v1/me/blocks?limit=2&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", token: hub)
            #expect((second.json["blocks"] as? [[String: Any]] ?? []).compactMap { $0["username"] as? String } == ["zed_one"])
            #expect(second.json["next_cursor"] is NSNull || second.json["next_cursor"] == nil)
            #expect(try await client.send(.get, "/v1/me/blocks?cursor=zed", token: hub).status == .badRequest)
        }
    }
}

/// The deployment's most friends per account: an acceptance past it is refused, naming who is full.
extension TripRouteTests {
    @Test func anAcceptancePastTheFriendLimitIsRefused() async throws {
        let fixture = try await AccountFixture { $0.friendsPerAccount = 1 }
        try await fixture.test { client in
            let hub = try await client.account("popular")
            let ada = try await client.account("first_friend")
            let bea = try await client.account("second_friend")
            #expect(try await client.send(.post, "/v1/me/friends/first_friend", token: hub).status == .created)
            #expect(try await client.send(.post, "/v1/me/friends/popular", token: ada).status == .ok)
            #expect(try await client.send(.post, "/v1/me/friends/second_friend", token: hub).status == .created, "asking needs no room")
            let full = try await client.send(.post, "/v1/me/friends/popular", token: bea)
            #expect(full.status == .conflict, "\(full.text)")
            #expect((full.json["detail"] as? String)?.hasPrefix("popular has 1 friend, the most an account may have") == true, "\(full.text)")
            let waiting = try await client.send(.get, "/v1/me/friends?state=incoming", token: bea).json["friends"] as? [[String: Any]]
            #expect(waiting?.compactMap { $0["username"] as? String } == ["popular"], "the request still waits")
            // Room made, the same acceptance goes through.
            #expect(try await client.send(.delete, "/v1/me/friends/first_friend", token: hub).status == .noContent)
            #expect(try await client.send(.post, "/v1/me/friends/popular", token: bea).status == .ok)
        }
    }
}

/// Changes to one account at once, from several devices (the password among them), each keep
/// what the others wrote.
extension AccountRouteTests {
    @Test func profileChangesAtOnceAllLand() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let token = try await client.account("many_devices")
            let other = try await client.account("bystander")
            let changes = [
                #"{"display_name":"Many Devices"}"#, #"{"bio":"walks a lot"}"#, #"{"language":"pt-BR"}"#,
                #"{"units":"imperial"}"#, #"{"home_location":{"lat":38.72,"lon":-9.14}}"#,
            ]
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for change in changes {
                    group.addTask { Int(try await client.send(.patch, "/v1/me", token: token, json: change).status.code) }
                }
                group.addTask { Int(try await client.send(.put, "/v1/me/avatar", token: token, bytes: TestImages.png(grey: 77)).status.code) }
                group.addTask {
                    let change = #"{"password":"another long secret","current_password":"a long enough secret"}"#
                    return Int(try await client.send(.patch, "/v1/me", token: token, json: change).status.code)
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 200, 200, 200, 200, 200, 200], "\(statuses)")
            // The new password is the one, and the session that changed it goes on.
            let signIn = { (password: String) in
                try await client.send(.post, "/v1/sessions", json: #"{"username":"many_devices","password":"\#(password)"}"#).status
            }
            #expect(try await signIn("another long secret") == .created)
            #expect(try await signIn("a long enough secret") == .unauthorized)
            let me = try await client.send(.get, "/v1/me", token: token).json
            let text = String(describing: me)
            #expect(me["display_name"] as? String == "Many Devices" && me["bio"] as? String == "walks a lot", "\(text)")
            #expect(me["avatar_url"] as? String == "http://localhost/v1/photos/\(StoredPhoto.id(TestImages.png(grey: 77)))", "\(text)")
            #expect(text.contains("pt-BR") && text.contains("imperial") && text.contains("38.72"), "every setting stays: \(text)")
            // Nothing of it reached another account.
            let theirs = try await client.send(.get, "/v1/me", token: other).json
            #expect(theirs["display_name"] is NSNull || theirs["display_name"] == nil)
        }
    }
}
