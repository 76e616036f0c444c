import Foundation
import PostgresNIO

/// Ends the waits of statements on one connection when that connection closes.
///
/// postgres-nio 1.33.2 hands a statement to its channel without a promise: when the channel
/// has already closed (the server ended the session: a restart, `pg_terminate_backend`, an
/// idle-transaction limit, a proxy's timeout), the hand-over fails unseen and the statement
/// waits forever. An import's own connections (``PostGISSnapshotWriter``) run every statement
/// through a watch, so such a statement fails with ``PostGISError/unavailable(_:reason:)``
/// instead. The pool's connections have one each too (``ClosedConnectionWatches``):
/// `PostgresClient` drops a connection as it closes, but a statement that leased one in that
/// instant would wait forever, and hold the request that ran it.
final class ClosedConnectionWatch: @unchecked Sendable {
    // Safe to share: `closed`, `waiting` and `nextKey` are only touched under `lock`.
    private let lock = NSLock()
    private var closed = false
    private var waiting: [Int: @Sendable (any Error) -> Void] = [:]
    private var nextKey = 0
    let connection: PostgresConnection
    private let location: PostGISLocation

    /// A watch of `connection`; with `watching` false it starts at ``startWatching(then:)``.
    init(_ connection: PostgresConnection, location: PostGISLocation, watching: Bool = true) {
        self.connection = connection
        self.location = location
        if watching { startWatching() }
    }

    /// Fails the waits when the connection closes (at once if it has), then calls `closed`.
    func startWatching(then closed: @escaping @Sendable () -> Void = {}) {
        connection.closeFuture.whenComplete { [weak self] _ in
            self?.connectionClosed()
            closed()
        }
    }

    private var closedError: PostGISError {
        .unavailable(location.description, reason: "the server closed the connection")
    }

    /// Runs `body` (statements on ``connection``), or fails once the connection closes.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let connection = self.connection
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let once = ResumeOnce(continuation)
            let key: Int? = lock.withLock {
                guard !closed else { return nil }
                defer { nextKey += 1 }
                waiting[nextKey] = { once.resume(with: .failure($0)) }
                return nextKey
            }
            guard let key else { return once.resume(with: .failure(closedError)) }
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await body(connection)) } catch { result = .failure(error) }
                _ = self.lock.withLock { self.waiting.removeValue(forKey: key) }
                once.resume(with: result)
            }
        }
    }

    /// Closes the connection.
    func close() async throws { try await connection.close() }

    private func connectionClosed() {
        let failures = lock.withLock {
            closed = true
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        let error = closedError
        for fail in failures { fail(error) }
    }
}

/// One ``ClosedConnectionWatch`` per connection of a pool: made at the connection's first lease,
/// dropped when it closes. A watch holds its connection, so a closed connection's address cannot
/// be reused by a new one while its entry is still here.
final class ClosedConnectionWatches: @unchecked Sendable {
    // Safe to share: `watches` is only touched under `lock`.
    private let lock = NSLock()
    private var watches: [ObjectIdentifier: ClosedConnectionWatch] = [:]
    private let location: PostGISLocation

    init(location: PostGISLocation) { self.location = location }

    /// How many connections are watched (for tests).
    var count: Int { lock.withLock { watches.count } }

    /// Runs `body` on `connection`, or fails once the connection closes.
    func run<T: Sendable>(on connection: PostgresConnection,
                          _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await watch(connection).run(body)
    }

    private func watch(_ connection: PostgresConnection) -> ClosedConnectionWatch {
        let key = ObjectIdentifier(connection)
        let (watch, isNew) = lock.withLock { () -> (ClosedConnectionWatch, Bool) in
            if let existing = watches[key] { return (existing, false) }
            let made = ClosedConnectionWatch(connection, location: location, watching: false)
            watches[key] = made
            return (made, true)
        }
        // Registered after the entry is in place, so that a connection already closed removes it.
        if isNew { watch.startWatching { [weak self] in self?.remove(key) } }
        return watch
    }

    private func remove(_ key: ObjectIdentifier) {
        _ = lock.withLock { watches.removeValue(forKey: key) }
    }
}

/// Resumes a continuation the first time only: a statement's own answer and its connection's
/// closing may both arrive. Safe to share: `continuation` is only touched under `lock`.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?

    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = continuation }

    func resume(with result: Result<T, any Error>) {
        lock.withLock { () -> CheckedContinuation<T, any Error>? in
            defer { continuation = nil }
            return continuation
        }?.resume(with: result)
    }
}
