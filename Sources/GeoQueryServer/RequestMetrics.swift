import Foundation
import Hummingbird
import Metrics
import NIOConcurrencyHelpers

/// Per-route request counts and latency histograms, under the names and dimensions
/// Hummingbird's `MetricsMiddleware` uses (`hb.requests`, `http.server.request.duration`,
/// `hb.request.errors`, `http.server.active_requests`), so dashboards built on those keep
/// working.
///
/// Why not Hummingbird's own: it records after the body is written by wrapping every body in a
/// closure, and a closure body is written in three steps (head, body, end), each its own trip to
/// the connection's event loop. A body of one buffer is written in one. Here the request is
/// timed until its response is ready (for a streamed export, until its head is), and the body
/// stays as the route made it.
///
/// Errors: a response of status 500 or above counts in `hb.request.errors` too, as does an
/// error thrown past every other middleware (with status 500 unless it carries its own).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let cache = RequestMetricsCache()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method
        let active = cache.active(method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            let metrics = cache.endpoint(.init(route: context.endpointPath ?? "Unknown", method: method, status: response.status))
            metrics.requests.increment()
            metrics.duration.recordNanoseconds((ContinuousClock.now - start).wholeNanoseconds)
            if response.status.code >= 500 { metrics.errors.increment() }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let metrics = cache.endpoint(.init(route: context.endpointPath ?? "NotFound", method: method, status: status))
            metrics.requests.increment()
            metrics.errors.increment()
            throw error
        }
    }
}

/// The metric handles of each method and of each route, method and status, made once: making a
/// handle asks the metrics factory, which looks it up under a lock of its own.
final class RequestMetricsCache: Sendable {
    struct Endpoint: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status
    }

    struct EndpointMetrics: Sendable {
        let requests: Counter
        let duration: Metrics.Timer
        let errors: Counter

        init(_ endpoint: Endpoint) {
            let dimensions = [
                ("http.route", endpoint.route), ("http.request.method", endpoint.method.rawValue),
                ("http.response.status_code", String(endpoint.status.code)),
            ]
            requests = Counter(label: "hb.requests", dimensions: dimensions)
            duration = Metrics.Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            errors = Counter(
                label: "hb.request.errors",
                dimensions: [
                    ("http.route", endpoint.route), ("http.request.method", endpoint.method.rawValue),
                    ("error.type", String(endpoint.status.code)),
                ])
        }
    }

    private let methods = NIOLockedValueBox<[HTTPRequest.Method: Meter]>([:])
    private let endpoints = NIOLockedValueBox<[Endpoint: EndpointMetrics]>([:])

    func active(_ method: HTTPRequest.Method) -> Meter {
        methods.withLockedValue { known in
            if let meter = known[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            known[method] = meter
            return meter
        }
    }

    func endpoint(_ endpoint: Endpoint) -> EndpointMetrics {
        endpoints.withLockedValue { known in
            if let metrics = known[endpoint] { return metrics }
            let metrics = EndpointMetrics(endpoint)
            known[endpoint] = metrics
            return metrics
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (for swift-metrics' timers and NIO's `TimeAmount`).
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
