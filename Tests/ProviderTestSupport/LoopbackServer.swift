import Foundation
import Hummingbird
import Logging
import NIOCore

/// A real HTTP server on 127.0.0.1 (a free port) that plays a provider in tests: it records
/// every request and answers through a handler, usually with recorded responses from
/// `Recorded/`.
///
/// It runs on Hummingbird (already the service's server) under ``OwnThreadsExecutor``: its
/// sockets on NIO's event loops and its handlers on threads outside the cooperative pool, so a
/// test process whose pool is busy still gets its answers in time.
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

        public init(
            status: Int = 200, headers: [String: String] = ["Content-Type": "application/json"], body: Data = Data(),
            delay: TimeInterval = 0
        ) {
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

    private let task: Task<Void, any Error>
    private let log: RequestLog
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL

    private init(task: Task<Void, any Error>, log: RequestLog, port: Int) {
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
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let target = URLComponents(string: request.uri.description)
            var query: [String: String] = [:]
            for item in target?.queryItems ?? [] { query[item.name] = item.value ?? "" }
            let body = try await request.body.collect(upTo: 64 << 20)
            let recorded = Request(
                method: request.method.rawValue, path: target?.path ?? request.uri.path, query: query,
                rawQuery: target?.percentEncodedQuery ?? "", headers: headers,
                body: Data(body.readableBytesView))
            let reply = await handler(recorded, await log.append(recorded))
            if reply.delay > 0 { try? await Task.sleep(nanoseconds: UInt64(reply.delay * 1e9)) }
            var fields = HTTPFields()
            for (name, value) in reply.headers {
                fields[.init(name)!] = value
            }
            return Response(
                status: HTTPResponse.Status(code: reply.status), headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
        }
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "loopback-server")
        logger.logLevel = .critical
        let application = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let task = Task(executorPreference: OwnThreadsExecutor.shared) {
            defer { portContinuation.finish() }
            try await application.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw URLError(.cannotConnectToHost)
        }
        return LoopbackServer(task: task, log: log, port: port)
    }

    /// Every request so far, in arrival order.
    public var requests: [Request] { get async { await log.all } }

    /// Stops the server; a reply still waiting out its delay is cut short.
    public func stop() async {
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
