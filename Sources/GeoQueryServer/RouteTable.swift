import Hummingbird
import PlaceQuery

/// Every route the service answers, as the OpenAPI description names them (`/v1/places/{id}`):
/// the router is built from it, a 404 on a known path with another method becomes a 405 with
/// `Allow`, and a test checks it against `openapi.json`.
public struct RouteTable: Sendable {
    public struct Entry: Sendable, Hashable {
        public var method: HTTPRequest.Method
        /// The path template, `{name}` for a parameter.
        public var path: String
    }

    public private(set) var entries: [Entry] = []

    mutating func add(_ method: HTTPRequest.Method, _ path: String) {
        entries.append(Entry(method: method, path: path))
    }

    /// The path in Hummingbird's syntax (`:name` for `{name}`).
    static func routerPath(_ template: String) -> RouterPath {
        RouterPath(
            template.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix("{") && segment.hasSuffix("}") ? ":" + segment.dropFirst().dropLast() : String(segment)
            }.joined(separator: "/"))
    }

    /// The methods allowed on a concrete path, empty when no route has that path. A literal
    /// segment wins over a parameter, as in the router: `/v1/gems/near` is not `/v1/gems/{id}`.
    func methods(forPath path: String) -> [HTTPRequest.Method] {
        match(path)?.methods ?? []
    }

    /// The template of the routes a concrete path has, nil when none has it.
    func template(forPath path: String) -> String? {
        match(path)?.template
    }

    /// The most literal template that matches `path` and the methods it has.
    private func match(_ path: String) -> (template: String, methods: [HTTPRequest.Method])? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var best: [Int] = []
        var bestTemplate: String?
        var methods: [HTTPRequest.Method] = []
        for entry in entries {
            let template = entry.path.split(separator: "/", omittingEmptySubsequences: false)
            guard template.count == parts.count else { continue }
            let matches = zip(template, parts).allSatisfy { pattern, part in
                (pattern.hasPrefix("{") && !part.isEmpty) || pattern == part
            }
            guard matches else { continue }
            // Which segments are literal, compared left to right: the earlier literal wins.
            let literal = template.map { $0.hasPrefix("{") ? 0 : 1 }
            if literal.lexicographicallyPrecedes(best) { continue }
            if best.lexicographicallyPrecedes(literal) || bestTemplate == nil {
                best = literal
                bestTemplate = entry.path
                methods = []
            }
            if !methods.contains(entry.method) { methods.append(entry.method) }
        }
        return bestTemplate.map { ($0, methods) }
    }
}

/// How a route's time is bounded.
enum RequestBound: Sendable {
    /// Routes that only read memory.
    case none
    /// Index queries: the store stops a query that runs past the time (``QueryDeadline``), which
    /// frees its thread; costs nothing per request.
    case queries(Duration)
    /// Network and CPU work (providers, routing): a timer races the handler, which is cancelled
    /// and answered 503 (a child task and a timer per request).
    case cancelling(Duration)
}

extension RouterMethods {
    /// Adds a route and records it in `table`, bounded as `bound` says.
    func route(
        _ method: HTTPRequest.Method, _ template: String, in table: inout RouteTable, bound: RequestBound,
        _ handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) {
        table.add(method, template)
        let path = RouteTable.routerPath(template)
        switch bound {
        case .none:
            on(path, method: method, use: handler)
        case .queries(let time):
            on(path, method: method) { request, context in
                try await QueryDeadline.$current.withValue(.now + time) { try await handler(request, context) }
            }
        case .cancelling(let time):
            on(path, method: method) { request, context in
                try await withDeadline(time) { try await handler(request, context) }
            }
        }
    }
}
