import Foundation

/// Bounds how long statements wait for a pooled connection, with one timer for the whole pool.
///
/// postgres-nio's pool queues a lease for as long as it cannot connect (its circuit breaker trips
/// only after a minute), so a database that does not answer would hang every request. Each
/// statement registers a ``Waiter``; one loop (``run(every:)``) cancels the waiters still waiting
/// past their timeout. A timer per statement did the same with two extra tasks and a dispatch
/// timer set and cancelled every time.
///
/// Only time in which the process could have run the wait counts: a waiter's clock starts when
/// its task starts (``start(_:at:)``), and when the loop itself wakes late — every thread of the
/// concurrency pool busy, as in a loaded test run — the deadlines move by the lateness, so a
/// lease the pool granted but no thread has yet resumed is not called a dead database. They
/// move by at most the timeout, so however loaded the process, a wait is ended no later than
/// twice its timeout after it started (or the first check after that).
///
/// `@unchecked Sendable`: `waiters` and every ``Waiter``'s fields are read and
/// written only under `lock`.
final class LeaseWatchdog: @unchecked Sendable {
    /// One statement's wait for a connection.
    final class Waiter: @unchecked Sendable {
        let timeout: Duration
        // Under the watchdog's lock (hence `@unchecked`).
        fileprivate var deadline: ContinuousClock.Instant?
        /// How far the deadline has been moved for lateness: at most ``timeout``.
        fileprivate var moved: Duration = .zero
        fileprivate var cancel: (@Sendable () -> Void)?
        fileprivate var leased = false
        fileprivate var expired = false

        init(timeout: Duration) { self.timeout = timeout }
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

    /// Starts `waiter`'s clock: called by the task that waits, when it runs.
    func start(_ waiter: Waiter, at now: ContinuousClock.Instant) {
        lock.withLock { waiter.deadline = now + waiter.timeout }
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

    /// Moves every started waiter's deadline by `lateness` (time the process could not run
    /// them; in all at most its timeout), then cancels every waiter still waiting at `now` past its deadline.
    func expire(at now: ContinuousClock.Instant, lateness: Duration = .zero) {
        let due: [@Sendable () -> Void] = lock.withLock {
            var due: [@Sendable () -> Void] = []
            for (key, waiter) in waiters where !waiter.leased {
                guard var deadline = waiter.deadline else { continue }
                let move = min(lateness, waiter.timeout - waiter.moved)
                if move > .zero {
                    deadline += move
                    waiter.moved += move
                    waiter.deadline = deadline
                }
                guard deadline <= now else { continue }
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
        var last = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let now = ContinuousClock.now
            // Woken later than asked: the process could not run anything meanwhile.
            let lateness = max(.zero, now - last - interval * 2)
            last = now
            expire(at: now, lateness: lateness)
        }
    }

    /// How often to check for a pool whose statements may wait `timeout`: a tenth of it, at
    /// least every quarter second and at most every 10 ms.
    static func interval(for timeout: Duration) -> Duration {
        min(.milliseconds(250), max(.milliseconds(10), timeout / 10))
    }
}
