import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Routing

/// `POST /v1/route`: the visiting order of stops given in the body, as `geoquery route` gives it.
///
/// The body is JSON (`application/json` or `application/geo+json`), one of: a GeoJSON
/// FeatureCollection (or Feature) of points; `{"places": ["id", …]}` with ids from the index or
/// gems the caller may see (a private gem only for its owner, a friends-only one for friends);
/// `{"ids": […], "distances": [[…]]}`, a matrix (null for a missing edge). The CLI's options are
/// query parameters: `start`, `end`, `closed`, `deadline`, `seed`, `format` (json or geojson).
extension GeoQueryService {
    func addRouteRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        groups.viewers.route(.post, "/v1/route", in: &table, bound: .cancelling(configuration.requestTimeout)) { try await orderRoute($0, $1) }
    }

    /// `POST /v1/route`.
    func orderRoute(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["start", "end", "closed", "deadline", "seed", "format"])
        let contentType = request.headers[.contentType]?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let contentType, ["application/json", "application/geo+json"].contains(contentType) else {
            throw APIProblem(
                .unsupportedMediaType,
                "Content-Type '\(contentType ?? "none")' is not accepted; send the stops as application/json or application/geo+json")
        }
        if let problem = APIProblem.declaredTooLarge(request, limit: configuration.maximumBodyBytes) { throw problem }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: configuration.maximumBodyBytes)
        } catch {
            throw APIProblem(
                .contentTooLarge, "the request body is larger than \(configuration.maximumBodyBytes) bytes, the most this service accepts")
        }
        let text = String(buffer: body)
        let stops = try await readStops(text, viewer: context.identity?.username)
        guard stops.ids.count <= configuration.maximumRouteStops else {
            throw APIProblem.badRequest("\(stops.ids.count) stops is too many: a route takes at most \(configuration.maximumRouteStops)")
        }
        func position(_ name: String) throws -> Int? {
            guard let id = try parameters.single(name) else { return nil }
            guard let at = stops.ids.firstIndex(of: id) else {
                let sample = stops.ids.prefix(5).joined(separator: ", ")
                throw APIProblem.badRequest(
                    "\(name) '\(id)' is not one of the \(stops.ids.count) stops (ids: \(sample)\(stops.ids.count > 5 ? ", …" : ""))")
            }
            return at
        }
        let closedText = try parameters.single("closed")?.lowercased()
        guard closedText == nil || ["true", "false", "1", "0"].contains(closedText!) else {
            throw APIProblem.badRequest("closed '\(closedText!)' is invalid: use true or false")
        }
        let closed = closedText == "true" || closedText == "1"
        let first = try position("start"), last = try position("end")
        if closed, let last, last != first {
            throw APIProblem.badRequest("end '\(stops.ids[last])' does not fit closed=true: a round trip ends where it starts (use start)")
        }
        let timeLimit = try routeTimeLimit(parameters)
        let seed =
            try parameters.single("seed").map { text -> UInt64 in
                guard let value = UInt64(text) else { throw APIProblem.badRequest("seed '\(text)' is invalid: give a whole number from 0") }
                return value
            } ?? 1
        let format = try AnswerFormat(parameters)
        guard format != .csv else { throw APIProblem.badRequest("format 'csv' is not available for routes; use json or geojson") }
        if format == .geojson && stops.coordinates == nil {
            throw APIProblem.badRequest("format geojson needs coordinates; a distance matrix has none (use json)")
        }
        let shape: RouteShape = closed ? .closed(start: first) : .open(start: first, end: last)
        let options = RouteOptions(timeLimit: timeLimit, seed: seed)
        let route = try await onBackgroundWorker { try RouteSolver.solve(stops.costs, shape: shape, options: options) }
        let answer = RouteAnswer(route: route, stops: stops, closed: closed || (first != nil && first == last))
        return format == .geojson ? Self.geoJSONResponse(answer.geoJSON) : .json(answer.json)
    }

    static func geoJSONResponse(_ value: OrderedJSON) -> Response {
        var writer = JSONWriter()
        value.write(to: &writer)
        return .bytes(writer.bytes, contentType: "application/geo+json")
    }

    /// `deadline` as in the CLI (`250ms`, `1s`), at most ``ServiceConfiguration/maximumRouteTime``.
    func routeTimeLimit(_ parameters: QueryParameters) throws -> Duration {
        guard let text = try parameters.single("deadline") else { return .seconds(1) }
        let maximum = configuration.maximumRouteTime
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)), value.isFinite, value > 0 {
                let limit = Duration.milliseconds(Int64(min(value * scale * 1000, 1e12).rounded()))
                guard limit <= maximum else { break }
                return limit
            }
        }
        throw APIProblem.badRequest("deadline '\(text)' is invalid: give a duration such as 250ms or 1s, at most \(maximum)")
    }

    /// The stops of a route body: GeoJSON points, place ids, or a matrix. A place id is a place
    /// of the index or a gem `viewer` may see; any other is answered as unknown, so that a route
    /// tells no one that a gem they may not see exists.
    func readStops(_ text: String, viewer: String?) async throws -> RouteStops {
        let origin = "request body"
        guard let data = text.data(using: .utf8),
            let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any]
        else {
            throw RouteInputError(
                origin: origin,
                reason: #"expected a JSON object: a GeoJSON FeatureCollection of points, {"places": [ids]} or {"ids": [...], "distances": [[...]]}"#)
        }
        if root["type"] != nil { return try RouteStops.points(geoJSON: text, origin: origin) }
        if root["distances"] != nil { return try RouteStops.matrix(text: text, origin: origin) }
        guard let ids = root["places"] as? [String], !ids.isEmpty else {
            throw RouteInputError(origin: origin, reason: #"give "type" (GeoJSON points), "places" (a list of place ids) or "distances" (a matrix)"#)
        }
        guard ids.count <= configuration.maximumRouteStops else {
            throw APIProblem.badRequest("\(ids.count) stops is too many: a route takes at most \(configuration.maximumRouteStops)")
        }
        var seen = Set<String>()
        var placeIDs: [PlaceID] = []
        for text in ids {
            guard seen.insert(text).inserted else {
                throw RouteInputError(origin: origin, reason: "place '\(text)' appears twice; each stop needs its own id")
            }
            do { placeIDs.append(try PlaceID(text)) } catch { throw APIProblem.badRequest(String(describing: error)) }
        }
        let places = try await searchIndex.places(placeIDs)  // one read for every stop
        var coordinates: [Coordinate] = [], names: [String] = []
        for (text, id) in zip(ids, placeIDs) {
            guard let place = places[id], try await mayOpen(place, viewer: viewer) else {
                throw APIProblem(.unprocessableContent, "no place with id \(text); route stops must be places of the index or gems you may see")
            }
            coordinates.append(place.coordinate)
            names.append(place.name)
        }
        return RouteStops(ids: ids, names: names, coordinates: coordinates, costs: RouteCosts(points: coordinates))
    }
}
