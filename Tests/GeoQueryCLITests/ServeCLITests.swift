import Foundation
import PlaceQuery
import PlaceStore
import ProviderTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `geoquery serve` as an operator runs it: it says where it listens, answers, logs requests
/// without their query strings, and stops cleanly on SIGTERM.
@Suite(.waitsOnProcesses) struct ServeCLITests {
    /// Output collected from a pipe on a thread of its own.
    final class Collector: @unchecked Sendable {
        // @unchecked Sendable: `text` is touched only under `lock`.
        private let lock = NSLock()
        private var text = ""
        func append(_ data: Data) { lock.withLock { text += String(decoding: data, as: UTF8.self) } }
        var value: String { lock.withLock { text } }
    }

    /// A running `geoquery serve`: its process, its port and what it wrote to stderr.
    struct Server {
        let process: Process
        let port: Int
        let log: Collector

        static func start(_ arguments: [String]) async throws -> Server {
            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = ["serve", "--port", "0"] + arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let collected = Collector()
            errors.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
            try process.run()
            var port: Int?
            // Up to two minutes: a start loads the country boundaries and opens the stores while
            // every other suite competes for the same two cores.
            let deadline = ContinuousClock.now + .seconds(120)
            while port == nil && ContinuousClock.now < deadline && process.isRunning {
                try await Task.sleep(for: .milliseconds(100))
                if let range = collected.value.range(of: #"on http://127\.0\.0\.1:(\d+)/ "#, options: .regularExpression) {
                    port = Int(collected.value[range].dropFirst("on http://127.0.0.1:".count).prefix { $0.isNumber })
                }
            }
            guard let port else {
                process.terminate()
                throw CocoaError(
                    .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no 'serving … on http://127.0.0.1:PORT/' line: \(collected.value)"])
            }
            return Server(process: process, port: port, log: collected)
        }

        /// SIGTERM, then waits up to 10 s; true when it stopped with status 0.
        func stop() async throws -> Bool {
            kill(process.processIdentifier, SIGTERM)
            for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
            if process.isRunning {
                process.terminate()
                return false
            }
            return process.terminationStatus == 0
        }

        func request(_ method: String, _ path: String, token: String? = nil, json: String? = nil) async throws -> (Int, [String: Any]) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = method
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            if let json {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data(json.utf8)
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
        }
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func servesAndStopsGracefullyOnSIGTERM() async throws {
        let fixture = try CLITests.fixture.get()
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await Server.start([
            "--db", fixture.db, "--users-db", directory.appendingPathComponent("users.sqlite").path,
            "--cors-origins", "HTTPS://App.Example.com",
        ])
        defer { if server.process.isRunning { server.process.terminate() } }
        #expect(server.log.value.contains("/openapi.json (API description)"))
        // A second service on the same port says so in one sentence, with no housekeeping noise.
        let taken = try CLI.run([
            "serve", "--port", String(server.port), "--db", fixture.db, "--users-db", directory.appendingPathComponent("other.sqlite").path,
        ])
        #expect(
            taken.status == 69
                && taken.stderr.contains("port \(server.port) on 127.0.0.1 is in use by another program: stop it, or give another --port")
                && !taken.stderr.contains("CancellationError"), "\(taken.stderr)")

        var fromApp = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/healthz")!)
        fromApp.setValue("https://app.example.com", forHTTPHeaderField: "Origin")
        let (_, cors) = try await URLSession.shared.data(for: fromApp)
        #expect(
            (cors as? HTTPURLResponse)?.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == "https://app.example.com",
            "--cors-origins lets that page read the answers")

        let (status, json) = try await server.request("GET", "/v1/places/near?lat=48.8584&lon=2.2945&radius=5km&limit=2")
        #expect(status == 200 && json["count"] as? Int == 2)

        #expect(try await server.stop(), "SIGTERM stops the service")
        let log = server.log.value
        #expect(log.contains("path=/v1/places/near") && log.contains("status=200"), "an access log line per request: \(log)")
        #expect(!log.contains("lat=48.8584"), "query strings are not logged")
    }

