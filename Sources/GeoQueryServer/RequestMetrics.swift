import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import Prometheus

/// Per-route request counts, errors and latency histograms, named as Prometheus's conventions
/// say (`_total` on counters, the unit in the name, a `# HELP` line each):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `geoquery_http_requests_total` | counter | `route`, `method`, `status` |
/// | `geoquery_http_request_errors_total` | counter (status ≥ 500) | `route`, `method`, `status` |
/// | `geoquery_http_request_duration_seconds` | histogram | `route`, `method`, `status` |
/// | `geoquery_http_active_requests` | gauge | `method` |
///
/// `route` is the route's template as the OpenAPI description names it (`/v1/places/{id}`),
/// also for a request its route refused (a 405 on a known path has its path's template), and
/// `unmatched` for a path no route has: never the raw path, whose values would make a series
/// per id.
///
/// Why not Hummingbird's `MetricsMiddleware`: it records after the body is written by wrapping
/// every body in a closure, and a closure body is written in three steps (head, body, end),
/// each its own trip to the connection's event loop. A body of one buffer is written in one.
/// Here the request is timed until its response is ready (for a streamed export, until its
/// head is), and the body stays as the route made it.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTableBox
    private let cache = RequestMetricsCache(registry: ServiceMetrics.registry)

    init(routes: RouteTableBox) { self.routes = routes }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method
        let active = cache.active(method)
        active.increment()
        defer { active.decrement() }
        do {
            let response = try await next(request, context)
            let metrics = cache.endpoint(.init(route: route(of: request, context), method: method, status: response.status))
            metrics.requests.increment()
            metrics.duration.record(ContinuousClock.now - start)
            if response.status.code >= 500 { metrics.errors.increment() }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let metrics = cache.endpoint(.init(route: route(of: request, context), method: method, status: status))
            metrics.requests.increment()
            metrics.duration.record(ContinuousClock.now - start)
            if status.code >= 500 { metrics.errors.increment() }
            throw error
        }
    }

    /// The template of the route that answered, else of the routes that have the path.
    /// (Hummingbird names a route `/v1/places/{id}` already, and every path it has no route for
    /// `NotFound`, a 405 on a known path too.)
    private func route(of request: Request, _ context: Context) -> String {
        if let path = context.endpointPath, path != "NotFound" { return path }
        return routes.table.template(forPath: request.uri.path) ?? "unmatched"
    }
}

/// The metric handles of each method and of each route, method and status, made once: making a
/// handle asks the registry, which looks it up under a lock of its own.
final class RequestMetricsCache: Sendable {
    struct Endpoint: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: HTTPResponse.Status
    }

    struct EndpointMetrics: Sendable {
        let requests: Counter
        let duration: DurationHistogram
        let errors: Counter
    }

    static var requestsName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geoquery", subsystem: "http", metricName: "requests", unitName: "total",
            helpText: "Requests answered, by route template, method and status.")
    }
    static var errorsName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geoquery", subsystem: "http", metricName: "request_errors", unitName: "total",
            helpText: "Requests answered with a status of 500 or more, by route template, method and status.")
    }
    static var durationName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geoquery", subsystem: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "Time from a request's head to its response being ready, by route template, method and status.")
    }
    static var activeName: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geoquery", subsystem: "http", metricName: "active_requests", unitName: "",
            helpText: "Requests under way, by method.")
    }

    /// Requests take tens of microseconds to seconds: buckets from 100 µs.
    // (Computed: swift-prometheus's descriptor is not `Sendable`, so it cannot be a stored static.)

    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2_500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .microseconds(2_500_000), .seconds(5), .seconds(10),
    ]

    private let registry: PrometheusCollectorRegistry
    private let methods = NIOLockedValueBox<[HTTPRequest.Method: Gauge]>([:])
    private let endpoints = NIOLockedValueBox<[Endpoint: EndpointMetrics]>([:])

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    func active(_ method: HTTPRequest.Method) -> Gauge {
        methods.withLockedValue { known in
            if let gauge = known[method] { return gauge }
            let gauge = registry.makeGauge(descriptor: Self.activeName, labels: [("method", method.rawValue)])
            known[method] = gauge
            return gauge
        }
    }

    func endpoint(_ endpoint: Endpoint) -> EndpointMetrics {
        endpoints.withLockedValue { known in
            if let metrics = known[endpoint] { return metrics }
            let labels = [("route", endpoint.route), ("method", endpoint.method.rawValue), ("status", String(endpoint.status.code))]
            let metrics = EndpointMetrics(
                requests: registry.makeCounter(descriptor: Self.requestsName, labels: labels),
                duration: registry.makeDurationHistogram(descriptor: Self.durationName, labels: labels, buckets: Self.buckets),
                errors: registry.makeCounter(descriptor: Self.errorsName, labels: labels))
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
