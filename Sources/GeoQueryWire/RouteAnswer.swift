import GeoCore
import Routing

/// The route answer: `{"order", "length", "unit", "closed", "proven_optimal", "lower_bound",
/// "method", "legs": [{"from", "to", "length"}]}`, or as GeoJSON a LineString in visiting order
/// (closed for a round trip) and the stops numbered by `visit`. Lengths and bounds are rounded
/// to the thousandth of their unit (the millimetre for metres), as every distance the service
/// writes.
public struct RouteAnswer: Sendable {
    public var route: Route
    public var stops: RouteStops
    public var closed: Bool

    public init(route: Route, stops: RouteStops, closed: Bool) {
        self.route = route
        self.stops = stops
        self.closed = closed
    }

    public var json: OrderedJSON { Self.json(route, stops, closed: closed) }

    /// `value` to the thousandth: the millimetre for metres (docs/api-conventions.md).
    static func length(_ value: Double) -> OrderedJSON {
        .double(value.isFinite ? (value * 1000).rounded() / 1000 : value)
    }
    /// Needs coordinates (points or places, not a matrix).
    public var geoJSON: OrderedJSON { Self.geoJSON(route, stops, closed: closed) }

    public static func legs(_ route: Route, _ stops: RouteStops, closed: Bool) -> [(from: String, to: String, length: Double)] {
        route.legs.enumerated().map { k, length in
            (stops.ids[route.order[k]], stops.ids[route.order[(k + 1) % route.order.count]], length)
        }
    }

    public static func json(_ route: Route, _ stops: RouteStops, closed: Bool) -> OrderedJSON {
        .object([
            ("order", .array(route.order.map { .string(stops.ids[$0]) })),
            ("length", length(route.length)),
            ("unit", .string(stops.costs.unit.rawValue)),
            ("closed", .bool(closed)),
            ("proven_optimal", .bool(route.isProvenOptimal)),
            ("lower_bound", length(route.lowerBound)),
            ("method", .string(route.method)),
            (
                "legs",
                .array(
                    legs(route, stops, closed: closed).map {
                        .object([("from", .string($0.from)), ("to", .string($0.to)), ("length", length($0.length))])
                    })
            ),
        ])
    }

    public static func geoJSON(_ route: Route, _ stops: RouteStops, closed: Bool) -> OrderedJSON {
        let coordinates = stops.coordinates ?? []
        func position(_ stop: Int) -> OrderedJSON {
            .array([.double(coordinates[stop].longitude), .double(coordinates[stop].latitude)])
        }
        var line = route.order.map(position)
        if closed, let first = route.order.first { line.append(position(first)) }
        var features: [OrderedJSON] = [
            .object([
                ("type", .string("Feature")),
                ("geometry", .object([("type", .string("LineString")), ("coordinates", .array(line))])),
                (
                    "properties",
                    .object([
                        ("length", length(route.length)), ("unit", .string(stops.costs.unit.rawValue)),
                        ("proven_optimal", .bool(route.isProvenOptimal)), ("lower_bound", length(route.lowerBound)),
                        ("method", .string(route.method)),
                    ])
                ),
            ])
        ]
        for (visit, stop) in route.order.enumerated() {
            var properties: [(String, OrderedJSON)] = [("id", .string(stops.ids[stop])), ("visit", .int(visit + 1))]
            if let name = stops.names?[stop], !name.isEmpty { properties.append(("name", .string(name))) }
            features.append(
                .object([
                    ("type", .string("Feature")), ("id", .string(stops.ids[stop])),
                    ("geometry", .object([("type", .string("Point")), ("coordinates", position(stop))])),
                    ("properties", .object(properties)),
                ]))
        }
        return .object([("type", .string("FeatureCollection")), ("features", .array(features))])
    }
}
