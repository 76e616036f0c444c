import Accounts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PlaceQuery
import PlaceStore
import PostGISStore
import PostgresTestSupport
import Testing

@testable import GeoQueryServer

/// A service with a user data store of its own (the places are the shared fixture's), and
/// helpers that act as one person would.
///
/// The store is a SQLite file in a temporary directory, or, with
/// `GEOQUERY_TEST_USER_STORE=postgres` (`make test` runs the route suites a second time so), a
/// fresh database on the test cluster: the same routes, the same expectations, both backends.
struct AccountFixture {
    let directory: URL
    let store: any UserDataStore
    let service: GeoQueryService
    private let closePools: @Sendable () async -> Void

    /// Which backend the route suites run on.
    static var usesPostgres: Bool { ProcessInfo.processInfo.environment["GEOQUERY_TEST_USER_STORE"] == "postgres" }

    init(_ adjust: (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if Self.usesPostgres {
            let cluster = try #require(TestCluster.shared, "GEOQUERY_TEST_USER_STORE=postgres needs PostgreSQL installed").get()
            let places = try await PostGISPlaceIndex.open(try cluster.createDatabase("routes"), maximumConnections: 4, timeout: .seconds(60))
            store = PostGISUserStore(sharingPoolsOf: places)
            closePools = { await places.close() }
        } else {
            store = try SQLiteUserStore(path: directory.appendingPathComponent("users.sqlite").path, threads: 2)
            closePools = {}
        }
        let photos = directory.appendingPathComponent("photos").path
        let base = try ServerFixture.service { configuration in
            configuration.photoDirectory = photos
            adjust(&configuration)
        }
        service = GeoQueryService(index: base.index, userData: store, configuration: base.configuration, logger: base.logger)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs `body` against the in-process application (or, with `.live`, the application
    /// serving on a loopback port), then removes the directory.
    func test(_ setup: TestingSetup = .router, _ body: @escaping @Sendable (Client) async throws -> Void) async throws {
        defer { remove() }
        do {
            try await service.makeApplication().test(setup) { client in try await body(Client(client: client)) }
        } catch {
            await closePools()
            throw error
        }
        await closePools()
    }

    /// Runs `body` against two applications on the one store, as two `geoquery serve`
    /// processes on one database are: each its own service (its own edit queue, its own
    /// memory), the store shared. Then removes the directory.
    func testOnTwoServers(_ body: @escaping @Sendable (_ first: Client, _ second: Client) async throws -> Void) async throws {
        let secondServer = GeoQueryService(index: service.index, userData: store, configuration: service.configuration, logger: service.logger)
        try await test { first in
            try await secondServer.makeApplication().test(.router) { client in try await body(first, Client(client: client)) }
        }
    }

    /// A test client with JSON and bearer-token conveniences.
    struct Client: Sendable {
        let client: any TestClientProtocol

        @discardableResult
        func send(
            _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: String? = nil,
            bytes: [UInt8]? = nil, headers extra: HTTPFields = [:]
        ) async throws -> TestResponse {
            var headers = extra
            if let token { headers[.authorization] = "Bearer \(token)" }
            var body: ByteBuffer?
            if let json {
                headers[.contentType] = "application/json"
                body = ByteBuffer(string: json)
            }
            if let bytes { body = ByteBuffer(bytes: bytes) }
            return try await client.execute(uri: uri, method: method, headers: headers, body: body)
        }

        /// Signs up, which answers a session as sign-in does; returns its token.
        func account(_ name: String, password: String = "a long enough secret") async throws -> String {
            let made = try await send(.post, "/v1/users", json: #"{"username":"\#(name)","email":"\#(name)@example.org","password":"\#(password)"}"#)
            #expect(made.status == .created && made.json["token_type"] as? String == "Bearer", "\(made.text)")
            #expect((made.json["user"] as? [String: Any])?["username"] as? String == name.lowercased(), "\(made.text)")
            return made.json["token"] as? String ?? ""
        }

        func signIn(_ login: String, password: String = "a long enough secret") async throws -> String {
            let session = try await send(.post, "/v1/sessions", json: #"{"username":"\#(login)","password":"\#(password)"}"#)
            #expect(session.status == .created, "\(session.text)")
            return session.json["token"] as? String ?? ""
        }

        /// Creates a gem; returns its id.
        func gem(
            _ token: String, name: String, lat: Double, lon: Double, visibility: String,
            extra: String = ""
        ) async throws -> String {
            let made = try await send(
                .post, "/v1/gems", token: token,
                json: """
                    {"name":"\(name)","lat":\(lat),"lon":\(lon),"visibility":"\(visibility)","categories":["landmark.viewpoint"],
                     "description":"quiet at dawn"\(extra)}
                    """)
            #expect(made.status == .created, "\(made.text)")
            #expect(made.headers[.location] == "/v1/gems/\(made.json["id"] as? String ?? "")", "a gem is answered as itself")
            return made.json["id"] as? String ?? ""
        }

        func ids(_ uri: String, token: String? = nil) async throws -> [String] {
            let answer = try await send(.get, uri, token: token)
            #expect(answer.status == .ok, "\(uri): \(answer.text)")
            return ((answer.json["places"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }

        /// Every id of a query, following next_cursor page by page.
        func allPages(_ uri: String, token: String? = nil) async throws -> [String] {
            var ids: [String] = []
            var next: String? = uri
            while let current = next {
                let answer = try await send(.get, current, token: token).json
                ids += ((answer["places"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
                next = (answer["next_cursor"] as? String).map { uri + "&cursor=" + $0 }
            }
            return ids
        }
    }
}

/// What the service stores of an upload (decoded and encoded again by libvips): its bytes, and
/// its id, the SHA-256 of those bytes.
enum StoredPhoto {
    static func bytes(_ upload: [UInt8]) -> [UInt8] { (try? PhotoSanitizer.sanitize(upload).bytes) ?? [] }
    static func id(_ upload: [UInt8]) -> String { SessionToken.sha256Hex(bytes(upload)) }
}
