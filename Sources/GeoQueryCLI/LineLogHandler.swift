import Foundation
import Logging

/// The log handler of `geoquery`: lines as swift-log's `StreamLogHandler` writes them
/// (`<time> <level> <label>: <metadata> [<source>] <message>`), made for a service that writes
/// one at every request.
///
/// `StreamLogHandler` formats its whole metadata each time an entry is set (the service sets a
/// request id on every request), asks the C library for the local time of every line (glibc's
/// `localtime` checks the time zone file each time), and writes and flushes each line with a
/// system call of its own. That was 20–35 µs of server CPU per request with the access log on,
/// more than the rest of the service's own work on a query. Here metadata is only stored until a
/// line is written, the time's text is made once a second, and lines go to a ``LogOutput``,
/// which may gather them into one write (see ``LogOutput/gathersLines``).
struct LineLogHandler: LogHandler {
    let label: String
    let output: LogOutput
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, output: LogOutput, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.output = output
        self.logLevel = level
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { all.merge(provided) { _, provided in provided } }
        if let explicit = event.metadata, !explicit.isEmpty { all.merge(explicit) { _, explicit in explicit } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var line = " \(event.level)"
        if !label.isEmpty { line += " " }
        line += label
        line += ":"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += " [\(event.source)] \(event.message)\n"
        output.write(line, urgent: event.level >= .notice)
    }
}

/// Where log lines go: a file descriptor (standard error for `geoquery`), written with a lock so
/// lines never interleave.
///
/// With ``gathersLines`` off (every command but `serve`) each line is written at once. With it
/// on, lines below `notice` wait in memory, up to 64 KB and at most a quarter of a second, and
/// go out in one write; a `notice` or worse line writes them and itself at once, in order, and
/// so does ``flush()``, which runs when the process exits normally. A process killed outright
/// loses at most the last quarter second of request lines.
final class LogOutput: @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written with `lock` held.
    private let lock = NSLock()
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private var gathering = false
    private var flusherStarted = false
    private var stampSecond: time_t = -1
    private var stamp: [UInt8] = []

    /// Standard error, where `geoquery` logs.
    static let standardError = LogOutput(descriptor: 2)

    /// The most bytes that wait before a write.
    static let gatheredBytes = 64 * 1024
    /// The longest a line waits.
    static let gatheringInterval: TimeInterval = 0.25

    init(descriptor: Int32) {
        self.descriptor = descriptor
        tzset()
    }

    /// Whether lines below `notice` may wait to be written with others (see the type).
    var gathersLines: Bool {
        get { lock.withLock { gathering } }
        set {
            let startFlusher = lock.withLock { () -> Bool in
                gathering = newValue
                defer { if newValue { flusherStarted = true } }
                return newValue && !flusherStarted
            }
            if startFlusher { startFlushing() }
        }
    }

    /// Writes the current time and `line` after it, or lets them wait when lines are gathered
    /// and it is not `urgent`. One lock per line: the time is taken and written under it, so
    /// gathered lines are in the order of their times.
    func write(_ line: String, urgent: Bool) {
        var now = time(nil)
        lock.withLock {
            if now != stampSecond {
                stamp = Self.timestamp(&now)
                stampSecond = now
            }
            pending.append(contentsOf: stamp)
            pending.append(contentsOf: line.utf8)
            if urgent || !gathering || pending.count >= Self.gatheredBytes { writePending() }
        }
    }

    /// The local time to the second, as `StreamLogHandler` writes it (`2026-11-28T05:12:01+0000`);
    /// made once per second.
    private static func timestamp(_ now: inout time_t) -> [UInt8] {
        var local = tm()
        localtime_r(&now, &local)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return buffer[..<length].map { UInt8(bitPattern: $0) }
    }

    /// Writes the lines that wait.
    func flush() {
        lock.withLock { writePending() }
    }

    /// Writes `pending` and empties it; the caller holds `lock`. A failed write (a closed
    /// descriptor) drops the lines: logging never stops the program.
    private func writePending() {
        var offset = 0
        pending.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    private func startFlushing() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: Self.gatheringInterval)
                flush()
            }
        }
        thread.name = "log-flush"
        thread.start()
        if self === Self.standardError { atexit { LogOutput.standardError.flush() } }
    }
}
