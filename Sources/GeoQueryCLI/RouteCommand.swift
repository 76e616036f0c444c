import ArgumentParser
import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import PlaceStore
import Routing

/// `geoquery route`: the shortest visiting order of points, of places in the index, or over a
/// supplied distance matrix.
struct RouteCommand: ParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Order stops for the shortest trip: a path from --start (to --end) or a --closed round trip.",
        discussion: """
            Stops come from exactly one of:
              --points FILE   GeoJSON points (id from the feature id, else properties.id or .name) or \
            CSV with a header naming id, lat and lon columns; distances are ellipsoidal metres.
              --matrix FILE   JSON {"ids": [...], "distances": [[...]]} (null = no edge; asymmetric \
            allowed) or a TSPLIB .tsp/.atsp file (its own distance functions; ids are its node numbers).
              --places IDS    comma-separated place ids from the index.

            Without --start the path may begin anywhere, without --end it may end anywhere. Up to \
            about 30 stops the answer is proven optimal; beyond, it is the best found by --deadline, \
            with the best lower bound known.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, geojson }

    @Option(help: "GeoJSON or CSV file of points.") var points: String?
    @Option(help: "JSON or TSPLIB distance matrix file.") var matrix: String?
    @Option(help: "Comma-separated place ids from the index.") var places: String?
    @Option(help: "Id of the first stop.") var start: String?
    @Option(help: "Id of the last stop (a path).") var end: String?
    @Flag(help: "A round trip back to the first stop.") var closed = false
    @Option(help: "Time allowed, e.g. 250ms, 1s, 1.5s, 2m.") var deadline = "1s"
    @Option(help: "Seed for the randomised search.") var seed: UInt64 = 1
    @Option(help: "Output format: table, json or geojson (default: table on a terminal, else json).") var format: Format?
    @OptionGroup var index: IndexOptions

    func check() throws {
        let sources = [points, matrix, places].compactMap { $0 }
        guard sources.count == 1 else {
            throw ValidationError("give exactly one of --points FILE, --matrix FILE or --places ID,ID,…")
        }
        _ = try Self.parseDeadline(deadline)
        if closed, let end, end != start {
            throw ValidationError("--end \(end) does not fit --closed: a round trip ends where it starts (use --start)")
        }
    }

    func run() throws {
        let stops = try reportingFailures { try loadStops() }  // RouteInputError: 65, or 64 when unreadable
        func position(_ id: String?, role: String) throws -> Int? {
            guard let id else { return nil }
            guard let at = stops.ids.firstIndex(of: id) else {
                let sample = stops.ids.prefix(5).joined(separator: ", ")
                throw CLIFailure(
                    "--\(role) '\(id)' is not one of the \(stops.ids.count) stops (ids: \(sample)\(stops.ids.count > 5 ? ", …" : ""))",
                    exitCode: CLIFailure.usage)
            }
            return at
        }
        let first = try position(start, role: "start"), last = try position(end, role: "end")
        let shape: RouteShape = closed ? .closed(start: first) : .open(start: first, end: last)
        let options = RouteOptions(timeLimit: try Self.parseDeadline(deadline), seed: seed)
        let route = try reportingFailures { try RouteSolver.solve(stops.costs, shape: shape, options: options) }
        let resolved = format ?? (isatty(STDOUT_FILENO) != 0 ? .table : .json)
        let isRoundTrip = closed || (first != nil && first == last)
        switch resolved {
        case .json: Renderer.emit(RouteAnswer(route: route, stops: stops, closed: isRoundTrip).json.rendered(pretty: true) + "\n")
        case .geojson:
            guard stops.coordinates != nil else {
                throw CLIFailure(
                    "--format geojson needs coordinates; a distance matrix has none (use json or table)",
                    exitCode: CLIFailure.usage)
            }
            Renderer.emit(RouteAnswer(route: route, stops: stops, closed: isRoundTrip).geoJSON.rendered(pretty: true) + "\n")
        case .table: Renderer.emit(Self.table(route, stops, closed: isRoundTrip))
        }
    }

    /// `250ms`, `1s`, `1.5s`, `2m` or a plain number of seconds.
    static func parseDeadline(_ text: String) throws -> Duration {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)), value.isFinite, value > 0 {
                return .milliseconds(Int64((value * scale * 1000).rounded()))
            }
        }
        if let value = Double(text), value.isFinite, value > 0 { return .milliseconds(Int64((value * 1000).rounded())) }
        throw ValidationError("--deadline '\(text)' is not a duration: use e.g. 250ms, 1s, 1.5s or 2m (more than 0)")
    }

    private func loadStops() throws -> RouteStops {
        if let points { return try RouteStops.points(file: points) }
        if let matrix { return try RouteStops.matrix(file: matrix) }
        let ids = (places ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let index = try index.openIndex()
        var coordinates: [Coordinate] = [], names: [String] = []
        for id in ids {
            let placeID = try PlaceID(id)
            guard let place = try index.place(placeID) else {
                throw CLIFailure("--places: no place with id \(id) in \(index.path)", exitCode: 1)
            }
            coordinates.append(place.coordinate)
            names.append(place.name)
        }
        return RouteStops(ids: ids, names: names, coordinates: coordinates, costs: RouteCosts(points: coordinates))
    }

    // MARK: Output

    static func formatLength(_ value: Double, unit: RouteCosts.Unit) -> String {
        guard unit == .metres else { return value == value.rounded() ? String(Int(value)) : String(format: "%.3f", value) }
        return value >= 10_000 ? String(format: "%.2f km", value / 1000) : String(format: "%.1f m", value)
    }

    static func table(_ route: Route, _ stops: RouteStops, closed: Bool) -> String {
        let unit = stops.costs.unit
        var rows: [[String]] = []
        var total = 0.0
        for (visit, stop) in route.order.enumerated() {
            let leg = visit == 0 ? 0 : route.legs[visit - 1]
            total += leg
            rows.append([
                String(visit + 1), stops.ids[stop], stops.names?[stop] ?? "",
                visit == 0 ? "" : formatLength(leg, unit: unit), formatLength(total, unit: unit),
            ])
        }
        if closed, let first = route.order.first, let back = route.legs.last, route.order.count > 1 {
            total += back
            rows.append(["↩", stops.ids[first], stops.names?[first] ?? "", formatLength(back, unit: unit), formatLength(total, unit: unit)])
        }
        let hasNames = stops.names != nil
        let headers = ["#", "id"] + (hasNames ? ["name"] : []) + ["leg", "total"]
        let body = rows.map { hasNames ? $0 : [$0[0], $0[1], $0[3], $0[4]] }
        var out = TextTable(headers: headers, rows: body, rightAligned: Set([0, headers.count - 2, headers.count - 1])).rendered
        let quality =
            route.isProvenOptimal
            ? "proven optimal"
            : "not proven; lower bound \(formatLength(route.lowerBound, unit: unit))"
                + (route.lowerBound > 0 ? String(format: " (at most %.2f %% above the optimum)", route.gapBound * 100) : "")
        out +=
            "\(route.order.count) stops, \(closed ? "round trip" : "path") \(formatLength(route.length, unit: unit)), \(quality); \(route.method)\n"
        return out
    }
}
