import Foundation

/// CPU time that processes have used, read from `/proc/<pid>/stat` (user + system, every thread).
///
/// The service rows divide the server's CPU over a wrk run by the requests served: what a request
/// costs the server, which with the in-process call's CPU beside it says what the service adds —
/// a figure that does not depend on how many connections wait or how long a wake-up takes.
struct ProcessCPU: Sendable {
    /// The processes measured: the server, or every `postgres` process for the database's share.
    var processes: @Sendable () -> [Int32]

    static func process(_ pid: Int32) -> ProcessCPU { ProcessCPU { [pid] } }

    /// Every process whose command name is `name` (e.g. the database's backends).
    static func named(_ name: String) -> ProcessCPU {
        ProcessCPU {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).filter { pid in
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == name
            }
        }
    }

    /// CPU seconds used so far by the processes, per process id (so that a process that starts or
    /// ends during a run counts only for what it used while both readings saw it).
    func read() -> [Int32: Double] {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        var seconds: [Int32: Double] = [:]
        for pid in processes() {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields after the command name: state is field 3, utime 14 and stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            seconds[pid] = (user + system) / ticksPerSecond
        }
        return seconds
    }

    /// Runs `body` and answers its result with the CPU seconds the processes used meanwhile.
    func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let before = read()
        let result = try body()
        let after = read()
        let used = after.reduce(0.0) { total, entry in total + (before[entry.key].map { entry.value - $0 } ?? 0) }
        return (result, used)
    }

    /// CPU seconds this process has used (every thread), for the in-process rows.
    static func own() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
