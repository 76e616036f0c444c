import Foundation
import Testing

/// A task executor on threads of its own, outside Swift's cooperative pool.
///
/// Every suite of `make test` runs in one process, and on a two-core machine the cooperative
/// pool has two threads. A test that blocks one (a CLI run it waits for, a brute-force check, a
/// synchronous SQLite fixture) for seconds stalls every task that needs the pool meanwhile. Work
/// whose outcome depends on time — a loopback server answering within a provider's timeout, a
/// deadline racing a reply — runs here instead, so that a busy pool makes it slower but never
/// changes what it answers.
public final class OwnThreadsExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// The executor the loopback servers and the ``Trait/ownThreads`` suites share.
    public static let shared = OwnThreadsExecutor(threads: 4)

    /// The executor of the ``Trait/waitsOnProcesses`` suites: tests that block a thread while
    /// another process works (a `geoquery` run, `psql`, `pg_ctl`). Two threads, as the
    /// cooperative pool has here, so these suites run as many tests at once as before; apart
    /// from ``shared``, so a test blocked on a CLI run that asks a loopback server never holds
    /// the thread that server needs.
    public static let processWaits = OwnThreadsExecutor(threads: 2)

    /// Starts `threads` threads that run jobs in arrival order; they live as long as the process.
    public init(threads: Int) {
        for number in 0..<max(1, threads) {
            let thread = Thread { [unowned self] in self.runJobs() }
            thread.name = "test-own-thread-\(number)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs each test of a suite (or one test) on an ``OwnThreadsExecutor``: the test body, the
/// child tasks it starts and the default actors it calls.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// The threads the tests run on.
    public var executor: OwnThreadsExecutor = .shared

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnThreadsTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Run on threads outside the cooperative pool (see ``OwnThreadsExecutor``).
    public static var ownThreads: OwnThreadsTrait { OwnThreadsTrait() }

    /// Run on ``OwnThreadsExecutor/processWaits``: for suites whose tests wait, blocking, for
    /// other processes, so that the cooperative pool stays free for the servers and database
    /// clients of the suites running beside them.
    public static var waitsOnProcesses: OwnThreadsTrait { OwnThreadsTrait(executor: .processWaits) }
}
