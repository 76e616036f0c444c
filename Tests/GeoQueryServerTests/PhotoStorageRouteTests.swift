import Accounts
import Foundation
import GeoQueryServer
import HTTPTypes
import PlaceQuery
import ProviderTestSupport
import Testing

/// Whose storage a shared photo counts against, the pages of `GET /v1/me/photos`, and the sweep
/// of photos an upload stored but never attached.
extension PhotoRouteTests {
    @Test func aPhotoCountsAgainstWhoStillShowsItAndTheListIsPaged() async throws {
        let size = StoredPhoto.bytes(TestImages.png(grey: 10)).count
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let first = try await client.account("first_uploader")
            let second = try await client.account("second_shower")
            func used(_ token: String) async throws -> Int? {
                (try await client.send(.get, "/v1/me", token: token).json["photo_storage"] as? [String: Any])?["used_bytes"] as? Int
            }
            let theirs = try await client.gem(first, name: "First View", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "public")
            let mine = try await client.gem(second, name: "Same View", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "public")
            #expect(try await client.send(.post, "/v1/gems/\(theirs)/photos", token: first, bytes: TestImages.png(grey: 10)).status == .created)
            #expect(try await client.send(.post, "/v1/gems/\(mine)/photos", token: second, bytes: TestImages.png(grey: 10)).status == .created)
            #expect(try await used(first) == size, "the first uploader pays")
            #expect(try await used(second) == 0, "the second shows it for free")

            // Another account tries to take the photo off the first uploader's gem: refused, nothing moves.
            let shared = StoredPhoto.id(TestImages.png(grey: 10))
            #expect(try await client.send(.delete, "/v1/gems/\(theirs)/photos/\(shared)", token: second).status == .forbidden)
            #expect(try await used(first) == size)
            #expect(try await used(second) == 0)

            // The first uploader deletes their gem: the photo stays for the gem that still shows
            // it, and from now on counts against its owner, who can take it off.
            #expect(try await client.send(.delete, "/v1/gems/\(theirs)", token: first).status == .noContent)
            #expect(try await client.send(.get, "/v1/photos/\(shared)").status == .ok)
            #expect(try await used(first) == 0, "the photo's bytes follow who shows it")
            #expect(try await used(second) == size, "the photo's bytes follow who shows it")
            let listed = try await client.send(.get, "/v1/me/photos", token: second).json["photos"] as? [[String: Any]] ?? []
            #expect(listed.map { $0["id"] as? String } == [shared])
            #expect(try await client.send(.delete, "/v1/gems/\(mine)/photos/\(shared)", token: second).status == .noContent)
            #expect(try await used(second) == 0)
            #expect(try await client.send(.get, "/v1/photos/\(shared)").status == .notFound)

            // Pages of the list: newest first, each photo once, a Link to the next page.
            for grey in stride(from: 20, through: 60, by: 10) {
                #expect(
                    try await client.send(.post, "/v1/gems/\(mine)/photos", token: second, bytes: TestImages.png(grey: UInt8(grey))).status
                        == .created)
                try await Task.sleep(for: .milliseconds(5))
            }
            var seen: [String] = []
            var uri = "/v1/me/photos?limit=2"
            for page in 1...3 {
                let answer = try await client.send(.get, uri, token: second)
                #expect(answer.status == .ok, "\(answer.text)")
                #expect(
                    answer.json["photo_storage"].flatMap { ($0 as? [String: Any])?["used_bytes"] as? Int } == 5 * size,
                    "all photos count, not the page's")
                let photos = answer.json["photos"] as? [[String: Any]] ?? []
                #expect(photos.count == (page < 3 ? 2 : 1) && answer.json["count"] as? Int == photos.count)
                seen += photos.compactMap { $0["id"] as? String }
                guard let cursor = answer.json["next_cursor"] as? String else {
                    #expect(page == 3 && answer.headers[PlaceRoutesLink.name] == nil)
                    break
                }
                let link = try #require(answer.headers[PlaceRoutesLink.name])
                #expect(link.hasPrefix("</v1/me/photos?") && link.contains("limit=2") && link.hasSuffix(">; rel=\"next\""), "\(link)")
                uri = "/v1/me/photos?limit=2&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)"
            }
            #expect(
                seen == stride(from: 60, through: 20, by: -10).map { StoredPhoto.id(TestImages.png(grey: UInt8($0))) },
                "newest first, each once: \(seen.map { $0.prefix(8) })")
            let bad = try await client.send(.get, "/v1/me/photos?cursor=yesterday", token: second)
            #expect(bad.status == .badRequest && (bad.json["detail"] as? String)?.contains("cursor 'yesterday' is invalid") == true, "\(bad.text)")
            #expect(try await client.send(.get, "/v1/me/photos?limit=0", token: second).status == .badRequest)
        }
    }

    /// An upload that stored a photo and stopped before attaching it (a killed process) leaves
    /// a photo nothing uses: the sweep removes it and its file once it is an hour old, and
    /// leaves young and used photos alone.
    @Test func theSweepRemovesPhotosNoUploadAttached() async throws {
        let fixture = try await AccountFixture()
        let directory = fixture.directory
        try await fixture.test { client in
            let token = try await client.account("half_uploader")
            #expect(try await client.send(.put, "/v1/me/avatar", token: token, bytes: TestImages.png(grey: 70)).status == .ok)
            let now = Date()
            var files: [String: String] = [:]
            for (grey, age) in [(80, 7_200.0), (90, 60.0)] {
                let bytes = StoredPhoto.bytes(TestImages.png(grey: UInt8(grey)))  // as an upload stores it
                let id = SessionToken.sha256Hex(bytes)
                files[id] = directory.appendingPathComponent("photos/\(id.prefix(2))/\(id)").path
                try FileManager.default.createDirectory(atPath: (files[id]! as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(bytes).write(to: URL(fileURLWithPath: files[id]!))
                try await fixture.store.savePhoto(
                    PhotoRecord(
                        id: id, contentType: "image/png", byteCount: bytes.count, owner: "half_uploader",
                        createdAt: now.addingTimeInterval(-age)))
            }
            let old = StoredPhoto.id(TestImages.png(grey: 80)), young = StoredPhoto.id(TestImages.png(grey: 90))
            let avatar = StoredPhoto.id(TestImages.png(grey: 70))
            #expect(try await fixture.service.removeAbandonedPhotos(now: now) == 1)
            #expect(try await fixture.store.photo(id: old) == nil)
            #expect(!FileManager.default.fileExists(atPath: files[old]!))
            #expect(try await fixture.store.photo(id: young) != nil)
            #expect(FileManager.default.fileExists(atPath: files[young]!))
            #expect(try await client.send(.get, "/v1/photos/\(avatar)").status == .ok, "the avatar is used: it stays")
            // The young one uploaded again and attached: it is kept for good.
            #expect(try await client.send(.put, "/v1/me/avatar", token: token, bytes: TestImages.png(grey: 90)).status == .ok)
            #expect(try await client.send(.get, "/v1/photos/\(avatar)").status == .notFound, "the replaced avatar went at once")
            #expect(try await fixture.service.removeAbandonedPhotos(now: now.addingTimeInterval(86_400)) == 0, "nothing is left to sweep")
            #expect(try await client.send(.get, "/v1/photos/\(young)").status == .ok)
        }
    }
}

/// The `Link` header's name, as the paged routes send it.
enum PlaceRoutesLink {
    static let name = HTTPField.Name("Link")!
}
