import Foundation
import GeoCore

/// Where to put a place whose GeoJSON geometry is not a Point: the area-weighted centroid of a
/// polygon's outer rings, the length-weighted centre of lines, the mean of points — computed on
/// longitude/latitude as a plane, which is what OSM-style POIs (buildings, parks, short ways)
/// need. Shapes that cross the antimeridian are unwrapped first.
enum Centroid {
    /// The centroid of a GeoJSON geometry object, or a reason it has none.
    static func of(_ geometry: [String: JSONValue]) -> Result<Coordinate, RowRejectionReason> {
        let type = geometry["type"]?.stringValue ?? "missing"
        let coordinates = geometry["coordinates"]
        func list(_ value: JSONValue?) -> [JSONValue] { if case .array(let items)? = value { return items } else { return [] } }
        func positions(_ value: JSONValue?) -> [(Double, Double)]? {
            guard case .array(let items)? = value else { return nil }
            var result: [(Double, Double)] = []
            for item in items {
                guard case .array(let pair) = item, pair.count >= 2,
                    let lon = pair[0].doubleValue, let lat = pair[1].doubleValue
                else { return nil }
                result.append((lon, lat))
            }
            return result.isEmpty ? nil : result
        }
        var rings: [[(Double, Double)]] = []  // outer rings of polygons
        var lines: [[(Double, Double)]] = []
        var points: [(Double, Double)] = []
        switch type {
        case "MultiPoint": points = positions(coordinates) ?? []
        case "LineString": lines = positions(coordinates).map { [$0] } ?? []
        case "MultiLineString": lines = list(coordinates).compactMap(positions)
        case "Polygon": rings = list(coordinates).first.flatMap(positions).map { [$0] } ?? []
        case "MultiPolygon": rings = list(coordinates).compactMap { list($0).first.flatMap(positions) }
        default: return .failure(RowRejectionReason("geometry type \(type) is not supported"))
        }
        return of(points: points, lines: lines, rings: rings, kind: type)
    }

    /// The centroid of shapes given as (longitude, latitude) pairs: the area-weighted centroid of
    /// `rings` (outer rings), else the length-weighted centre of `lines`, else the mean of all
    /// positions. `kind` names the shape in the failure reason.
    static func of(
        points: [(Double, Double)], lines: [[(Double, Double)]], rings: [[(Double, Double)]],
        kind: String
    ) -> Result<Coordinate, RowRejectionReason> {
        let all = points + lines.flatMap { $0 } + rings.flatMap { $0 }
        guard !all.isEmpty else { return .failure(RowRejectionReason("\(kind) has no usable coordinates")) }
        // Unwrap across the antimeridian: if the shape spans more than half the world, move its
        // western longitudes east by 360° so it is contiguous.
        let longitudes = all.map(\.0)
        let unwrap = (longitudes.max()! - longitudes.min()!) > 180
        func shifted(_ p: (Double, Double)) -> (Double, Double) { unwrap && p.0 < 0 ? (p.0 + 360, p.1) : p }

        var center: (Double, Double)?
        if !rings.isEmpty {
            var area = 0.0, cx = 0.0, cy = 0.0
            for ring in rings {
                let r = ring.map(shifted)
                for i in 0..<r.count {
                    let (x0, y0) = r[i], (x1, y1) = r[(i + 1) % r.count]
                    let cross = x0 * y1 - x1 * y0
                    area += cross
                    cx += (x0 + x1) * cross
                    cy += (y0 + y1) * cross
                }
            }
            if abs(area) > 1e-18 { center = (cx / (3 * area), cy / (3 * area)) }
        }
        if center == nil, !lines.isEmpty {
            var length = 0.0, cx = 0.0, cy = 0.0
            for line in lines {
                let l = line.map(shifted)
                for i in 0..<max(0, l.count - 1) {
                    let segment = hypot(l[i + 1].0 - l[i].0, l[i + 1].1 - l[i].1)
                    length += segment
                    cx += (l[i].0 + l[i + 1].0) / 2 * segment
                    cy += (l[i].1 + l[i + 1].1) / 2 * segment
                }
            }
            if length > 0 { center = (cx / length, cy / length) }
        }
        if center == nil {
            let s = all.map(shifted)
            center = (s.map(\.0).reduce(0, +) / Double(s.count), s.map(\.1).reduce(0, +) / Double(s.count))
        }
        do {
            return .success(try Coordinate(latitude: center!.1, normalizingLongitude: center!.0))
        } catch {
            return .failure(RowRejectionReason(String(describing: error)))
        }
    }
}

/// A reason, as a value `Result` can carry.
struct RowRejectionReason: Error {
    var text: String
    init(_ text: String) { self.text = text }
}
