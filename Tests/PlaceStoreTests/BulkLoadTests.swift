import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

@testable import PlaceStore

/// A bulk load (the first large write to an empty index) sets SpatiaLite's triggers aside and
/// builds the spatial index as a packed R*Tree; the file must come out as if every row had gone
/// in one by one.
@Suite struct BulkLoadTests {
    static func triggers(_ connection: SQLiteConnection) throws -> [String] {
        let rows = try connection.prepare("SELECT name || ':' || sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places' ORDER BY name")
        var result: [String] = []
        while try rows.step() { result.append(rows.text(0) ?? "") }
        return result
    }

    @Test func aBulkLoadLeavesAValidSpatiaLiteIndexAndItsTriggers() throws {
        try withTemporaryIndex { index, _ in
            let before = try index.locked { try Self.triggers(index.connection) }
            #expect(before.count >= 8)
            var generator = SplitMix64(seed: 11)
            var places: [Place] = []
            for n in 0..<6_000 {  // more than one level of R*Tree nodes, poles and antimeridian included
                let latitude = n < 4 ? [90.0, -90, 0, 0][n] : Double.random(in: -89.9...89.9, using: &generator)
                let longitude = n < 4 ? [0.0, 0, 180, -180][n] : Double.random(in: -180...180, using: &generator)
                places.append(try makePlace("t:\(n)", latitude, longitude))
            }
            places.append(try makePlace("t:17", 1, 2))  // the same id twice: the later one wins
            let written = try index.write { writer in
                let counts = try writer.upsertCounting(try EncodedBatch(places))
                #expect(writer.isBulkLoad)
                return counts
            }
            #expect(written.inserted == 6_000 && written.updated == 1)
            try index.locked { () throws in
                let c = index.connection
                #expect(try c.scalarText("SELECT rtreecheck('idx_places_geom')") == "ok")
                #expect(try c.scalarInt("SELECT CheckSpatialIndex('places', 'geom')") == 1)
                #expect(try c.scalarText("PRAGMA integrity_check") == "ok")
                #expect(try c.scalarInt("SELECT count(*) FROM idx_places_geom") == 6_000)
                #expect(try c.scalarInt("SELECT count(*) FROM idx_places_geom_node") ?? 0 > 100)
                // Geometries written in Swift are byte for byte what MakePoint makes.
                #expect(try c.scalarInt("SELECT count(*) FROM places WHERE geom = MakePoint(lon, lat, 4326)") == 6_000)
                // Every point's box holds the point exactly.
                #expect(
                    try c.scalarInt(
                        """
                        SELECT count(*) FROM places p JOIN idx_places_geom r ON r.pkid = p.pk
                        WHERE r.xmin <= p.lon AND r.xmax >= p.lon AND r.ymin <= p.lat AND r.ymax >= p.lat
                        """) == 6_000)
                #expect(try Self.triggers(c) == before)
                #expect(try c.scalarInt("SELECT count(*) FROM place_categories") == 6_000)
                #expect(try c.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'place'") == 6_000)
            }
            #expect(try index.place(PlaceID("t:17"))?.coordinate == (try Coordinate(latitude: 1, longitude: 2)))
            #expect(try index.near(try Coordinate(latitude: 1, longitude: 2), radius: Distance(meters: 1)).matches.map(\.id.rawValue) == ["t:17"])

            // Later writes go through the restored triggers and keep the tree right.
            try index.upsert([try makePlace("t:new", -45.5, 170.25)])
            try index.write { _ = try $0.delete([PlaceID("t:2"), PlaceID("t:3"), PlaceID("t:100")]) }
            try index.locked { () throws in
                let c = index.connection
                #expect(try c.scalarText("SELECT rtreecheck('idx_places_geom')") == "ok")
                #expect(try c.scalarInt("SELECT CheckSpatialIndex('places', 'geom')") == 1)
                #expect(try c.scalarInt("SELECT count(*) FROM idx_places_geom") == 5_998)
                #expect(try c.scalarInt("SELECT count(*) FROM places WHERE geom = MakePoint(lon, lat, 4326)") == 5_998)
            }
            #expect(try index.near(try Coordinate(latitude: -45.5, longitude: 170.25), radius: Distance(meters: 1)).matches.count == 1)
            #expect(try index.near(try Coordinate(latitude: 0, longitude: 180), radius: Distance(meters: 1)).matches.isEmpty)
            #expect(try index.near(try Coordinate(latitude: 90, longitude: 0), radius: Distance(meters: 1)).matches.map(\.id.rawValue) == ["t:0"])
        }
    }

    @Test func rtreeRoundingNeverShrinksABox() {
        var generator = SplitMix64(seed: 5)
        for _ in 0..<100_000 {
            let value = Double.random(in: -180...180, using: &generator)
            #expect(Double(PackedRTree.roundDown(value)) <= value && Double(PackedRTree.roundUp(value)) >= value)
        }
        #expect(PackedRTree.roundDown(0) == 0 && PackedRTree.roundUp(-180) == -180)
    }
}
