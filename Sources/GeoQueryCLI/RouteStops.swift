import Foundation
import GeoCore
import Routing

/// The stops of `geoquery route`, read from a points or matrix file.
struct RouteStops {
    var ids: [String]
    var names: [String]?
    var coordinates: [Coordinate]?
    var costs: RouteCosts

    static func read(_ file: String) throws -> String {
        do { return try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw CLIFailure("cannot read '\(file)': \((error as NSError).localizedDescription)", exitCode: CLIFailure.usage)
        }
    }

    static func bad(_ file: String, _ reason: String) -> CLIFailure {
        CLIFailure("\(file): \(reason)", exitCode: CLIFailure.dataError)
    }

    /// GeoJSON points (a FeatureCollection, or a bare Feature or geometry list) or CSV id,lat,lon.
    static func points(file: String) throws -> RouteStops {
        let text = try read(file)
        let stops = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "{"
            ? try geoJSONPoints(text, file: file) : try csvPoints(text, file: file)
        try checkUnique(stops.ids, file: file)
        return stops
    }

    private static func geoJSONPoints(_ text: String, file: String) throws -> RouteStops {
        guard let root = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw bad(file, "not valid JSON")
        }
        let features: [[String: Any]]
        if root["type"] as? String == "FeatureCollection" {
            features = root["features"] as? [[String: Any]] ?? []
        } else if root["type"] as? String == "Feature" {
            features = [root]
        } else {
            throw bad(file, "expected a GeoJSON FeatureCollection of Point features")
        }
        var ids: [String] = [], names: [String] = [], coordinates: [Coordinate] = []
        for (number, feature) in features.enumerated() {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String == "Point",
                  let position = geometry["coordinates"] as? [Double], position.count >= 2 else {
                throw bad(file, "feature \(number + 1) is not a Point with [longitude, latitude] coordinates")
            }
            do {
                coordinates.append(try Coordinate(latitude: position[1], longitude: position[0]))
            } catch {
                throw bad(file, "feature \(number + 1): \(error)")
            }
            let id = feature["id"].flatMap(text(of:)) ?? properties["id"].flatMap(text(of:))
                ?? properties["name"].flatMap(text(of:)) ?? String(number + 1)
            ids.append(id)
            names.append(properties["name"].flatMap(text(of:)) ?? "")
        }
        return RouteStops(ids: ids, names: names.contains { !$0.isEmpty } ? names : nil,
                          coordinates: coordinates, costs: RouteCosts(points: coordinates))
    }

    private static func text(of value: Any) -> String? {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }

    /// CSV with a header; columns id, lat/latitude, lon/lng/longitude and optionally name.
    private static func csvPoints(_ text: String, file: String) throws -> RouteStops {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = String(first.dropFirst()) }
        guard let header = lines.first else { throw bad(file, "empty file") }
        let columns = header.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func column(_ names: [String]) -> Int? { columns.firstIndex { names.contains($0) } }
        guard let latitudeColumn = column(["lat", "latitude"]), let longitudeColumn = column(["lon", "lng", "longitude"]) else {
            throw bad(file, "the CSV header '\(header)' needs lat and lon columns (and id; GeoJSON points work too)")
        }
        let idColumn = column(["id"]), nameColumn = column(["name"])
        var ids: [String] = [], names: [String] = [], coordinates: [Coordinate] = []
        for (offset, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == columns.count else {
                throw bad(file, "line \(offset + 1) has \(fields.count) fields; the header has \(columns.count)")
            }
            guard let latitude = Double(fields[latitudeColumn]), let longitude = Double(fields[longitudeColumn]) else {
                throw bad(file, "line \(offset + 1): '\(fields[latitudeColumn])', '\(fields[longitudeColumn])' are not numbers")
            }
            do { coordinates.append(try Coordinate(latitude: latitude, longitude: longitude)) } catch {
                throw bad(file, "line \(offset + 1): \(error)")
            }
            ids.append(idColumn.map { fields[$0] } ?? String(ids.count + 1))
            names.append(nameColumn.map { fields[$0] } ?? "")
        }
        return RouteStops(ids: ids, names: nameColumn == nil ? nil : names, coordinates: coordinates,
                          costs: RouteCosts(points: coordinates))
    }

    /// JSON {"ids": [...], "distances": [[...]]} or a TSPLIB file.
    static func matrix(file: String) throws -> RouteStops {
        let text = try read(file)
        if text.drop(while: \.isWhitespace).first != "{" {
            do {
                let problem = try TSPLIBProblem(text: text)
                return RouteStops(ids: (1...problem.costs.count).map(String.init), names: nil, coordinates: nil, costs: problem.costs)
            } catch let error as RoutingError {
                throw bad(file, error.description)
            }
        }
        guard case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
              case .array(let rows)? = root["distances"] else {
            throw bad(file, #"expected JSON {"ids": [...], "distances": [[...], ...]}"#)
        }
        var matrix: [[Double]] = []
        for (i, row) in rows.enumerated() {
            guard case .array(let cells) = row else { throw bad(file, "distances[\(i)] is not a list") }
            matrix.append(try cells.enumerated().map { j, cell in
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
