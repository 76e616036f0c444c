import Foundation
import Testing

@testable import Regions

/// The map page's base map: the shipped borders simplified, still a valid GeoJSON that holds
/// the countries where they are.
struct BaseMapTests {
    static let boundaries = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("geodata/countries.geojson.gz").path

    @Test func simplifyingKeepsCornersAndDropsWhatIsSmallerThanTheTolerance() {
        // A square of 1° with a point every 0.1° along its edges, and a wiggle of 0.001°.
        var ring: [Double] = []
        for step in 0..<10 { ring += [Double(step) / 10, step == 5 ? 0.001 : 0] }
        for step in 0..<10 { ring += [1, Double(step) / 10] }
        for step in 0..<10 { ring += [1 - Double(step) / 10, 1] }
        for step in 0..<10 { ring += [0, 1 - Double(step) / 10] }
        ring += [0, 0]
        let simplified = BaseMap.simplified(ring, tolerance: 0.02)
        #expect(simplified == [0, 0, 1, 0, 1, 1, 0, 1, 0, 0])
        // A rock of 0.01° is no ring at this tolerance; at a finer one it stays.
        let rock = [0, 0, 0.01, 0, 0.01, 0.01, 0, 0.01, 0, 0]
        #expect(BaseMap.simplified(rock, tolerance: 0.02) == nil)
        #expect(BaseMap.simplified(rock, tolerance: 0.001) == rock)
    }

    @Test func theShippedBordersBecomeALightValidGeoJSON() throws {
        let bytes = try BaseMap.geoJSON(boundaries: Self.boundaries)
        #expect(bytes.count < 3_000_000, "\(bytes.count) bytes: light enough to draw")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(document["type"] as? String == "FeatureCollection")
        let features = try #require(document["features"] as? [[String: Any]])
        #expect(features.count >= 240, "every country and territory: \(features.count)")
        var codes: Set<String> = []
        for feature in features {
            let properties = try #require(feature["properties"] as? [String: String])
            if let code = properties["code"], !code.isEmpty { codes.insert(code) }
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "MultiPolygon")
            let polygons = try #require(geometry["coordinates"] as? [[[[Double]]]])
            for ring in polygons.flatMap({ $0 }) {
                #expect(ring.count >= 4 && ring.first == ring.last, "\(properties["name"] ?? "?"): a closed ring")
            }
        }
        #expect(codes.isSuperset(of: ["FR", "MC", "AD", "US", "NZ", "FJ", "IS"]))
        // Paris is still in France, and Monaco still has a shape at ~2 km.
        let france = try #require(features.first { ($0["properties"] as? [String: String])?["code"] == "FR" })
        let rings = try #require((france["geometry"] as? [String: Any])?["coordinates"] as? [[[[Double]]]])
        #expect(rings.contains { Self.contains($0[0], x: 2.3522, y: 48.8566) })
    }

    /// Whether the ring (`[[x, y]]`) holds the point (even–odd rule).
    static func contains(_ ring: [[Double]], x: Double, y: Double) -> Bool {
        var inside = false
        var previous = ring[ring.count - 1]
        for point in ring {
            if (point[1] > y) != (previous[1] > y), x < (previous[0] - point[0]) * (y - point[1]) / (previous[1] - point[1]) + point[0] {
                inside.toggle()
            }
            previous = point
        }
        return inside
    }
}
