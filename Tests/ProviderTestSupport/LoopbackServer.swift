import FlyingFox
import FlyingSocks
import Foundation

/// A real HTTP server on 127.0.0.1 (a free port) that plays a provider in tests: it records
/// every request and answers through a handler, usually with recorded responses from
/// `Recorded/`.
public final class LoopbackServer: Sendable {
    /// A request as the server received it.
    public struct Request: Sendable {
        public var method: String
        /// Percent-decoded path.
        public var path: String
        /// Decoded query parameters; the last value wins for repeated names.
        public var query: [String: String]
        /// The raw percent-encoded query string.
        public var rawQuery: String
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: Data

        /// The body as JSON.
        public var jsonBody: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        }
    }

    /// What to answer.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
        /// Wait this long before answering (to make a slow server).
        public var delay: TimeInterval

        public init(status: Int = 200, headers: [String: String] = ["Content-Type": "application/json"], body: Data = Data(),
                    delay: TimeInterval = 0) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
        }

        /// A recorded response from `Recorded/NAME`.
        public static func recorded(_ name: String, status: Int = 200, headers: [String: String] = [:]) -> Reply {
            Reply(status: status, headers: ["Content-Type": "application/json"].merging(headers) { $1 }, body: Recorded.data(name))
        }

        /// A JSON text.
        public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> Reply {
            Reply(status: status, headers: ["Content-Type": "application/json"].merging(headers) { $1 }, body: Data(text.utf8))
        }
    }

    public typealias Handler = @Sendable (Request) async -> Reply

    private let server: HTTPServer
    private let task: Task<Void, any Error>
    private let log: RequestLog
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL

    private init(server: HTTPServer, task: Task<Void, any Error>, log: RequestLog, port: UInt16) {
        self.server = server
        self.task = task
        self.log = log
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Starts a server answering every request with `handler`.
    public static func start(_ handler: @escaping Handler) async throws -> LoopbackServer {
        try await start(numbered: { request, _ in await handler(request) })
    }

    /// Starts a server that answers the n-th request with `replies[n]` (the last one repeats).
    public static func start(replies: [Reply]) async throws -> LoopbackServer {
        try await start(numbered: { _, number in replies[min(number, replies.count - 1)] })
    }

    /// Starts a server whose handler also gets each request's 0-based arrival number.
    private static func start(numbered handler: @escaping @Sendable (Request, Int) async -> Reply) async throws -> LoopbackServer {
        let log = RequestLog()
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
        await server.appendRoute("*") { request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
            var query: [String: String] = [:]
            for item in request.query { query[item.name] = item.value }
            let recorded = Request(method: request.method.rawValue, path: request.path, query: query,
                                   rawQuery: request.target.query(percentEncoded: true), headers: headers,
                                   body: try await request.bodyData)
            let reply = await handler(recorded, await log.append(recorded))
            if reply.delay > 0 { try? await Task.sleep(nanoseconds: UInt64(reply.delay * 1e9)) }
            var responseHeaders = HTTPHeaders()
            for (name, value) in reply.headers { responseHeaders[HTTPHeader(name)] = value }
            return HTTPResponse(statusCode: HTTPStatusCode(reply.status, phrase: "Status \(reply.status)"),
                                headers: responseHeaders, body: reply.body)
        }
        let task = Task { try await server.run() }
        // FlyingFox waits 5 s by default. With every suite running at once on two cores, tests
        // that block their thread (a CLI run, an import) can hold the cooperative pool longer
        // than that: a CI run failed 42 times here. A slow start is not what these tests test.
        try await server.waitUntilListening(timeout: 120)
        guard case .ip4(_, let port) = await server.listeningAddress else {
            task.cancel()
            throw URLError(.cannotConnectToHost)
        }
        return LoopbackServer(server: server, task: task, log: log, port: port)
    }

    /// Every request so far, in arrival order.
    public var requests: [Request] { get async { await log.all } }

    public func stop() async {
        await server.stop(timeout: 1)
        task.cancel()
    }
}

/// Requests in arrival order.
actor RequestLog {
    private(set) var all: [LoopbackServer.Request] = []

    /// Appends and returns the request's 0-based position.
    func append(_ request: LoopbackServer.Request) -> Int {
        all.append(request)
        return all.count - 1
    }
}

/// The recorded provider responses in `Recorded/` (see its README for origin and licence).
public enum Recorded {
    public static func url(_ name: String) -> URL {
        Bundle.module.url(forResource: "Recorded/" + name, withExtension: nil)
            ?? Bundle.module.resourceURL!.appendingPathComponent("Recorded").appendingPathComponent(name)
    }

    public static func data(_ name: String) -> Data {
        guard let data = try? Data(contentsOf: url(name)) else { fatalError("no recorded response \(name) in Tests/ProviderTestSupport/Recorded") }
        return data
    }
}
