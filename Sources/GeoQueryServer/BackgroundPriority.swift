#if canImport(Glibc)
import Glibc
#endif

/// The scheduling class of the background pool's threads: Linux's `SCHED_IDLE`, which runs a
/// thread only on a core no ordinary thread wants, and gives the core back the moment one wakes.
///
/// A lower nice value was not enough: at nice 10 a background thread still gets about a tenth
/// of a contended core and, once running, keeps it for its time slice, so a near query that
/// woke behind it waited milliseconds (near 1 km p99 5× idle with four maximal availability
/// bodies in flight). An ordinary thread that wakes preempts a `SCHED_IDLE` one at once.
/// Background work still takes every idle core, and is never starved outright: the kernel
/// gives `SCHED_IDLE` threads a minimal weight, not none; a request whose work outlasts its
/// route's time bound is answered 503 with `Retry-After`.
enum BackgroundPriority {
    /// Linux's `SCHED_IDLE` policy number (`<linux/sched.h>`; Glibc declares it only under
    /// `_GNU_SOURCE`).
    static let idlePolicy: Int32 = 5

    /// Puts the calling thread in the idle class (on Linux the policy belongs to a thread, and
    /// `sched_setscheduler(0, …)` sets the caller's); where that fails, lowers its nice value to
    /// 10 instead; a failure of both leaves it as it was.
    static func lowerThisThread() {
        #if os(Linux)
        if sched_getscheduler(0) == idlePolicy { return }
        var parameters = sched_param(sched_priority: 0)
        if sched_setscheduler(0, idlePolicy, &parameters) == 0 { return }
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        if getpriority(which, 0) < 10 { _ = setpriority(which, 0, 10) }
        #endif
    }
}
