import Accounts
import ArgumentParser
import Foundation
import GeoCore
import GeoQueryServer
import Logging
import NIOCore
import PlaceQuery
import PlaceStore
import PostGISStore
import Regions
import ServiceLifecycle

/// `geoquery serve`: the places API over HTTP, the map page, health and metrics.
struct Serve: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        abstract: "Serve the places API over HTTP (v1), the map page at /, /healthz and /metrics.",
        discussion: """
            Example: geoquery serve --port 8080, then open http://127.0.0.1:8080/ or \
            curl '127.0.0.1:8080/v1/places/near?lat=48.8584&lon=2.2945&radius=20mi&limit=5'.

            The places and everything people make can live in a PostgreSQL/PostGIS database instead \
            (--db postgres://user@host:5432/name), which any number of servers may share.

            Every flag has an environment variable: GEOQUERY_HOST, GEOQUERY_PORT, GEOQUERY_DB, GEOQUERY_READ_DB, \
            GEOQUERY_DATA_DIR, GEOQUERY_TILES, GEOQUERY_TILES_ATTRIBUTION, GEOQUERY_CORS_ORIGINS, GEOQUERY_LOG_LEVEL (default info); \
            GEOQUERY_WEBHOOK_KEY (64 hex digits; default the file webhook.key beside the photos, made when missing). \
            Provider keys as for `geoquery search`. SIGTERM or SIGINT stops it gracefully: requests \
            under way are answered first.
            """)

    @Option(help: "Address to listen on (GEOQUERY_HOST; default 127.0.0.1).") var host: String?
    @Option(help: "Port, 0 for any free one (GEOQUERY_PORT; default 8080).") var port: Int?
    @Option(
        name: .customLong("public-url"),
        help: """
            The scheme and host clients reach the service at, e.g. https://api.example.org (GEOQUERY_PUBLIC_URL): \
            photo, avatar and share URLs in answers are built on it. Default: each request's Host, over http.
            """) var publicURL: String?
    @Option(name: .customLong("data-dir"), help: "Folder with countries.csv (GEOQUERY_DATA_DIR; default geodata).") var dataDirectory: String?
    @Option(help: "Tile URL template for the map page (GEOQUERY_TILES; default OpenStreetMap's).") var tiles: String?
    @Option(name: .customLong("tiles-attribution"), help: "Attribution HTML for the tiles (GEOQUERY_TILES_ATTRIBUTION).") var tilesAttribution:
        String?
    @Option(help: "Threads that run index queries (default: one per core, at least 2).") var threads: Int?
    @Option(
        name: .customLong("users-db"),
        help: """
            SQLite file of accounts, gems, favourites and ratings, created if missing \
            (GEOQUERY_USERS_DB; default DATA_DIR/users.sqlite). Photos go to the folder photos/ beside it.
            """) var usersDatabase: String?
    @Option(
        name: .customLong("read-db"),
        help: """
            A read replica of the --db PostgreSQL database (GEOQUERY_READ_DB): anonymous place and gem queries go \
            there, writes and signed-in users' reads to the primary.
            """) var readDatabase: String?
    @Option(
        name: .customLong("db-connections"),
        help: """
            Connections to the --db PostgreSQL database (and as many to --read-db) (default 8). PostgreSQL runs \
            a process per connection; more than a few per core only adds switching.
            """) var databaseConnections: Int = 8
    @Option(name: .customLong("gem-radius-cap"), help: "The largest radius of /v1/gems/near (default 20mi).") var gemRadiusCap: String?
    @Option(
        name: .customLong("cors-origins"),
        help: """
            Web pages on other origins that may call the API from a browser, comma-separated \
            (https://app.example.com,http://localhost:5173), or * for any (GEOQUERY_CORS_ORIGINS; default none).
            """) var corsOrigins: String?
    @Option(
        name: .customLong("moderators"),
        help: """
            Usernames, comma-separated, whose accounts may read reports of gems and hide, restore or clear them \
            (GEOQUERY_MODERATORS; default none). Granted at start-up to the accounts the names have then: \
            a name with no account is warned about and grants nothing.
            """) var moderators: String?
    @Option(
        name: .customLong("photo-storage-per-user"),
        help: """
            The photos one account may store, such as 500MB or 2GB, or none for no limit \
            (GEOQUERY_PHOTO_STORAGE_PER_USER; default 1GB).
            """) var photoStoragePerUser: String?
    @Option(
        name: .customLong("creations-per-user-per-hour"),
        help: """
            Gems, photos, favourites, reports, friend requests, itineraries, trips and share links one account may create \
            an hour before 429, or none for no limit (GEOQUERY_CREATIONS_PER_USER_PER_HOUR; default 300).
            """) var creationsPerUserPerHour: String?
    @Option(
        name: .customLong("friends-per-user"),
        help: """
            The most friends one account may have, or none for no limit (GEOQUERY_FRIENDS_PER_USER; default 5000).
            """) var friendsPerUser: String?
    @OptionGroup var index: IndexOptions

    func check() throws {
        let port = try resolvedPort()
        guard (0...65_535).contains(port) else { throw ValidationError("--port \(port) is invalid: it must be from 0 to 65535") }
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads \(threads) is invalid: it must be from 1 to 64") }
        if !(1...1_000).contains(databaseConnections) {
            throw ValidationError("--db-connections \(databaseConnections) is invalid: it must be from 1 to 1000")
        }
        _ = try resolvedAllowedOrigins()
        _ = try resolvedModerators()
        _ = try resolvedPhotoStorageLimit()
        _ = try resolvedCreationsPerHour()
        _ = try resolvedFriendsPerUser()
        if let gemRadiusCap {
            do { _ = try Distance(parsing: gemRadiusCap) } catch {
                throw ValidationError("--gem-radius-cap '\(gemRadiusCap)' is invalid: give a distance such as 20mi or 30km")
            }
        }
    }

    private func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    private func resolvedPort() throws -> Int {
        if let port { return port }
        guard let text = environment("GEOQUERY_PORT") else { return 8080 }
        guard let value = Int(text) else { throw ValidationError("GEOQUERY_PORT '\(text)' is invalid: give a port number from 0 to 65535") }
        return value
    }

    /// `--cors-origins`, else GEOQUERY_CORS_ORIGINS, else none.
    private func resolvedAllowedOrigins() throws -> AllowedOrigins {
        let (name, text) = corsOrigins.map { ("--cors-origins", $0) } ?? ("GEOQUERY_CORS_ORIGINS", environment("GEOQUERY_CORS_ORIGINS") ?? "")
        do { return try AllowedOrigins(parsing: text) } catch { throw ValidationError("\(name) is invalid: \(error)") }
    }

    /// `--moderators`, else GEOQUERY_MODERATORS, else none: usernames as accounts spell them.
    private func resolvedModerators() throws -> Set<String> {
        let (name, text) = moderators.map { ("--moderators", $0) } ?? ("GEOQUERY_MODERATORS", environment("GEOQUERY_MODERATORS") ?? "")
        var names: Set<String> = []
        for part in text.split(separator: ",") {
            do { names.insert(try AccountRules.username(part.trimmingCharacters(in: .whitespaces))) } catch {
                throw ValidationError("\(name) is invalid: \(error)")
            }
        }
        return names
    }

    /// `--photo-storage-per-user`, else GEOQUERY_PHOTO_STORAGE_PER_USER, else 1 GB; `none` is no limit.
    private func resolvedPhotoStorageLimit() throws -> Int? {
        let (name, text) =
            photoStoragePerUser.map { ("--photo-storage-per-user", $0) }
            ?? ("GEOQUERY_PHOTO_STORAGE_PER_USER", environment("GEOQUERY_PHOTO_STORAGE_PER_USER") ?? "1GB")
        if text.trimmingCharacters(in: .whitespaces).lowercased() == "none" { return nil }
        guard let bytes = ByteCountText.bytes(parsing: text) else {
            throw ValidationError("\(name) '\(text)' is invalid: give a size such as 500MB or 2GB, or none for no limit")
        }
        return bytes
    }

    /// `--creations-per-user-per-hour`, else GEOQUERY_CREATIONS_PER_USER_PER_HOUR, else 300; `none` is no limit.
    private func resolvedCreationsPerHour() throws -> Int? {
        try countLimit(
            creationsPerUserPerHour, flag: "--creations-per-user-per-hour",
            variable: "GEOQUERY_CREATIONS_PER_USER_PER_HOUR", default: "300")
    }

    /// `--friends-per-user`, else GEOQUERY_FRIENDS_PER_USER, else 5000; `none` is no limit.
    private func resolvedFriendsPerUser() throws -> Int? {
        try countLimit(friendsPerUser, flag: "--friends-per-user", variable: "GEOQUERY_FRIENDS_PER_USER", default: "5000")
    }

    /// `--public-url`, else GEOQUERY_PUBLIC_URL: an http or https URL with a host and no path
    /// (beyond `/`), query or fragment, kept without a trailing slash; nil when neither is set.
    private func resolvedPublicURL() throws -> String? {
        guard let (name, text) = publicURL.map({ ("--public-url", $0) }) ?? environment("GEOQUERY_PUBLIC_URL").map({ ("GEOQUERY_PUBLIC_URL", $0) })
        else { return nil }
        let invalid = ValidationError(
            "\(name) '\(text)' is invalid: give the scheme and host clients reach the service at, e.g. https://api.example.org")
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty, ["", "/"].contains(components.path), components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else { throw invalid }
        let port = components.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return scheme + "://" + bracketed + port
    }

    /// A limit given as a whole number from 1 to 1 000 000, or `none` (nil): the flag's value,
    /// else the environment variable's, else `fallback`.
    private func countLimit(_ value: String?, flag: String, variable: String, default fallback: String) throws -> Int? {
        let (name, text) = value.map { (flag, $0) } ?? (variable, environment(variable) ?? fallback)
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "none" { return nil }
        guard let count = Int(trimmed), (1...1_000_000).contains(count) else {
            throw ValidationError("\(name) '\(text)' is invalid: give a whole number from 1 to 1000000, or none for no limit")
        }
        return count
    }

    func run() async throws {
        var settings = ServiceConfiguration()
        settings.host = host ?? environment("GEOQUERY_HOST") ?? settings.host
        settings.port = try resolvedPort()
        settings.publicURL = try resolvedPublicURL()
        settings.tilesURL = tiles ?? environment("GEOQUERY_TILES") ?? settings.tilesURL
        settings.tilesAttribution = tilesAttribution ?? environment("GEOQUERY_TILES_ATTRIBUTION") ?? settings.tilesAttribution
        settings.allowedOrigins = try resolvedAllowedOrigins()
        settings.moderators = try resolvedModerators()
        settings.photoStorageLimit = try resolvedPhotoStorageLimit()
        settings.creationsPerAccountPerHour = try resolvedCreationsPerHour()
        settings.friendsPerAccount = try resolvedFriendsPerUser()
        let dataDirectory = resolvedDataDirectory(dataDirectory)
        settings.countries = try reportingFailures { try CountryTable(contentsOf: dataDirectory + "/countries.csv") }
        settings.regions = try reportingFailures { try RegionLocator(dataDirectory: dataDirectory) }
        settings.boundariesFile = dataDirectory + "/" + RegionLocator.boundariesFile

        // A line per request: gathered into fewer writes (LogOutput).
        LogOutput.standardError.gathersLines = true
        var logger = Logger(label: "geoquery.serve")
        logger.logLevel = environment("GEOQUERY_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) ?? .info
        if let gemRadiusCap { settings.gemRadiusCap = try Distance(parsing: gemRadiusCap) }
        let (store, userData, stop) = try await openStores(dataDirectory: dataDirectory, settings: &settings)
        settings.webhookKey = try webhookKey(beside: ((settings.photoDirectory ?? dataDirectory) as NSString).deletingLastPathComponent)
        let service = GeoQueryService(index: store, userData: userData, configuration: settings, logger: logger)
        // Rights go to the accounts the names have now, never to a later account of the name.
        for name in try await service.grantModerators() {
            FileHandle.standardError.write(
                Data(
                    "geoquery: warning: --moderators names '\(name)', which has no account: not a moderator until the account exists and the service restarts\n"
                        .utf8))
        }
        let host = settings.host
        let location = index.isDatabaseURL ? (try? PostGISLocation(url: index.path).description) ?? "" : index.path
        let application = service.makeApplication { port in
            FileHandle.standardError.write(
                Data(
                    """
                    geoquery: serving \(location) on http://\(host):\(port)/ (map page), \
                    http://\(host):\(port)/openapi.json (API description); Ctrl-C stops\n
                    """.utf8))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .named("http", application),
                    .named("reminders", PeriodicService.planReminders(service)),
                    .named("webhooks", PeriodicService.webhookDeliveries(service)),
                    .named("housekeeping", PeriodicService.housekeeping(service)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            await stop()
            throw Self.failure(error, host: host, port: settings.port)
        }
        await stop()
    }

    /// What a stopped service says: a port it cannot listen on in one sentence with the fix.
    static func failure(_ error: any Error, host: String, port: Int) -> CLIFailure {
        // NIO's bind error carries the errno; the text is read too for an error that wraps it.
        let code = (error as? IOError)?.errnoCode
        let text = String(describing: error)
        if code == EADDRINUSE || text.contains("errno: \(EADDRINUSE)") || text.contains("Address already in use") {
            return CLIFailure(
                "port \(port) on \(host) is in use by another program: stop it, or give another --port (0 picks a free one)",
                exitCode: CLIFailure.unavailable)
        }
        if code == EACCES || text.contains("errno: \(EACCES)") || text.contains("Permission denied") {
            return CLIFailure(
                "geoquery may not listen on port \(port) on \(host) (permission denied): give a port above 1023, or let a proxy hold the low port",
                exitCode: CLIFailure.unavailable)
        }
        if code == EADDRNOTAVAIL || text.contains("errno: \(EADDRNOTAVAIL)") || text.contains("Cannot assign requested address") {
            return CLIFailure(
                "\(host) is not an address of this machine: give --host one of its addresses (127.0.0.1, 0.0.0.0 for all)",
                exitCode: CLIFailure.unavailable)
        }
        return CLIFailure("the service stopped: \(error)", exitCode: CLIFailure.unavailable)
    }

    /// The place index and the user store: both in the PostgreSQL database `--db` names, or the
    /// SpatiaLite index file and the users file (`--users-db`). Also what stops them.
    /// The key webhook secrets are derived from: GEOQUERY_WEBHOOK_KEY (64 hex digits), else the
    /// file `webhook.key` beside the photos, made (readable by its owner only) when missing.
    /// Servers sharing a database need the same key: set the variable, or share the file.
    private func webhookKey(beside directory: String) throws -> [UInt8] {
        func bytes(_ hex: String) -> [UInt8]? {
            let digits = Array(hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
            guard digits.count == 64 else { return nil }
            let key = stride(from: 0, to: 64, by: 2).compactMap { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) }
            return key.count == 32 ? key : nil
        }
        if let text = environment("GEOQUERY_WEBHOOK_KEY") {
            guard let key = bytes(text) else {
                throw CLIFailure(
                    "GEOQUERY_WEBHOOK_KEY is invalid: give 64 hex digits (32 random bytes, e.g. from `openssl rand -hex 32`)",
                    exitCode: CLIFailure.usage)
            }
            return key
        }
        let path = (directory as NSString).appendingPathComponent("webhook.key")
        if let data = FileManager.default.contents(atPath: path) {
            guard let key = bytes(String(decoding: data, as: UTF8.self)) else {
                throw CLIFailure("\(path) is not a webhook key (64 hex digits): remove it to make a new one", exitCode: CLIFailure.dataError)
            }
            return key
        }
        let key = WebhookSigner.makeKey()
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = Hex.lowercase(key) + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CLIFailure("cannot write the webhook key \(path): check the folder's permissions", exitCode: CLIFailure.ioError)
        }
        return key
    }

    private func openStores(
        dataDirectory: String, settings: inout ServiceConfiguration
    ) async throws
        -> (any PlaceIndex, any UserDataStore, @Sendable () async -> Void)
    {
        if index.isDatabaseURL {
            // Photos are files: several servers on one database need this folder on shared storage.
            settings.photoDirectory = (dataDirectory as NSString).appendingPathComponent("photos")
            let replica = readDatabase ?? environment("GEOQUERY_READ_DB")
            let places = try await reportingFailures {
                try await PostGISPlaceIndex.open(
                    index.path, readReplica: replica, maximumConnections: databaseConnections,
                    statementTimeout: settings.requestTimeout)
            }
            return (places, PostGISUserStore(sharingPoolsOf: places), { await places.close() })
        }
        if readDatabase != nil {
            throw CLIFailure("--read-db needs --db to name a PostgreSQL database (postgres://…)", exitCode: CLIFailure.usage)
        }
        let store = try index.openStore(threads: threads)
        let usersPath = usersDatabase ?? environment("GEOQUERY_USERS_DB") ?? dataDirectory + "/users.sqlite"
        settings.photoDirectory = ((usersPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("photos")
        let userData = try reportingFailures { try SQLiteUserStore(path: usersPath, threads: threads) }
        warnWhenOthersCanRead(usersPath)
        return (
            store, userData,
            {
                try? await store.shutdown()
                try? await userData.shutdown()
            }
        )
    }

    /// New user files are made 0600; one made by an older version, or copied, may be readable
    /// by every account on the machine. Said, not changed: the operator may have a reason.
    private func warnWhenOthersCanRead(_ path: String) {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int,
            mode & 0o077 != 0
        else { return }
        let text =
            "\(path) holds emails and password hashes and is open to other accounts on this machine (mode \(String(mode, radix: 8))): chmod 600 \(path)"
        FileHandle.standardError.write(Data("geoquery: warning: \(text)\n".utf8))
    }
}