    /// Accounts, sessions and gems outlive the process: a token issued before a restart still
    /// opens the account after it, and the gem is still there. Nothing secret reaches the log.
    @Test func sessionsAndGemsSurviveARestart() async throws {
        let fixture = try CLITests.fixture.get()
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = ["--db", fixture.db, "--users-db", directory.appendingPathComponent("users.sqlite").path]
        let first = try await Server.start(arguments)
        let password = "correct horse battery"
        #expect(
            try await first.request("POST", "/v1/users", json: #"{"username":"restart","email":"r@example.org","password":"\#(password)"}"#).0 == 201)
        let (signedIn, session) = try await first.request("POST", "/v1/sessions", json: #"{"username":"restart","password":"\#(password)"}"#)
        let token = try #require(session["token"] as? String)
        #expect(signedIn == 201)
        let (made, gem) = try await first.request(
            "POST", "/v1/gems", token: token,
            json: #"{"name":"Survivor","lat":43.73,"lon":7.42,"visibility":"public"}"#)
        #expect(made == 201)
        let id = try #require(gem["id"] as? String)
        #expect(try await first.stop())
        // The service made the file for its owner alone; one others can read gets a warning.
        let usersFile = directory.appendingPathComponent("users.sqlite").path
        #expect(try FileManager.default.attributesOfItem(atPath: usersFile)[.posixPermissions] as? Int == 0o600)
        #expect(!first.log.value.contains("chmod"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: usersFile)
        // A session that expired while the service was down: the next start sweeps it out.
        let offline = try SQLiteUserStore(path: usersFile, threads: 1)
        try await offline.createSession(
            SessionRecord(
                tokenHash: String(repeating: "0", count: 64), username: "restart",
                createdAt: Date(timeIntervalSinceNow: -90 * 86_400),
                expiresAt: Date(timeIntervalSinceNow: -60 * 86_400)))
        // And a photo an upload stored but never attached before the service stopped.
        let abandoned = String(repeating: "ab", count: 32)
        try await offline.savePhoto(
            PhotoRecord(
                id: abandoned, contentType: "image/png", byteCount: 3, owner: "restart",
                createdAt: Date(timeIntervalSinceNow: -2 * 86_400)))
        let abandonedFile = directory.appendingPathComponent("photos/ab/\(abandoned)").path
        try FileManager.default.createDirectory(atPath: (abandonedFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: abandonedFile))
        // And a notification past the 90 days a notification is kept.
        try await offline.addNotification(
            UserNotification(
                id: "old", username: "restart", kind: "friend_request", data: ["from": "x"],
                createdAt: Date(timeIntervalSinceNow: -100 * 86_400)))
        try await offline.shutdown()

        let second = try await Server.start(arguments + ["--photo-storage-per-user", "50MB"])
        #expect(
            second.log.value.contains(
                "\(usersFile) holds emails and password hashes and is open to other accounts on this machine (mode 644): chmod 600"),
            "\(second.log.value)")
        defer { if second.process.isRunning { second.process.terminate() } }
        let (me, profile) = try await second.request("GET", "/v1/me", token: token)
        #expect(me == 200 && profile["username"] as? String == "restart")
        let storage = profile["photo_storage"] as? [String: Any]
        #expect(storage?["used_bytes"] as? Int == 0 && storage?["limit_bytes"] as? Int == 50_000_000, "\(profile)")
        // The sweep runs beside the listener as the service starts: give it a few seconds.
        for _ in 0..<50 where !second.log.value.contains("deleted 1 expired sessions") { try await Task.sleep(for: .milliseconds(100)) }
        let reopened = try SQLiteUserStore(path: usersFile, threads: 1)
        #expect(try await reopened.session(tokenHash: String(repeating: "0", count: 64)) == nil, "the expired session was swept")
        try await reopened.shutdown()
        #expect(second.log.value.contains("deleted 1 expired sessions"), "\(second.log.value)")
        for _ in 0..<50 where !second.log.value.contains("removed 1 photos that no upload attached") { try await Task.sleep(for: .milliseconds(100)) }
        #expect(second.log.value.contains("removed 1 photos that no upload attached"), "\(second.log.value)")
        #expect(!FileManager.default.fileExists(atPath: abandonedFile), "the abandoned photo's file went with it")
        for _ in 0..<50 where !second.log.value.contains("deleted 1 notifications past their retention") {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(second.log.value.contains("deleted 1 notifications past their retention"), "\(second.log.value)")
        let (found, near) = try await second.request("GET", "/v1/gems/near?lat=43.73&lon=7.42")
        #expect(found == 200 && (near["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [id])
        #expect(try await second.stop())
        for log in [first.log.value, second.log.value] {
            #expect(!log.contains(password) && !log.contains(token), "no password or token in the log")
        }
    }

    @Test func badSettingsExitWithTheirSentence() throws {
        let port = try CLI.run(["serve", "--port", "70000"])
        #expect(port.status == 64 && port.stderr.contains("--port 70000 is invalid: it must be from 0 to 65535"))
        let connections = try CLI.run(["serve", "--db-connections", "0"])
        #expect(connections.status == 64 && connections.stderr.contains("--db-connections 0 is invalid: it must be from 1 to 1000"))
        let origins = try CLI.run(["serve", "--cors-origins", "https://app.example.com,app2.example.com"])
        #expect(origins.status == 64 && origins.stderr.contains("--cors-origins is invalid: 'app2.example.com' is not an origin"))
        let environmentOrigins = try CLI.run(["serve"], environment: ["GEOQUERY_CORS_ORIGINS": "https://app.example.com/"])
        #expect(
            environmentOrigins.status == 64
                && environmentOrigins.stderr.contains("GEOQUERY_CORS_ORIGINS is invalid: 'https://app.example.com/' is not an origin"))
        let publicURL = try CLI.run(["serve", "--public-url", "https://api.example.org/v1?x=1"])
        #expect(
            publicURL.status == 64
                && publicURL.stderr.contains(
                    "--public-url 'https://api.example.org/v1?x=1' is invalid: give the scheme and host clients reach the service at"),
            "\(publicURL.stderr)")
        let environmentURL = try CLI.run(["serve"], environment: ["GEOQUERY_PUBLIC_URL": "ftp://files.example.org"])
        #expect(environmentURL.status == 64 && environmentURL.stderr.contains("GEOQUERY_PUBLIC_URL 'ftp://files.example.org' is invalid"))
        let moderators = try CLI.run(["serve", "--moderators", "anna,Bad Name!"])
        #expect(moderators.status == 64 && moderators.stderr.contains("--moderators is invalid: username 'Bad Name!' is invalid: use 3 to 30"))
        let storage = try CLI.run(["serve", "--photo-storage-per-user", "lots"])
        #expect(
            storage.status == 64 && storage.stderr.contains("--photo-storage-per-user 'lots' is invalid: give a size such as 500MB or 2GB, or none"))
        let environmentStorage = try CLI.run(["serve"], environment: ["GEOQUERY_PHOTO_STORAGE_PER_USER": "-5GB"])
        #expect(environmentStorage.status == 64 && environmentStorage.stderr.contains("GEOQUERY_PHOTO_STORAGE_PER_USER '-5GB' is invalid"))
        let creations = try CLI.run(["serve", "--creations-per-user-per-hour", "0"])
        #expect(
            creations.status == 64
                && creations.stderr.contains("--creations-per-user-per-hour '0' is invalid: give a whole number from 1 to 1000000, or none"))
        let friends = try CLI.run(["serve"], environment: ["GEOQUERY_FRIENDS_PER_USER": "lots"])
        #expect(
            friends.status == 64
                && friends.stderr.contains("GEOQUERY_FRIENDS_PER_USER 'lots' is invalid: give a whole number from 1 to 1000000, or none"))
        let missing = try CLI.run(["serve", "--db", "/nonexistent/places.sqlite"])
        #expect(missing.status == 66 && missing.stderr.contains("no place index at /nonexistent/places.sqlite"))
    }

    /// `geoquery backup` while the service runs: a second service on the copy knows the same
    /// account and password, the same gem (still private), the same photo byte for byte and
    /// the same webhook key, and nothing written after the copy. A backup is never
    /// overwritten, and a PostgreSQL deployment is sent to pg_dump.
    @Test func aBackupTakenWhileServingServesTheSameAccountsGemsAndPhotos() async throws {
        let fixture = try CLITests.fixture.get()
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let users = directory.appendingPathComponent("live/users.sqlite").path
        try FileManager.default.createDirectory(atPath: (users as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let live = try await Server.start(["--db", fixture.db, "--users-db", users])
        defer { if live.process.isRunning { live.process.terminate() } }
        let password = "a backed up passphrase"
        #expect(
            try await live.request("POST", "/v1/users", json: #"{"username":"keeper","email":"k@example.org","password":"\#(password)"}"#).0 == 201)
        let token = try #require(
            try await live.request("POST", "/v1/sessions", json: #"{"username":"keeper","password":"\#(password)"}"#).1["token"] as? String)
        let (made, gem) = try await live.request(
            "POST", "/v1/gems", token: token,
            json: #"{"name":"Secret Cove","lat":43.5,"lon":7.1,"visibility":"private"}"#)
        let id = try #require(gem["id"] as? String)
        #expect(made == 201)
        var upload = URLRequest(url: URL(string: "http://127.0.0.1:\(live.port)/v1/gems/\(id)/photos")!)
        upload.httpMethod = "POST"
        upload.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        upload.setValue("image/png", forHTTPHeaderField: "Content-Type")
        upload.httpBody = Data(TestImages.png(withText: false))
        let (photoJSON, photoResponse) = try await URLSession.shared.data(for: upload)
        #expect((photoResponse as? HTTPURLResponse)?.statusCode == 201)
        let photo = try #require((try JSONSerialization.jsonObject(with: photoJSON) as? [String: Any])?["id"] as? String)
        let (photoBytes, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(live.port)/v1/photos/\(photo)")!)

        let folder = directory.appendingPathComponent("backup").path
        let backup = try CLI.run(["backup", "--users-db", users, "--to", folder])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(
            backup.stdout.contains("backed up 1 accounts, 1 gems, 0 trips and itineraries") && backup.stdout.contains("and 1 photos"),
            "\(backup.stdout)")
        // The service goes on; what it writes now is not in the copy.
        #expect(try await live.request("POST", "/v1/gems", token: token, json: #"{"name":"Later","lat":43.5,"lon":7.1}"#).0 == 201)
        #expect(try await live.stop())
        let liveKey = FileManager.default.contents(atPath: directory.appendingPathComponent("live/webhook.key").path)
        #expect(liveKey != nil && FileManager.default.contents(atPath: folder + "/webhook.key") == liveKey)
        for secret in ["webhook.key", "users.sqlite"] {
            #expect(
                (try FileManager.default.attributesOfItem(atPath: folder + "/" + secret)[.posixPermissions] as? Int) == 0o600,
                "\(secret) is for its owner's eyes only")
        }

        let restored = try await Server.start(["--db", fixture.db, "--users-db", folder + "/users.sqlite"])
        defer { if restored.process.isRunning { restored.process.terminate() } }
        let (signedIn, session) = try await restored.request("POST", "/v1/sessions", json: #"{"username":"keeper","password":"\#(password)"}"#)
        let restoredToken = try #require(session["token"] as? String)
        #expect(signedIn == 201)
        let (mine, list) = try await restored.request("GET", "/v1/me/gems", token: restoredToken)
        #expect(mine == 200 && (list["places"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Secret Cove"])
        #expect(try await restored.request("GET", "/v1/gems/\(id)").0 == 404, "still private: no one else sees it")
        let (bytes, served) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(restored.port)/v1/photos/\(photo)")!)
        #expect((served as? HTTPURLResponse)?.statusCode == 200 && !bytes.isEmpty && bytes == photoBytes, "the same photo as before the backup")
        #expect(try await restored.stop())

        let again = try CLI.run(["backup", "--users-db", users, "--to", folder])
        #expect(again.status == 64 && again.stderr.contains("--to \(folder) already holds 3 entries: give a new or empty folder"))
        let postgres = try CLI.run([
            "backup", "--db", "postgres://geo:hunter2secret@127.0.0.1:1/places", "--to",
            directory.appendingPathComponent("pg").path,
        ])
        #expect(
            postgres.status == 64 && postgres.stderr.contains("postgres://geo@127.0.0.1:1/places is a PostgreSQL database")
                && postgres.stderr.contains("pg_dump"), "\(postgres.stderr)")
        #expect(!postgres.stderr.contains("hunter2secret"), "the password is not repeated")
        let missing = try CLI.run(["backup", "--users-db", "/nonexistent/users.sqlite", "--to", directory.appendingPathComponent("none").path])
        #expect(missing.status == 66 && missing.stderr.contains("no user data file at /nonexistent/users.sqlite"))
    }
}
