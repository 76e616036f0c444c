import Foundation
import Testing
@testable import PostGISStore

/// The watchdog that bounds waits for a pooled connection: it cancels only waiters still
/// waiting past their deadline, and a waiter it expired may not run its statement afterwards.
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
        let late = LeaseWatchdog.Waiter(deadline: now - .seconds(1)), lateCancels = Cancels()
        let leasedInTime = LeaseWatchdog.Waiter(deadline: now - .seconds(1)), leasedCancels = Cancels()
        let early = LeaseWatchdog.Waiter(deadline: now + .seconds(60)), earlyCancels = Cancels()
        watchdog.watch(late, cancel: lateCancels.cancel)
        watchdog.watch(leasedInTime, cancel: leasedCancels.cancel)
        watchdog.watch(early, cancel: earlyCancels.cancel)
        #expect(watchdog.leased(leasedInTime))

        watchdog.expire(at: now)
        watchdog.expire(at: now)
        #expect(lateCancels.value == 1, "cancelled once, then no longer watched")
        #expect(leasedCancels.value == 0 && earlyCancels.value == 0)
        #expect(!watchdog.leased(late), "an expired waiter may not run its statement")
        #expect(watchdog.finished(late))
        #expect(!watchdog.finished(leasedInTime) && !watchdog.finished(early))

        // A finished waiter is no longer watched, even past its deadline.
        watchdog.expire(at: now + .seconds(120))
        #expect(earlyCancels.value == 0)
    }

    @Test func aWaiterLeasedBeforeItIsWatchedIsNeverCancelled() {
        let watchdog = LeaseWatchdog()
        let waiter = LeaseWatchdog.Waiter(deadline: .now - .seconds(1)), cancels = Cancels()
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
