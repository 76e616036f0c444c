import Foundation
import Testing

@testable import PostGISStore

/// The watchdog that bounds waits for a pooled connection: it cancels only waiters still
/// waiting past their timeout, counts no time the process could not run, and a waiter it
/// expired may not run its statement afterwards.
struct LeaseWatchdogTests {
    /// Counts the cancels a waiter got. `@unchecked Sendable`: the count is behind a lock.
    final class Cancels: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func cancel() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    @Test func onlyWaitersPastTheirDeadlineAreCancelled() {
        let watchdog = LeaseWatchdog()
        let now = ContinuousClock.now
        func waiter(startedAt start: ContinuousClock.Instant?) -> (LeaseWatchdog.Waiter, Cancels) {
            let waiter = LeaseWatchdog.Waiter(timeout: .seconds(10)), cancels = Cancels()
            if let start { watchdog.start(waiter, at: start) }
            watchdog.watch(waiter, cancel: cancels.cancel)
            return (waiter, cancels)
        }
        let (late, lateCancels) = waiter(startedAt: now - .seconds(11))
        let (leasedInTime, leasedCancels) = waiter(startedAt: now - .seconds(11))
        let (early, earlyCancels) = waiter(startedAt: now - .seconds(9))
        let (notStarted, notStartedCancels) = waiter(startedAt: nil)
        #expect(watchdog.leased(leasedInTime))

        watchdog.expire(at: now)
        watchdog.expire(at: now)
        #expect(lateCancels.value == 1, "cancelled once, then no longer watched")
        #expect(leasedCancels.value == 0 && earlyCancels.value == 0)
        #expect(notStartedCancels.value == 0, "a waiter's clock starts when its task runs")
        #expect(!watchdog.leased(late), "an expired waiter may not run its statement")
        #expect(watchdog.finished(late))
        #expect(!watchdog.finished(leasedInTime) && !watchdog.finished(notStarted))

        watchdog.expire(at: now + .seconds(2))
        #expect(earlyCancels.value == 1)
        #expect(watchdog.finished(early))
    }

    /// Time in which the watchdog itself could not run moves the deadlines, by at most the timeout.
    @Test func lateWakingMovesTheDeadlines() {
        let watchdog = LeaseWatchdog()
        let start = ContinuousClock.now
        let waiter = LeaseWatchdog.Waiter(timeout: .seconds(10)), cancels = Cancels()
        watchdog.start(waiter, at: start)
        watchdog.watch(waiter, cancel: cancels.cancel)
        // Woken 4 s late at start + 12 s: the deadline moves from start + 10 s to start + 14 s.
        watchdog.expire(at: start + .seconds(12), lateness: .seconds(4))
        #expect(cancels.value == 0)
        // Late again by 30 s: it moves by what is left of the timeout (6 s), to start + 20 s.
        watchdog.expire(at: start + .seconds(15), lateness: .seconds(30))
        watchdog.expire(at: start + .seconds(19))
        #expect(cancels.value == 0)
        watchdog.expire(at: start + .seconds(20))
        #expect(cancels.value == 1 && watchdog.finished(waiter))
    }

    @Test func aWaiterLeasedBeforeItIsWatchedIsNeverCancelled() {
        let watchdog = LeaseWatchdog()
        let waiter = LeaseWatchdog.Waiter(timeout: .seconds(1)), cancels = Cancels()
        watchdog.start(waiter, at: .now - .seconds(5))
        #expect(watchdog.leased(waiter))
        watchdog.watch(waiter, cancel: cancels.cancel)
        watchdog.expire(at: .now)
        #expect(cancels.value == 0 && !watchdog.finished(waiter))
    }

    @Test func theCheckIntervalFollowsTheTimeout() {
        #expect(LeaseWatchdog.interval(for: .seconds(10)) == .milliseconds(250))
        #expect(LeaseWatchdog.interval(for: .seconds(1)) == .milliseconds(100))
        #expect(LeaseWatchdog.interval(for: .milliseconds(50)) == .milliseconds(10))
    }
}
