import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `geoquery serve` as an operator runs it: it says where it listens, answers, logs requests
/// without their query strings, and stops cleanly on SIGTERM.
@Suite struct ServeCLITests {
    /// Output collected from a pipe on a thread of its own.
    final class Collector: @unchecked Sendable {
        // @unchecked Sendable: `text` is touched only under `lock`.
        private let lock = NSLock()
        private var text = ""
        func append(_ data: Data) { lock.withLock { text += String(decoding: data, as: UTF8.self) } }
        var value: String { lock.withLock { text } }
    }

    @Test func servesAndStopsGracefullyOnSIGTERM() async throws {
        let fixture = try CLITests.fixture.get()
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["serve", "--port", "0", "--db", fixture.db]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        let collected = Collector()
        errors.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var port: Int?
        for _ in 0..<200 where port == nil {
            try await Task.sleep(for: .milliseconds(100))
            if let range = collected.value.range(of: #"on http://127\.0\.0\.1:(\d+)/ "#, options: .regularExpression) {
                port = Int(collected.value[range].dropFirst("on http://127.0.0.1:".count).prefix { $0.isNumber })
            }
        }
        let listening = try #require(port, "no 'serving … on http://127.0.0.1:PORT/' line: \(collected.value)")
        #expect(collected.value.contains("/openapi.json (API description)"))

        let url = try #require(URL(string: "http://127.0.0.1:\(listening)/v1/places/near?lat=48.8584&lon=2.2945&radius=5km&limit=2"))
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(json?["count"] as? Int == 2)

        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!process.isRunning, "SIGTERM stops the service")
        #expect(process.terminationStatus == 0)
        let log = collected.value
        #expect(log.contains("path=/v1/places/near") && log.contains("status=200"), "an access log line per request: \(log)")
        #expect(!log.contains("lat=48.8584"), "query strings are not logged")
    }

    @Test func badSettingsExitWithTheirSentence() throws {
        let port = try CLI.run(["serve", "--port", "70000"])
        #expect(port.status == 64 && port.stderr.contains("--port 70000 is invalid: it must be from 0 to 65535"))
        let missing = try CLI.run(["serve", "--db", "/nonexistent/places.sqlite"])
        #expect(missing.status == 66 && missing.stderr.contains("no place index at /nonexistent/places.sqlite"))
    }
}
