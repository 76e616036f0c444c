import Foundation
import Logging
import PlaceQuery
import PostgresNIO

/// Where a PostgreSQL database is: parsed from a `postgres://user[:password]@host[:port]/name`
/// URL (`postgresql://` too). `?sslmode=require` asks for TLS; the default is no TLS, for a
/// database on loopback or a private network.
public struct PostGISLocation: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var requiresTLS: Bool

    /// Whether `text` names a PostgreSQL database rather than a file.
    public static func isDatabaseURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// - Throws: ``PostGISError/invalidURL(_:reason:)`` naming what is missing.
    public init(url text: String) throws(PostGISError) {
        guard Self.isDatabaseURL(text), let components = URLComponents(string: text) else {
            throw .invalidURL(Self.redacted(text), reason: "it must look like postgres://user@host:5432/name")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .invalidURL(Self.redacted(text), reason: "it names no host (postgres://user@host:5432/name)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw .invalidURL(Self.redacted(text), reason: "it names no user (postgres://user@host:5432/name)")
        }
        let name = String(components.path.drop(while: { $0 == "/" }))
        guard !name.isEmpty, !name.contains("/") else {
            throw .invalidURL(Self.redacted(text), reason: "it names no database (postgres://user@host:5432/name)")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw .invalidURL(Self.redacted(text), reason: "the port must be from 1 to 65535")
        }
        self.host = host
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        database = name.removingPercentEncoding ?? name
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value
        requiresTLS = mode == "require" || mode == "verify-full" || mode == "verify-ca"
    }

    /// The URL without its password, for messages and logs.
    public var description: String { "postgres://\(username)@\(host):\(port)/\(database)" }

    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "…"
        return components.string ?? "(a postgres URL)"
    }
}

/// Why the PostgreSQL backend failed, in words an operator can act on. Never carries a password.
public enum PostGISError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String, reason: String)
    /// The server did not answer, or refused the connection.
    case unavailable(String, reason: String)
    /// The database's schema is newer than this program knows.
    case schemaTooNew(found: Int, known: Int)
    /// The server refused a statement.
    case server(String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "the database URL '\(url)' is invalid: \(reason)"
        case .unavailable(let url, let reason): return "the database at \(url) is unavailable: \(reason)"
        case .schemaTooNew(let found, let known):
            return "the database's schema is version \(found), newer than this GeoQuery knows (\(known)): upgrade GeoQuery"
        case .server(let message): return "the database refused a statement: \(message)"
        }
    }
}

/// A connection pool to one PostgreSQL database (postgres-nio's `PostgresClient`), running
/// from ``connect(_:maximumConnections:timeout:logger:)`` until ``close()``.
///
/// Every value reaches the server as a bound parameter; SQL text is built only from this
/// target's constants.
public final class PostGISDatabase: Sendable {
    public let location: PostGISLocation
    let client: PostgresClient
    private let running: Task<Void, Never>
    /// How long a statement may wait for a connection before the database counts as unavailable.
    let timeout: Duration
    let logger: Logger
    /// Ends the waits longer than ``timeout``; its loop runs until ``close()``.
    private let watchdog = LeaseWatchdog()
    private let watching: Task<Void, Never>
    /// Fails a statement whose connection closes under it (see ``ClosedConnectionWatch``).
    let closeWatches: ClosedConnectionWatches

    private init(location: PostGISLocation, client: PostgresClient, timeout: Duration, logger: Logger) {
        self.location = location
        self.client = client
        self.timeout = timeout
        self.logger = logger
        closeWatches = ClosedConnectionWatches(location: location)
        running = Task.detached { await client.run() }
        let watchdog = self.watchdog, interval = LeaseWatchdog.interval(for: timeout)
        watching = Task.detached { await watchdog.run(every: interval) }
    }

