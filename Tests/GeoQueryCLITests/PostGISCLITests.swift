import Foundation
import PostgresTestSupport
import ProviderTestSupport
import Testing

/// `geoquery` on PostgreSQL/PostGIS as an operator runs it: imports with snapshot semantics,
/// queries that answer as the SpatiaLite file does, two `serve` processes on one database, a
/// read replica, and a database that does not answer.
@Suite(.serialized, .waitsOnProcesses, .enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
struct PostGISCLITests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let cities = repositoryRoot.appendingPathComponent("geodata/cities15000.csv").path
    static let dataDirectory = repositoryRoot.appendingPathComponent("geodata").path

    static func cluster() throws -> TestCluster { try TestCluster.shared!.get() }

    /// The same dump in a file and in a database answers the same queries with the same places
    /// and distances; a second import changes nothing; a smaller snapshot removes the rest.
    @Test func importsAndAnswersAsTheFileDoes() throws {
        let url = try Self.cluster().createDatabase("cli")
        let directory = try ServeCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cities.sqlite").path
        for db in [url, file] {
            let imported = try CLI.run(["import", Self.cities, "--format", "geonames-csv", "--data-dir", Self.dataDirectory, "--db", db, "--json"])
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.json["added"] as? Int == 34_006 && imported.json["rejected"] as? Int == 0, "\(imported.stdout)")
        }
        let queries: [[String]] = [
            ["near", "--lat", "48.8566", "--lon", "2.3522", "--radius", "20mi", "--limit", "all"],
            ["near", "--lat", "-17.7", "--lon", "179.9", "--radius", "400km", "--limit", "7"],  // across the antimeridian
            ["near", "--lat", "89.9", "--lon", "0", "--radius", "2500km", "--limit", "all"],  // the pole
            ["bbox", "--bbox", "170,-50,-170,-10", "--limit", "all"],
            ["nearest", "--lat", "35.68", "--lon", "139.69", "-k", "25", "--country", "JP"],
            ["near", "--lat", "40.4", "--lon", "-3.7", "--radius", "300km", "--query", "san", "--limit", "all"],
            ["near", "--lat", "0", "--lon", "0", "--radius", "0", "--limit", "all"],
            ["where", "--lat", "48.8584", "--lon", "2.2945", "--limit", "50", "--data-dir", Self.dataDirectory],
            ["where", "--lat", "-16.8", "--lon", "-179.99", "--radius", "500km", "--data-dir", Self.dataDirectory],  // across the antimeridian
        ]
        for query in queries {
            let fromDatabase = try CLI.run(query + ["--db", url, "--format", "csv"])
            let fromFile = try CLI.run(query + ["--db", file, "--format", "csv"])
            #expect(fromDatabase.status == 0 && fromFile.status == 0, "\(fromDatabase.stderr) \(fromFile.stderr)")
            #expect(fromDatabase.stdout == fromFile.stdout, "\(query.joined(separator: " "))")
            let isZeroRadius = query.contains("--radius") && query[query.firstIndex(of: "--radius")! + 1] == "0"
            #expect(fromDatabase.stdout.split(separator: "\n").count > 1 || isZeroRadius, "\(query) found nothing")
        }
        let again = try CLI.run(["import", Self.cities, "--format", "geonames-csv", "--data-dir", Self.dataDirectory, "--db", url, "--json"])
        #expect(
            again.json["unchanged"] as? Int == 34_006 && again.json["added"] as? Int == 0 && again.json["removed"] as? Int == 0,
            "idempotent: \(again.stdout)")

        // A snapshot of the first thousand cities: the rest of the source goes, in one transaction.
        let lines = try String(contentsOfFile: Self.cities, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
        let smaller = directory.appendingPathComponent("smaller.csv").path
        try (lines.prefix(1_001).joined(separator: "\n") + "\n").write(toFile: smaller, atomically: true, encoding: .utf8)
        let shrunk = try CLI.run([
            "import", smaller, "--format", "geonames-csv", "--source", "geonames", "--data-dir", Self.dataDirectory,
            "--db", url, "--json",
        ])
        #expect(shrunk.json["removed"] as? Int == 33_006 && shrunk.json["unchanged"] as? Int == 1_000, "\(shrunk.stdout) \(shrunk.stderr)")
        let stats = try CLI.run(["sources", "--db", url, "--format", "json"])
        #expect(stats.stdout.contains("\"places\" : 1000") || stats.stdout.contains("\"places\": 1000"), "\(stats.stdout)")
    }

    /// A killed import leaves the previous snapshot whole: PostgreSQL rolls the transaction back.
    @Test func aKilledImportChangesNothing() async throws {
        let url = try Self.cluster().createDatabase("kill")
        let first = try CLI.run(["import", Self.cities, "--format", "geonames-csv", "--no-regions", "--db", url, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let directory = try ServeCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A large dump (400 000 rows) of the same source that the kill interrupts.
        let big = directory.appendingPathComponent("big.csv").path
        var text = "geonameid,name,lat,lon\n"
        for n in 0..<400_000 { text += "\(n),Place \(n),\(Double(n % 1_700) / 10 - 85),\(Double(n % 3_600) / 10 - 180)\n" }
        try text.write(toFile: big, atomically: true, encoding: .utf8)
        try await Self.importKilledAfter(seconds: 1.5, big, into: url)
        let count = try Self.cluster().psql(
            database: String(url.split(separator: "/").last!),
            "SELECT count(*) FROM places WHERE source = 'geonames'")
        #expect(count == "34006", "the old snapshot is whole after the kill")

        // A first fill (an empty database, the rows streamed straight into a new table) that the
        // kill interrupts leaves the place table empty once the server has ended the killed
        // session; the next import drops the work tables the killed one left and fills it.
        let empty = try Self.cluster().createDatabase("killfirst")
        let emptyName = String(empty.split(separator: "/").last!)
        try await Self.importKilledAfter(seconds: 1.5, big, into: empty)
        var sessions = ""
        for _ in 0..<100 {
            sessions = try Self.cluster().psql(
                database: emptyName,
                """
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                """)
            if sessions == "0" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(sessions == "0", "the killed import's sessions have ended")
        #expect(
            try Self.cluster().psql(database: emptyName, "SELECT count(*) FROM places") == "0",
            "a killed first fill leaves the table empty")
        let again = try CLI.run(["import", Self.cities, "--format", "geonames-csv", "--no-regions", "--db", empty, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            try Self.cluster().psql(
                database: emptyName,
                """
                SELECT (SELECT count(*) FROM places) || ' ' || (SELECT count(*) FROM pg_class WHERE relname IN ('places_next', 'places_import'))
                """) == "34006 0", "the next import fills the table and leaves nothing beside it")
    }

    /// Starts `geoquery import` of `file` (as the geonames source) into `url` and kills it with
    /// SIGKILL `seconds` after its place table exists.
    static func importKilledAfter(seconds: Double, _ file: String, into url: String) async throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["import", file, "--format", "geonames-csv", "--source", "geonames", "--no-regions", "--db", url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Under a loaded machine the import may take longer than `seconds` to make its schema:
        // the kill is meant for the rows' phase, so the clock starts once the place table exists.
        let name = String(url.split(separator: "/").last!)
        for _ in 0..<600 where process.isRunning {
            let ready = try Self.cluster().psql(database: name, "SELECT to_regclass('places') IS NOT NULL")
            if ready == "t" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .seconds(seconds))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Two servers on one database: a token one issued works on the other, and a gem written
    /// through one is answered by the other.
    @Test func twoServersShareOneDatabase() async throws {
        let url = try Self.cluster().createDatabase("two")
        #expect(try CLI.run(["import", Self.cities, "--format", "geonames-csv", "--no-regions", "--db", url]).status == 0)
        let directory = try ServeCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = ["--db", url, "--data-dir", Self.dataDirectory]
        let first = try await ServeCLITests.Server.start(arguments)
        defer { if first.process.isRunning { first.process.terminate() } }
        let second = try await ServeCLITests.Server.start(arguments)
        defer { if second.process.isRunning { second.process.terminate() } }

        let password = "two servers one database"
        #expect(
            try await first.request("POST", "/v1/users", json: #"{"username":"shared","email":"s@example.org","password":"\#(password)"}"#).0 == 201)
        let (signedIn, session) = try await first.request("POST", "/v1/sessions", json: #"{"username":"shared","password":"\#(password)"}"#)
        let token = try #require(session["token"] as? String)
        #expect(signedIn == 201)
        let (made, gem) = try await second.request(
            "POST", "/v1/gems", token: token,
            json: #"{"name":"Shared view","lat":43.73,"lon":7.42,"visibility":"public"}"#)
        #expect(made == 201, "a token from the first server works on the second: \(gem)")
        let id = try #require(gem["id"] as? String)
        let (found, near) = try await first.request("GET", "/v1/gems/near?lat=43.73&lon=7.42")
        #expect(found == 200 && (near["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
        let (places, paris) = try await second.request("GET", "/v1/places/near?lat=48.8566&lon=2.3522&radius=5km&limit=1")
        #expect(places == 200 && ((paris["places"] as? [[String: Any]])?.first?["name"] as? String)?.hasPrefix("Paris") == true)
        // Another user may not change it, through either server.
        #expect(
            try await second.request("POST", "/v1/users", json: #"{"username":"other","email":"o@example.org","password":"\#(password)"}"#).0 == 201)
        let other = try #require(
            try await second.request("POST", "/v1/sessions", json: #"{"username":"other","password":"\#(password)"}"#).1["token"] as? String)
        #expect(try await first.request("DELETE", "/v1/gems/\(id)", token: other).0 == 403)
        #expect(try await first.request("DELETE", "/v1/gems/\(id)", token: token).0 == 204)
        #expect(try await second.request("GET", "/v1/gems/\(id)").0 == 404)
        let firstStopped = try await first.stop(), secondStopped = try await second.stop()
        #expect(firstStopped && secondStopped)
    }

    /// With a streaming replica: anonymous queries read the replica, a signed-in owner reads the
    /// primary and so sees their gem at once, while the replica (its replay paused) does not yet.
    @Test func aReplicaServesReadsAndOwnersReadTheirWrites() async throws {
        let cluster = try Self.cluster()
        let url = try cluster.createDatabase("replica")
        let name = String(url.split(separator: "/").last!)
        let replicaPort = try cluster.startReplica()
        let replicaURL = "postgres://postgres@127.0.0.1:\(replicaPort)/\(name)"
        let server = try await ServeCLITests.Server.start(["--db", url, "--read-db", replicaURL, "--data-dir", Self.dataDirectory])
        defer { if server.process.isRunning { server.process.terminate() } }
        let password = "read your own writes"
        #expect(
            try await server.request("POST", "/v1/users", json: #"{"username":"owner","email":"w@example.org","password":"\#(password)"}"#).0 == 201)
        let token = try #require(
            try await server.request("POST", "/v1/sessions", json: #"{"username":"owner","password":"\#(password)"}"#).1["token"] as? String)

        // The replica has the schema the server made at start before its replay is paused.
        var replicated = ""
        for _ in 0..<100 where replicated != "gems" {
            replicated = try cluster.psql(database: name, "SELECT coalesce(to_regclass('gems')::text, '')", port: replicaPort)
            if replicated != "gems" { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(replicated == "gems", "the replica streams from the primary")
        try cluster.psql(database: name, "SELECT pg_wal_replay_pause()", port: replicaPort)
        let (made, gem) = try await server.request(
            "POST", "/v1/gems", token: token,
            json: #"{"name":"Lag test","lat":10.5,"lon":20.5,"visibility":"public"}"#)
        #expect(made == 201)
        let id = try #require(gem["id"] as? String)
        func ids(_ token: String?) async throws -> [String] {
            let (status, answer) = try await server.request("GET", "/v1/gems/near?lat=10.5&lon=20.5", token: token)
            #expect(status == 200, "\(answer) \(server.log.value.suffix(1_500))")
            return ((answer["places"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }
        #expect(try await ids(token) == [id], "the owner reads their own write")
        #expect(try await ids(nil) == [], "anonymous reads go to the paused replica")
        // Places and gems together: the owner's gems come from the primary, imported places
        // from the replica still (a place imported now is not seen until the replay resumes).
        let directory = try ServeCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let placeFile = directory.appendingPathComponent("place.csv")
        try "id,name,lat,lon\nwell,Old well,10.5001,20.5001\n".write(to: placeFile, atomically: true, encoding: .utf8)
        let imported = try CLI.run(["import", placeFile.path, "--format", "csv", "--source", "lag", "--db", url])
        #expect(imported.status == 0, "\(imported.stderr)")
        func nearIDs(_ token: String?) async throws -> [String] {
            let (status, answer) = try await server.request("GET", "/v1/places/near?lat=10.5&lon=20.5&radius=1km&limit=5", token: token)
            #expect(status == 200, "\(answer)")
            return ((answer["places"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }
        #expect(try await nearIDs(token) == [id], "the owner's places near: their gem from the primary, the places from the replica")
        try cluster.psql(database: name, "SELECT pg_wal_replay_resume()", port: replicaPort)
        var seen: [String] = []
        for _ in 0..<50 where seen.isEmpty {
            seen = try await ids(nil)
            if seen.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(seen == [id], "the replica catches up")
        for _ in 0..<50 where try await nearIDs(token).count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try await nearIDs(token) == [id, "lag:well"], "the imported place, once replayed")
        #expect(try await server.stop())
    }

    /// A database that does not answer is a clear error, not a hang: exit 69 for queries and
    /// for the service, exit 64 for a URL that names no database.
    @Test func anUnreachableDatabaseIsAClearError() throws {
        let port = try TestCluster.freePort()
        let near = try CLI.run(["near", "--lat", "1", "--lon", "1", "--radius", "1km", "--db", "postgres://postgres@127.0.0.1:\(port)/none"])
        #expect(
            near.status == 69 && near.stderr.contains("the database at postgres://postgres@127.0.0.1:\(port)/none is unavailable"),
            "\(near.stderr)")
        // Said at once, by the first connection, not after the pool's timeout of retries.
        #expect(near.stderr.contains("connection refused): start PostgreSQL, or correct the host and port"), "\(near.stderr)")
        let serve = try CLI.run(["serve", "--port", "0", "--db", "postgres://postgres:secret@127.0.0.1:\(port)/none"])
        #expect(serve.status == 69 && !serve.stderr.contains("secret"), "\(serve.stderr)")
        let bad = try CLI.run(["near", "--lat", "1", "--lon", "1", "--radius", "1km", "--db", "postgres://postgres@127.0.0.1/"])
        #expect(bad.status == 64 && bad.stderr.contains("names no database"), "\(bad.stderr)")
    }
}
