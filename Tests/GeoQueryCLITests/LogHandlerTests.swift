import Foundation
import Logging
import Testing

@testable import GeoQueryCLI
@testable import GeoQueryServer

/// The CLI's log handler writes what swift-log's `StreamLogHandler` writes (the logger's
/// metadata, the line's own, the level filter), and `serve`'s gathered lines are all written,
/// in order.
struct LogHandlerTests {
    /// Lines written, kept under a lock (the handler may write from any thread).
    final class Lines: TextOutputStream, @unchecked Sendable {
        // @unchecked Sendable: `text` is only touched under `lock`.
        private let lock = NSLock()
        private var text = ""
        func write(_ string: String) { lock.withLock { text += string } }
        var value: String { lock.withLock { text } }
    }

    /// A stream handed to `StreamLogHandler` by value; writes go to the shared `Lines`.
    struct Stream: TextOutputStream, Sendable {
        let lines: Lines
        mutating func write(_ string: String) { lines.write(string) }
    }

    /// A file the output writes to, and what it holds so far.
    final class LogFile {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).txt")
        let descriptor: Int32
        init() { descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600) }
        deinit {
            close(descriptor)
            try? FileManager.default.removeItem(at: url)
        }
        var text: String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
    }

    @Test func aWrittenLineIsTheLineStreamLogHandlerWrites() throws {
        let file = LogFile()
        let output = LogOutput(descriptor: file.descriptor)
        let lines = Lines()
        var ours = Logger(label: "geoquery.test") { LineLogHandler(label: $0, output: output, level: .info, metadataProvider: nil) }
        var theirs = Logger(label: "geoquery.test") { label in
            var handler = StreamLogHandler(label: label, stream: Stream(lines: lines), metadataProvider: nil)
            handler.logLevel = .info
            return handler
        }
        ours[metadataKey: "request"] = "r-42"
        theirs[metadataKey: "request"] = "r-42"
        ours[metadataKey: "gone"] = "set then removed"
        ours[metadataKey: "gone"] = nil
        struct Failure: Error, CustomStringConvertible { var description: String { "the disk is full" } }
        for logger in [ours, theirs] {
            logger.info("hello from the test", metadata: ["extra": "x", "count": .stringConvertible(3), "list": ["a", "b"]])
            logger.debug("a line below the level")
            logger.warning("a warning with an error", error: Failure())
        }
        let text = file.text
        #expect(text.split(separator: "\n").count == 2, "\(text)")
        #expect(
            text.contains("info geoquery.test: count=3 extra=x list=[\"a\", \"b\"] request=r-42 [GeoQueryCLITests] hello from the test"), "\(text)")
        #expect(!text.contains("set then removed") && !text.contains("below the level"), "\(text)")
        // Line for line what StreamLogHandler writes, but for the second the time was taken in.
        func withoutTime(_ text: String) -> [String] { text.split(separator: "\n").map { String($0.drop { $0 != " " }) } }
        #expect(withoutTime(text) == withoutTime(lines.value), "\(text)\n\(lines.value)")
        #expect(
            text.split(separator: "\n").allSatisfy { $0.prefix(24).allSatisfy { !$0.isWhitespace } && $0.dropFirst(24).first == " " },
            "each line starts with the time as 2026-11-28T05:12:01+0000: \(text)")
        #expect(ours[metadataKey: "request"] == "r-42" && ours.logLevel == .info)
    }

    @Test func gatheredLinesWaitForAWarningOrAFlushAndKeepTheirOrder() throws {
        let file = LogFile()
        let output = LogOutput(descriptor: file.descriptor)
        output.gathersLines = true
        let logger = Logger(label: "geoquery.serve") { LineLogHandler(label: $0, output: output, level: .info, metadataProvider: nil) }
        logger.info("first request")
        logger.info("second request")
        #expect(!file.text.contains("first request"), "request lines wait to be written together")
        logger.warning("something to see at once")
        let lines = file.text.split(separator: "\n")
        #expect(
            lines.count == 3 && lines[0].hasSuffix("first request") && lines[1].hasSuffix("second request")
                && lines[2].hasSuffix("something to see at once"), "\(lines)")
        logger.info("third request")
        output.flush()
        #expect(file.text.hasSuffix("third request\n"))

        // Enough lines to pass the gathered bytes are written without waiting.
        let many = LogOutput.gatheredBytes / 50 + 10
        for number in 0..<many { logger.info("request \(number) of a burst") }
        #expect(file.text.contains("request 0 of a burst"))
        output.flush()
        #expect(file.text.split(separator: "\n").count == 4 + many)
    }

    @Test func requestDurationsAreMillisecondsToTwoDecimals() {
        #expect(AccessLogMiddleware<ServiceRequestContext>.milliseconds(.microseconds(412)) == "0.41")
        #expect(AccessLogMiddleware<ServiceRequestContext>.milliseconds(.microseconds(5)) == "0.01")
        #expect(AccessLogMiddleware<ServiceRequestContext>.milliseconds(.microseconds(4)) == "0.00")
        #expect(AccessLogMiddleware<ServiceRequestContext>.milliseconds(.milliseconds(1_234) + .microseconds(567)) == "1234.57")
        #expect(AccessLogMiddleware<ServiceRequestContext>.milliseconds(.seconds(2)) == "2000.00")
    }
}