    /// Opens a pool to the database at `url` and checks that it answers within `timeout`.
    /// - Throws: ``PostGISError/invalidURL(_:reason:)`` or ``PostGISError/unavailable(_:reason:)``.
    /// - Parameter statementTimeout: the longest any statement of this pool may run (PostgreSQL's
    ///   `statement_timeout`, set when each connection starts); nil for no limit. A statement
    ///   stopped by it fails as ``PlaceQuery/PlaceQueryError/deadlineExceeded``.
    public static func connect(
        _ url: String, maximumConnections: Int = 16, timeout: Duration = .seconds(10),
        statementTimeout: Duration? = nil,
        logger: Logger = Logger(label: "geoquery.postgis")
    ) async throws -> PostGISDatabase {
        let location = try PostGISLocation(url: url)
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: location.requiresTLS ? .require(.makeClientConfiguration()) : .disable)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = timeout
        configuration.options.minimumConnections = 0
        // Named statements (the prepared near query) keep one plan per connection rather than
        // planning each run; statements sent as text are planned each time, whatever this says.
        configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")]
        if let statementTimeout {
            let milliseconds = max(1, statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds / 1_000_000_000_000_000)
            configuration.options.additionalStartupParameters.append(("statement_timeout", String(milliseconds)))
        }
        // The pool retries a refused or rejected connection until its timeout: one connection
        // made first, outside it, says at once that nothing listens there or that the password
        // is wrong.
        try await Self.probe(location, timeout: timeout, logger: logger)
        // The pool's own log says little an operator can act on until run() has started (a lease
        // may come first); failures reach callers as PostGISError anyway.
        var backgroundLogger = logger
        backgroundLogger.logLevel = .error
        let database = PostGISDatabase(
            location: location, client: PostgresClient(configuration: configuration, backgroundLogger: backgroundLogger),
            timeout: timeout, logger: logger)
        do {
            _ = try await database.scalarInt("SELECT 1")
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// Opens one connection to `location` and closes it: its failure, translated as a
    /// statement's would be.
    static func probe(_ location: PostGISLocation, timeout: Duration, logger: Logger) async throws {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: location.requiresTLS ? .require(try .init(configuration: .makeClientConfiguration())) : .disable)
        configuration.options.connectTimeout = .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000)
        try await translatingErrors(location) {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        }
    }

    /// Stops the pool (open connections are closed).
    public func close() async {
        running.cancel()
        watching.cancel()
        _ = await running.value
        _ = await watching.value
    }

    // MARK: - Running statements

    /// Runs `body` with a pooled connection; a pool that cannot connect within ``timeout`` is
    /// ``PostGISError/unavailable(_:reason:)``, a refused statement ``PostGISError/server(_:)``.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let location = self.location, timeout = self.timeout, client = self.client, watchdog = self.watchdog
        let closeWatches = self.closeWatches
        return try await Self.translatingErrors(location) {
            // Only waiting for a connection is bounded here; a statement runs as long as it needs
            // (the server's statement_timeout bounds it), or until its connection closes.
            let waiter = LeaseWatchdog.Waiter(timeout: timeout)
            // The statement's outcome: its own, or its connection's closing, whichever comes first.
            let outcome = OneShot<T>()
            let work = Task {
                watchdog.start(waiter, at: .now)
                do {
                    outcome.complete(
                        .success(
                            try await client.withConnection { connection in
                                guard watchdog.leased(waiter) else { throw CancellationError() }
                                return try await closeWatches.watch(connection).running(body, onClose: outcome.complete)
                            }))
                } catch {
                    outcome.complete(.failure(error))
                }
            }
            watchdog.watch(waiter, cancel: { work.cancel() })
            let result = await withTaskCancellationHandler {
                await outcome.value
            } onCancel: {
                work.cancel()
            }
            if watchdog.finished(waiter) {
                throw PostGISError.unavailable(location.description, reason: "no connection within \(timeout)")
            }
            return try result.get()
        }
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = self.logger
        return try await withConnection { connection in
            do {
                return try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
            } catch let error as PostgresTransactionError {
                // The body's own error (a taken username, a missing gem) is what callers handle.
                if let closureError = error.closureError { throw closureError }
                throw error.beginError ?? error.commitError ?? error.rollbackError ?? error
            }
        }
    }

    /// Runs a statement and collects its rows; a task whose ``QueryDeadline`` has passed gets
    /// ``PlaceQueryError/deadlineExceeded`` without asking the server.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        if let deadline = QueryDeadline.current, ContinuousClock.now >= deadline { throw PlaceQueryError.deadlineExceeded }
        let logger = self.logger
        return try await withConnection { connection in
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// Runs a prepared statement (prepared on each connection the first time it runs there) and
    /// collects its rows; a task past its ``QueryDeadline`` is refused as ``rows(_:)-(PostgresQuery)`` refuses it.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [Statement.Row]
    where Statement.Row: Sendable {
        if let deadline = QueryDeadline.current, ContinuousClock.now >= deadline { throw PlaceQueryError.deadlineExceeded }
        let logger = self.logger
        return try await withConnection { connection in
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// Runs a statement for its effect.
    func execute(_ query: PostgresQuery) async throws {
        _ = try await rows(query)
    }

    /// The first column of the first row as an integer (nil when there is no row or it is NULL).
    func scalarInt(_ query: PostgresQuery) async throws -> Int? {
        guard let row = try await rows(query).first else { return nil }
        return try row.decode(Int?.self)
    }

    static func translatingErrors<T>(_ location: PostGISLocation, _ body: () async throws -> T) async throws -> T {
        do {
            return try await translatingPostgresErrors(location, body)
        } catch let error as PostGISError {
            // Above the seam an unreachable database is the seam's own error (HTTP 503, exit 69).
            if case .unavailable = error { throw PlaceQueryError.storeUnavailable(error.description) }
            throw error
        }
    }

    private static func translatingPostgresErrors<T>(_ location: PostGISLocation, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostGISError {
            throw error
        } catch let error as PSQLError {
            switch error.code {
            case .server:
                let message = error.serverInfo?[.message] ?? "unknown"
                // 57014: stopped by statement_timeout (the pool's bound on a statement).
                if error.serverInfo?[.sqlState] == "57014" { throw PlaceQueryError.deadlineExceeded }
                // 08…: connection failures; 57P0…: the server ended the session (shutdown, an
                // administrator, an idle limit) or cannot take one now.
                if let state = error.serverInfo?[.sqlState],
                    state.hasPrefix("08") || state.hasPrefix("57P0") || state == "3D000" || state == "28P01" || state == "28000"
                {
                    throw PostGISError.unavailable(location.description, reason: message)
                }
                throw PostGISError.server(message)
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
                throw PostGISError.unavailable(location.description, reason: Self.reason(error))
            default:
                throw PostGISError.server(Self.reason(error))
            }
        }
    }

    private static func reason(_ error: PSQLError) -> String {
        if let underlying = error.underlying {
            let text = String(describing: underlying)
            if text.localizedCaseInsensitiveContains("connection refused") {
                return "nothing accepts connections there (connection refused): start PostgreSQL, or correct the host and port in the URL"
            }
            return text
        }
        return String(describing: error.code)
    }
}

extension PostgresConnection {
    /// Runs a statement and collects its rows (a write's none may be ignored).
    @discardableResult
    func all(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await self.query(query, logger: PostGISDatabase.statementLogger).collect()
    }
}

extension PostGISDatabase {
    /// The logger statements run with (postgres-nio logs each at trace level).
    static let statementLogger = Logger(label: "geoquery.postgis.statement")
}
