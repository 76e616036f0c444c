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
        let outcome = OneShot<T>()
        // The body runs in a task of its own, so that this wait can end while it waits on.
        Task {
            do { outcome.complete(.success(try await self.running(body, onClose: outcome.complete))) } catch {
                outcome.complete(.failure(error))
            }
        }
        return try await outcome.value.get()
    }

    /// Runs `body` in the caller's task and calls `onClose` with the failure if the connection
    /// closes before `body` returns (the caller then stops waiting for `body`, which may wait on);
    /// fails at once when the connection has closed.
    func running<T: Sendable>(
        _ body: (PostgresConnection) async throws -> T,
        onClose: @escaping @Sendable (Result<T, any Error>) -> Void
    ) async throws -> T {
        let key: Int? = lock.withLock {
            guard !closed else { return nil }
            defer { nextKey += 1 }
            waiting[nextKey] = { onClose(.failure($0)) }
            return nextKey
        }
        guard let key else { throw closedError }
        defer { _ = lock.withLock { waiting.removeValue(forKey: key) } }
        return try await body(connection)
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

    /// The watch of `connection`, made at its first lease.
    func watch(_ connection: PostgresConnection) -> ClosedConnectionWatch {
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

/// A result completed once — the first of a statement's own answer and its connection's
/// closing — and awaited once. Safe to share: `result` and `waiter` are only touched under `lock`.
final class OneShot<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<Result<T, any Error>, Never>?

    /// Sets the result, unless one was set before.
    @Sendable func complete(_ value: Result<T, any Error>) {
        let waiting = lock.withLock { () -> CheckedContinuation<Result<T, any Error>, Never>? in
            guard result == nil else { return nil }
            result = value
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: value)
    }

    /// The result, once it is set.
    var value: Result<T, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let ready = lock.withLock { () -> Result<T, any Error>? in
                    if result == nil { waiter = continuation }
                    return result
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
