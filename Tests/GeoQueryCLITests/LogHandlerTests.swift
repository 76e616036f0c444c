import Foundation
import Logging
import Testing
@testable import GeoQueryCLI

/// The CLI's log handler writes what swift-log's `StreamLogHandler` writes: the logger's
/// metadata, the line's own, the level filter.
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

    @Test func aWrittenLineCarriesTheLoggersMetadata() {
        let lines = Lines()
        var logger = Logger(label: "geoquery.test") {
            DeferredMetadataLogHandler(StreamLogHandler(label: $0, stream: Stream(lines: lines)))
        }
        logger.logLevel = .info
        logger[metadataKey: "request"] = "r-42"
        logger[metadataKey: "gone"] = "set then removed"
        logger[metadataKey: "gone"] = nil
        logger.info("hello from the test", metadata: ["extra": "x"])
        logger.debug("a line below the level")
        let text = lines.value
        #expect(text.split(separator: "\n").count == 1, "\(text)")
        #expect(text.contains("info geoquery.test: extra=x request=r-42 [GeoQueryCLITests] hello from the test"), "\(text)")
        #expect(!text.contains("set then removed") && !text.contains("below the level"), "\(text)")
        #expect(logger[metadataKey: "request"] == "r-42" && logger.logLevel == .info)
    }
}
