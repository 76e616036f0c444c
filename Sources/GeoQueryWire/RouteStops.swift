import Foundation
import GeoCore
import PlaceImport
import PlaceModel
import Routing

/// Stops that cannot be read: where they came from (a file name, a request body) and why.
public struct RouteInputError: ClassifiedError, Sendable {
    /// Where the stops came from: a file name, or `request body`.
    public var origin: String
    public var reason: String
    /// True when the input could not be read at all (a missing file), rather than read and found bad.
    public var isUnreadable = false

    public var description: String { "\(origin): \(reason)" }

    public init(origin: String, reason: String, isUnreadable: Bool = false) {
        self.origin = origin
        self.reason = reason
        self.isUnreadable = isUnreadable
    }
}

/// The stops of a route: ids, optional names and coordinates, and their costs. Read from
/// GeoJSON points, CSV points, a JSON matrix or TSPLIB, by the CLI and the server alike.
public struct RouteStops: Sendable {
    public var ids: [String]
    public var names: [String]?
    public var coordinates: [Coordinate]?
    public var costs: RouteCosts

    public init(ids: [String], names: [String]?, coordinates: [Coordinate]?, costs: RouteCosts) {
        self.ids = ids
        self.names = names
        self.coordinates = coordinates
        self.costs = costs
    }

    static func read(_ file: String) throws -> String {
        do { return try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw RouteInputError(origin: file, reason: "cannot read it: \((error as NSError).localizedDescription)", isUnreadable: true)
        }
    }

    static func bad(_ file: String, _ reason: String) -> RouteInputError {
        RouteInputError(origin: file, reason: reason)
    }

    /// GeoJSON points (a FeatureCollection or one Feature) or CSV with id, lat and lon columns.
    public static func points(file: String) throws -> RouteStops {
        let text = try read(file)
        let stops =
            text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "{"
            ? try geoJSONPoints(text, file: file) : try csvPoints(file: file)
        try checkUnique(stops.ids, file: file)
        return stops
    }

    /// GeoJSON points from text (a FeatureCollection or one Feature); `origin` names it in errors.
    public static func points(geoJSON text: String, origin: String) throws -> RouteStops {
        let stops = try geoJSONPoints(text, file: origin)
        try checkUnique(stops.ids, file: origin)
        return stops
    }

    /// Through GeoCore's RFC 7946 types, which check each Point and its coordinates.
    private static func geoJSONPoints(_ text: String, file: String) throws -> RouteStops {
        let data = Data(text.utf8)
        struct Kind: Decodable { var type: String }
        let features: [GeoJSON.Feature]
        do {
            if try JSONDecoder().decode(Kind.self, from: data).type == "Feature" {
                features = [try JSONDecoder().decode(GeoJSON.Feature.self, from: data)]
            } else {
                features = try JSONDecoder().decode(GeoJSON.FeatureCollection.self, from: data).features
            }
        } catch let error as GeoCoreError {
            throw bad(file, error.description)
        } catch {
            throw bad(file, "expected a GeoJSON FeatureCollection of Point features")
        }
        var ids: [String] = [], names: [String] = [], coordinates: [Coordinate] = []
        for (number, feature) in features.enumerated() {
            guard let point = feature.geometry else { throw bad(file, "feature \(number + 1) has no Point geometry") }
            let name = feature.properties?["name"]?.stringValue
            let propertyID: String? =
                switch feature.properties?["id"] {
                case .string(let text)?: text
                case .int(let number)?: String(number)
                default: nil
                }
            coordinates.append(point.coordinate)
            ids.append(feature.id ?? propertyID ?? name ?? String(number + 1))
            names.append(name ?? "")
        }
        return RouteStops(
            ids: ids, names: names.contains { !$0.isEmpty } ? names : nil,
            coordinates: coordinates, costs: RouteCosts(points: coordinates))
    }

