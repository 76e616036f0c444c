import Foundation

/// Bounds how long statements wait for a pooled connection, with one timer for the whole pool.
///
/// postgres-nio's pool queues a lease for as long as it cannot connect (its circuit breaker trips
/// only after a minute), so a database that does not answer would hang every request. Each
/// statement registers a ``Waiter`` before it asks the pool; one loop (``run(every:)``) cancels
/// the waiters whose deadline has passed while they still wait. A timer per statement did the
/// same with two extra tasks and a dispatch timer set and cancelled every time.
///
/// `@unchecked Sendable`: `waiters` and every ``Waiter``'s flags are read and written only
/// under `lock`.
final class LeaseWatchdog: @unchecked Sendable {
    /// One statement's wait for a connection.
    final class Waiter: @unchecked Sendable {
        let deadline: ContinuousClock.Instant
        // Under the watchdog's lock (hence `@unchecked`).
        fileprivate var cancel: (@Sendable () -> Void)?
        fileprivate var leased = false
        fileprivate var expired = false

        init(deadline: ContinuousClock.Instant) { self.deadline = deadline }
    }

    private let lock = NSLock()
    private var waiters: [ObjectIdentifier: Waiter] = [:]

    /// Watches `waiter` until it is leased or finished; `cancel` stops its wait.
    func watch(_ waiter: Waiter, cancel: @escaping @Sendable () -> Void) {
        lock.withLock {
            guard !waiter.leased, !waiter.expired else { return }
            waiter.cancel = cancel
            waiters[ObjectIdentifier(waiter)] = waiter
        }
    }

    /// Called when the pool hands `waiter` a connection; false when it had already expired
    /// (the statement must not run then: its caller has been told the database is unavailable).
    func leased(_ waiter: Waiter) -> Bool {
        lock.withLock {
            if waiter.expired { return false }
            waiter.leased = true
            waiters[ObjectIdentifier(waiter)] = nil
            return true
        }
    }

    /// Stops watching `waiter`; true when it expired waiting for a connection.
    func finished(_ waiter: Waiter) -> Bool {
        lock.withLock {
            waiters[ObjectIdentifier(waiter)] = nil
            return waiter.expired
        }
    }

    /// Cancels every waiter still waiting at `now` past its deadline.
    func expire(at now: ContinuousClock.Instant) {
        let due: [@Sendable () -> Void] = lock.withLock {
            var due: [@Sendable () -> Void] = []
            for (key, waiter) in waiters where !waiter.leased && waiter.deadline <= now {
                waiter.expired = true
                if let cancel = waiter.cancel { due.append(cancel) }
                waiters[key] = nil
            }
            return due
        }
        for cancel in due { cancel() }
    }

    /// Checks the waiters every `interval` until the task running this is cancelled.
    func run(every interval: Duration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            expire(at: .now)
        }
    }

    /// How often to check for a pool whose statements may wait `timeout`: a tenth of it, at
    /// least every quarter second and at most every 10 ms.
    static func interval(for timeout: Duration) -> Duration {
        min(.milliseconds(250), max(.milliseconds(10), timeout / 10))
    }
}
