import Foundation
import GeoQueryWire
import Hummingbird
import Metrics
import Prometheus

/// `/healthz`, `/metrics` (Prometheus text: per-route request counts and latency histograms
/// from ``RequestMetricsMiddleware``, and the index size) and `/openapi.json`.
extension GeoQueryService {
    func addOperationalRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let registry = ServiceMetrics.registry
        router.route(.get, "/healthz", in: &table, bound: .queries(configuration.requestTimeout)) { request, _ in
            _ = try QueryParameters(request, allowed: [])
            let places = try await healthCache.count(index)
            return .json(.object([("status", .string("ok")), ("places", .int(places))]))
        }
        router.route(.get, "/metrics", in: &table, bound: .queries(configuration.requestTimeout)) { request, _ in
            _ = try QueryParameters(request, allowed: [])
            ServiceMetrics.indexPlaces.set(Double(try await healthCache.count(index)))
            return .bytes(registry.emitToBuffer(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        router.route(.get, "/openapi.json", in: &table, bound: .none) { request, _ in
            try Self.openAPIAnswer.get().response(to: request)
        }
    }
}

extension GeoQueryService {
    /// The description, read once; revalidated by its entity tag (`no-cache`), so a client that
    /// holds it gets 304 instead of its 480 KB.
    static let openAPIAnswer = Result {
        UnchangingAnswer(bytes: try ServiceResources.openAPI(), cacheControl: "no-cache")
    }
}

/// The process's metrics: one Prometheus registry for the request metrics
/// (``RequestMetricsMiddleware``) and our own gauges, and swift-metrics bootstrapped with it so
/// that what libraries record lands in the same `/metrics` answer.
enum ServiceMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    static let indexPlaces: Prometheus.Gauge = registry.makeGauge(
        descriptor: MetricNameDescriptor(
            namespace: "geoquery", metricName: "index_places", unitName: "", helpText: "Places in the index, counted at most every 10 s."))
}

/// Files shipped with the target: the OpenAPI description and the map page.
public enum ServiceResources {
    /// The committed OpenAPI 3.1 description.
    public static func openAPI() throws -> [UInt8] {
        try read("openapi", "json")
    }

    static func read(_ name: String, _ ext: String) throws -> [UInt8] {
        guard
            let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Resources")
                ?? Bundle.module.url(forResource: name, withExtension: ext)
        else {
            throw APIProblem(.internalServerError, "the service was built without its \(name).\(ext)")
        }
        return Array(try Data(contentsOf: url))
    }
}