    /// CSV with a header (PlaceImport's RFC 4180 reader: quoted fields, BOM); columns id,
    /// lat/latitude, lon/lng/longitude and optionally name.
    private static func csvPoints(file: String) throws -> RouteStops {
        var reader = try CSVReader(path: file)
        guard let header = reader.next() else { throw bad(file, "empty file") }
        let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func column(_ names: [String]) -> Int? { columns.firstIndex { names.contains($0) } }
        guard let latitudeColumn = column(["lat", "latitude"]), let longitudeColumn = column(["lon", "lng", "longitude"]) else {
            throw bad(file, "the CSV header '\(header.fields.joined(separator: ","))' needs lat and lon columns (and id; GeoJSON points work too)")
        }
        let idColumn = column(["id"]), nameColumn = column(["name"])
        var ids: [String] = [], names: [String] = [], coordinates: [Coordinate] = []
        while let record = reader.next() {
            let fields = record.fields.map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == columns.count else {
                throw bad(file, "line \(record.line) has \(fields.count) fields; the header has \(columns.count)")
            }
            guard let latitude = Double(fields[latitudeColumn]), let longitude = Double(fields[longitudeColumn]) else {
                throw bad(file, "line \(record.line): '\(fields[latitudeColumn])', '\(fields[longitudeColumn])' are not numbers")
            }
            do { coordinates.append(try Coordinate(latitude: latitude, longitude: longitude)) } catch {
                throw bad(file, "line \(record.line): \(error)")
            }
            ids.append(idColumn.map { fields[$0] } ?? String(ids.count + 1))
            names.append(nameColumn.map { fields[$0] } ?? "")
        }
        return RouteStops(
            ids: ids, names: nameColumn == nil ? nil : names, coordinates: coordinates,
            costs: RouteCosts(points: coordinates))
    }

    /// JSON {"ids": [...], "distances": [[...]]} or a TSPLIB file.
    public static func matrix(file: String) throws -> RouteStops {
        try matrix(text: try read(file), origin: file)
    }

    /// A JSON matrix or TSPLIB text; `origin` names it in errors.
    public static func matrix(text: String, origin file: String) throws -> RouteStops {
        if text.drop(while: \.isWhitespace).first != "{" {
            do {
                let problem = try TSPLIBProblem(text: text)
                return RouteStops(ids: (1...problem.costs.count).map(String.init), names: nil, coordinates: nil, costs: problem.costs)
            } catch let error as RoutingError {
                throw bad(file, error.description)
            }
        }
        guard case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
            case .array(let rows)? = root["distances"]
        else {
            throw bad(file, #"expected JSON {"ids": [...], "distances": [[...], ...]}"#)
        }
        var matrix: [[Double]] = []
        for (i, row) in rows.enumerated() {
            guard case .array(let cells) = row else { throw bad(file, "distances[\(i)] is not a list") }
            matrix.append(
                try cells.enumerated().map { j, cell in
                    switch cell {
                    case .null: return .infinity
                    case .int(let value): return Double(value)
                    case .double(let value): return value
                    default: throw bad(file, "distances[\(i)][\(j)] is not a number or null")
                    }
                })
        }
        var ids = (0..<matrix.count).map(String.init)
        if case .array(let given)? = root["ids"] {
            ids = try given.enumerated().map { k, value in
                switch value {
                case .string(let text): return text
                case .int(let number): return String(number)
                default: throw bad(file, "ids[\(k)] is not a string or integer")
                }
            }
        }
        guard ids.count == matrix.count else {
            throw bad(file, "\(ids.count) ids for \(matrix.count) matrix rows; give one id per row")
        }
        try checkUnique(ids, file: file)
        do {
            return RouteStops(ids: ids, names: nil, coordinates: nil, costs: try RouteCosts(matrix: matrix))
        } catch let error as RoutingError {
            throw bad(file, error.description)
        }
    }

    static func checkUnique(_ ids: [String], file: String) throws {
        var seen = Set<String>()
        for id in ids where !seen.insert(id).inserted {
            throw bad(file, "id '\(id)' appears twice; each stop needs its own id")
        }
    }
}

extension RouteInputError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        .unprocessable
    }
}
