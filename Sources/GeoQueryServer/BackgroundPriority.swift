#if canImport(Glibc)
import Glibc
#endif

/// The scheduling priority of the background pool's threads. On Linux the nice value belongs to
/// a thread, and `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's (the kernel reads
/// `who == 0` as the current task).
enum BackgroundPriority {
    /// The nice value of background threads: at 10 a thread gets about a tenth of what a thread
    /// at 0 gets while both want a core (CFS weights 110 and 1024).
    static let niceness: Int32 = 10

    /// Lowers the calling thread's priority to ``niceness``; a failure leaves it as it was.
    static func lowerThisThread() {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        if getpriority(which, 0) < niceness { _ = setpriority(which, 0, niceness) }
        #endif
    }
}
