import Accounts
import Foundation
import GeoQueryServer
import HTTPTypes
import HummingbirdTesting
import ProviderTestSupport
import Testing

/// Edits that lose nothing: the `ETag` of a gem, `If-Match` on its edits, and edits at once.
extension GemRouteTests {
    @Test func anEditWithAStaleIfMatchIsRefusedAndChangesNothing() async throws {
        let fixture = try await AccountFixture()
        let directory = fixture.directory
        try await fixture.test { client in
            let owner = try await client.account("two_devices")
            let other = try await client.account("onlooker")
            let gem = try await client.gem(owner, name: "Tide Pools", lat: Self.lat, lon: Self.lon, visibility: "public")
            func read() async throws -> (etag: String?, name: String?, photos: Int) {
                let answer = try await client.send(.get, "/v1/gems/\(gem)", token: owner)
                let place: [String: Any]? = answer.json
                return (answer.headers[.eTag], place?["name"] as? String, (place?["photos"] as? [Any])?.count ?? 0)
            }
            func patch(_ json: String, ifMatch: String?, token: String? = nil) async throws -> TestResponse {
                try await client.send(
                    .patch, "/v1/gems/\(gem)", token: token ?? owner, json: json,
                    headers: ifMatch.map { [.ifMatch: $0] } ?? [:])
            }
            let first = try await read()
            let tag = try #require(first.etag)
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count > 2, "\(tag)")
            #expect(try await client.send(.get, "/v1/gems/\(gem)").headers[.eTag] == tag, "anyone who sees the gem reads its version")

            // The phone edits from the version it read: accepted, and the version moves.
            let phone = try await patch(#"{"name":"Tide Pools at Low Water"}"#, ifMatch: tag)
            #expect(phone.status == .ok, "\(phone.text)")
            let second = try #require(phone.headers[.eTag])
            #expect(second != tag)
            #expect(try await read().etag == second)

            // The laptop edits from the old version: 412, nothing written.
            let laptop = try await patch(#"{"name":"Tidepools"}"#, ifMatch: tag)
            #expect(laptop.status == .preconditionFailed, "\(laptop.text)")
            let detail = laptop.json["detail"] as? String ?? ""
            #expect(detail.contains("gem \(gem) changed since the version you read") && detail.contains(second), "\(detail)")
            #expect(try await read().name == "Tide Pools at Low Water")
            // Several tags, one of them current, match; `*` matches any version; no quotes is a bad request.
            #expect(try await patch(#"{"description":"at dawn"}"#, ifMatch: "\(tag), \(second)").status == .ok)
            #expect(try await patch(#"{"description":"at dusk"}"#, ifMatch: "*").status == .ok)
            let unquoted = try await patch(#"{"description":"x"}"#, ifMatch: "12345")
            #expect(unquoted.status == .badRequest && (unquoted.json["detail"] as? String)?.contains("If-Match '12345' is invalid") == true)

            // Another account with the current version: still not theirs.
            let latest = try await read()
            let current = try #require(latest.etag)
            #expect(try await patch(#"{"name":"Mine now"}"#, ifMatch: current, token: other).status == .forbidden)
            let untouched = try await read()
            #expect(untouched.name == "Tide Pools at Low Water" && untouched.etag == current)

            // A photo added over an old version: 412, no photo on the gem and none kept.
            let photo = try await client.send(
                .post, "/v1/gems/\(gem)/photos", token: owner, bytes: TestImages.png(grey: 33),
                headers: [.ifMatch: tag])
            #expect(photo.status == .preconditionFailed, "\(photo.text)")
            let id = StoredPhoto.id(TestImages.png(grey: 33))
            #expect(try await read().photos == 0)
            #expect(try await client.send(.get, "/v1/photos/\(id)").status == .notFound)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("photos/\(id.prefix(2))/\(id)").path))
            #expect(
                try await client.send(
                    .post, "/v1/gems/\(gem)/photos", token: owner, bytes: TestImages.png(grey: 33),
                    headers: [.ifMatch: current]
                ).status == .created)
        }
    }

    /// Without `If-Match`, edits at once each go over the version they read (this process's
    /// edits of one gem wait their turn; another process's make an edit go round again): every
    /// photo added at once is on the gem, and two edits of different fields both stay. Twenty
    /// edits at once, which once ran out of attempts on a slow machine.
    @Test func editsOfOneGemAtOnceAllLand() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("busy_owner")
            let gem = try await client.gem(owner, name: "Market Hall", lat: Self.lat, lon: Self.lon, visibility: "public")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for grey in 40..<58 {
                    group.addTask {
                        try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: TestImages.png(grey: UInt8(grey))).status
                    }
                }
                group.addTask { try await client.send(.patch, "/v1/gems/\(gem)", token: owner, json: #"{"description":"fish on Fridays"}"#).status }
                group.addTask { try await client.send(.patch, "/v1/gems/\(gem)", token: owner, json: #"{"tags":{"roof":"covered"}}"#).status }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 18 && statuses.filter { $0 == .ok }.count == 2, "\(statuses.map(\.code))")
            let place: [String: Any]? = try await client.send(.get, "/v1/gems/\(gem)", token: owner).json
            let urls = Set((place?["photos"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
            #expect(
                urls == Set((40..<58).map { StoredPhoto.id(TestImages.png(grey: UInt8($0))) }),
                "all 18 photos are on the gem, got \(urls.count)")
            #expect((place?["gem"] as? [String: Any])?["description"] as? String == "fish on Fridays", "\(String(describing: place?["gem"]))")
            #expect((place?["tags"] as? [String: String]) == ["roof": "covered"], "\(String(describing: place?["tags"]))")
        }
    }

    /// Two servers on one store (two processes on one PostgreSQL): each server's edits of a gem
    /// wait their turn, and an edit that lost to the other server reads the gem again and
    /// goes again, so every photo and both field changes stay.
    @Test func editsOfOneGemFromTwoServersAllLand() async throws {
        let fixture = try await AccountFixture()
        try await fixture.testOnTwoServers { first, second in
            let owner = try await first.account("two_desks")
            let gem = try await first.gem(owner, name: "Ferry Steps", lat: Self.lat, lon: Self.lon, visibility: "public")
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for grey in 60..<76 {
                    let server = grey.isMultiple(of: 2) ? first : second
                    group.addTask {
                        try await server.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: TestImages.png(grey: UInt8(grey))).status
                    }
                }
                group.addTask {
                    try await first.send(.patch, "/v1/gems/\(gem)", token: owner, json: #"{"description":"steps down to the water"}"#).status
                }
                group.addTask { try await second.send(.patch, "/v1/gems/\(gem)", token: owner, json: #"{"tags":{"step":"worn"}}"#).status }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 16 && statuses.filter { $0 == .ok }.count == 2, "\(statuses.map(\.code))")
            for server in [first, second] {
                let place: [String: Any]? = try await server.send(.get, "/v1/gems/\(gem)", token: owner).json
                let urls = Set((place?["photos"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
                #expect(
                    urls == Set((60..<76).map { StoredPhoto.id(TestImages.png(grey: UInt8($0))) }),
                    "all 16 photos are on the gem, got \(urls.count)")
                #expect((place?["gem"] as? [String: Any])?["description"] as? String == "steps down to the water")
                #expect((place?["tags"] as? [String: String]) == ["step": "worn"], "\(String(describing: place?["tags"]))")
            }
        }
    }
}
