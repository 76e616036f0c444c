import Foundation

/// The country boundaries as a light GeoJSON base map, for a map page whose tiles do not load
/// (no network, a tile server down): Natural Earth's 1:10m polygons simplified to about a
/// tenth of their points, each feature with its ISO code and name.
///
/// The shipped file is 4.5 MB gzip-compressed and a million coordinates: too much for a
/// browser to draw at every pan. Simplified with Douglas–Peucker at `tolerance` degrees (0.02°,
/// about 2 km: borders stay recognisable at the zoom levels a country fills the screen), with
/// rings smaller than the tolerance dropped, it is a few hundred KB.
public enum BaseMap {
    /// The GeoJSON FeatureCollection of the boundaries file at `path` (plain or gzip), each
    /// feature `{"type":"Feature","properties":{"code","name"},"geometry":MultiPolygon}`,
    /// coordinates rounded to 1e-4 degrees.
    /// - Throws: ``RegionError`` when the file cannot be read.
    public static func geoJSON(boundaries path: String, tolerance: Double = 0.02) throws -> [UInt8] {
        let features = try BoundaryFile.features(at: path)
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        out.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8)
        var first = true
        for feature in features {
            // A country smaller than the tolerance (Monaco, the Vatican) is drawn at a
            // twentieth of it rather than not at all.
            var polygons = simplified(feature.polygons, tolerance: tolerance)
            if polygons.isEmpty { polygons = simplified(feature.polygons, tolerance: tolerance / 20) }
            guard !polygons.isEmpty else { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            let code = RegionLocator.countryCode(feature.properties) ?? ""
            let name = feature.properties["NAME"] ?? feature.properties["ADMIN"] ?? code
            out.append(contentsOf: #"{"type":"Feature","properties":{"code":"#.utf8)
            appendString(code, to: &out)
            out.append(contentsOf: #","name":"#.utf8)
            appendString(name, to: &out)
            out.append(contentsOf: #"},"geometry":{"type":"MultiPolygon","coordinates":["#.utf8)
            for (polygonIndex, polygon) in polygons.enumerated() {
                if polygonIndex > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "["))
                for (ringIndex, ring) in polygon.enumerated() {
                    if ringIndex > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(UInt8(ascii: "["))
                    for point in stride(from: 0, to: ring.count, by: 2) {
                        if point > 0 { out.append(UInt8(ascii: ",")) }
                        out.append(contentsOf: "[\(rounded(ring[point])),\(rounded(ring[point + 1]))]".utf8)
                    }
                    out.append(UInt8(ascii: "]"))
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(contentsOf: "]}}".utf8)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    /// The polygons that are left, each with the rings that are left, after ``simplified(_:tolerance:)``.
    static func simplified(_ polygons: [[[Double]]], tolerance: Double) -> [[[Double]]] {
        polygons.compactMap { polygon -> [[Double]]? in
            guard let outer = polygon.first, let kept = simplified(outer, tolerance: tolerance) else { return nil }
            return [kept] + polygon.dropFirst().compactMap { simplified($0, tolerance: tolerance) }
        }
    }

    /// `ring` (flat `[x0, y0, …]`, closed) with Douglas–Peucker at `tolerance`; nil when what is
    /// left is no ring (fewer than four positions) or the ring fits within the tolerance.
    static func simplified(_ ring: [Double], tolerance: Double) -> [Double]? {
        let count = ring.count / 2
        guard count >= 4 else { return nil }
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for index in 0..<count {
            minX = min(minX, ring[2 * index])
            maxX = max(maxX, ring[2 * index])
            minY = min(minY, ring[2 * index + 1])
            maxY = max(maxY, ring[2 * index + 1])
        }
        guard maxX - minX > tolerance || maxY - minY > tolerance else { return nil }
        var keep = [Bool](repeating: false, count: count)
        keep[0] = true
        keep[count - 1] = true
        // The ring is closed (first == last): split it at its farthest point from the start so
        // both halves have distinct ends.
        var farthest = 1, farthestDistance = -1.0
        for index in 1..<(count - 1) {
            let dx = ring[2 * index] - ring[0], dy = ring[2 * index + 1] - ring[1]
            let distance = dx * dx + dy * dy
            if distance > farthestDistance { (farthest, farthestDistance) = (index, distance) }
        }
        keep[farthest] = true
        var stack = [(0, farthest), (farthest, count - 1)]
        while let (start, end) = stack.popLast() {
            guard end - start > 1 else { continue }
            let x0 = ring[2 * start], y0 = ring[2 * start + 1], x1 = ring[2 * end], y1 = ring[2 * end + 1]
            let dx = x1 - x0, dy = y1 - y0
            let length = (dx * dx + dy * dy).squareRoot()
            var worst = start, worstDistance = 0.0
            for index in (start + 1)..<end {
                let px = ring[2 * index] - x0, py = ring[2 * index + 1] - y0
                let distance = length > 0 ? abs(px * dy - py * dx) / length : (px * px + py * py).squareRoot()
                if distance > worstDistance { (worst, worstDistance) = (index, distance) }
            }
            if worstDistance > tolerance {
                keep[worst] = true
                stack.append((start, worst))
                stack.append((worst, end))
            }
        }
        var result: [Double] = []
        for index in 0..<count where keep[index] {
            result.append(ring[2 * index])
            result.append(ring[2 * index + 1])
        }
        return result.count >= 8 ? result : nil
    }

    private static func rounded(_ degrees: Double) -> String {
        let value = (degrees * 10_000).rounded() / 10_000
        return value == value.rounded() ? String(Int(value)) : String(value)
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20: out.append(contentsOf: String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
