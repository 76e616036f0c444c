import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

@testable import PlaceStore

/// A snapshot that changes a large share of a non-empty index rebuilds its indexes in one pass
/// (``SnapshotRebuild``); a small one keeps them up row by row. Either way the index ends
/// exactly as the snapshot says, every index whole.
@Suite struct SnapshotRebuildTests {
    static func place(_ n: Int, source: String = "t", renamed: Bool = false) throws -> Place {
        var generator = SplitMix64(seed: UInt64(n) &* 7_919 &+ (source == "t" ? 0 : 1))
        return try makePlace(
            "\(source):\(n)", Double.random(in: -80...80, using: &generator), Double.random(in: -180...180, using: &generator),
            name: renamed ? "Renamed Spot \(n)" : (n % 2 == 0 ? "Café Mercado \(n)" : "Harbour Tower \(n)"),
            categories: n % 3 == 0 ? ["food.cafe", "culture"] : ["transport.station"])
    }

    /// Imports `places` as the snapshot of source `t`; answers the counts, the removals and
    /// whether the writer rebuilt.
    static func snapshot(_ places: [Place], into index: SpatiaLitePlaceIndex) throws -> (SnapshotCounts, Int, Bool) {
        try index.importSnapshot { writer in
            try writer.beginSnapshot(source: "t")
            var total = SnapshotCounts()
            for chunk in places.chunked(into: 10_000) {
                let counts = try writer.merge(Array(chunk))
                total.added += counts.added
                total.updated += counts.updated
                total.unchanged += counts.unchanged
            }
            let rebuilt = writer.rebuildsAll
            let removed = try writer.finishSnapshot().removed
            return (total, removed, rebuilt)
        }
    }

    /// Every index agrees with the table.
    static func checkIndexes(_ index: SpatiaLitePlaceIndex, triggers: Int) throws {
        try index.locked { () throws in
            let c = index.connection
            #expect(try c.scalarText("PRAGMA integrity_check") == "ok")
            #expect(try c.scalarText("SELECT rtreecheck('idx_places_geom')") == "ok")
            try c.execute("INSERT INTO places_fts (places_fts) VALUES ('integrity-check')")
            #expect(try c.scalarInt("SELECT count(*) FROM idx_places_geom_rowid") == c.scalarInt("SELECT count(*) FROM places"))
            #expect(try c.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places'") == Int64(triggers))
            #expect(try c.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'places_source'") == 1)
        }
    }

    @Test func aLargeSnapshotOverANonEmptyIndexRebuildsAndEndsExact() throws {
        try withTemporaryIndex { index, _ in
            // Another source, which the snapshots of `t` must leave alone.
            try index.upsert(try (0..<1_000).map { try Self.place($0, source: "u") })
            _ = try Self.snapshot(try (0..<20_000).map { try Self.place($0) }, into: index)
            let triggers = try index.locked { () throws in
                Int(try index.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places'") ?? 0)
            }
            #expect(triggers > 3)

            // 5 000 removed, 15 000 kept of which every 10th renamed, 40 000 new.
            let second = try (5_000..<60_000).map { try Self.place($0, renamed: $0 < 20_000 && $0 % 10 == 0) }
            let (counts, removed, rebuilt) = try Self.snapshot(second, into: index)
            #expect(rebuilt)
            #expect(counts.added == 40_000 && counts.updated == 1_500 && counts.unchanged == 13_500 && removed == 5_000)
            try Self.checkIndexes(index, triggers: triggers)
            try index.locked { () throws in
                let c = index.connection
                #expect(try c.scalarInt("SELECT count(*) FROM places") == 56_000)
                let expectedCategories =
                    (5_000..<60_000).reduce(0) { $0 + ($1 % 3 == 0 ? 2 : 1) } + (0..<1_000).reduce(0) { $0 + ($1 % 3 == 0 ? 2 : 1) }
                #expect(try c.scalarInt("SELECT count(*) FROM place_categories") == Int64(expectedCategories))
                #expect(try c.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'renamed'") == 1_500)
            }
            // Queries answer as brute force over what the snapshot says.
            let expected =
                try (5_000..<60_000).map { try Self.place($0, renamed: $0 < 20_000 && $0 % 10 == 0) }
                + (0..<1_000).map { try Self.place($0, source: "u") }
            for (latitude, longitude) in [(10.0, 20.0), (-45.0, 170.0), (60.0, -100.0)] {
                let center = try Coordinate(latitude: latitude, longitude: longitude)
                let filter = PlaceFilter(categories: [try Category("culture")])
                let found = try index.nearest(center, count: 25, filter: filter).map(\.id.rawValue)
                let brute = expected.filter { filter.matchesAttributes(of: $0) }
                    .map { ($0.id.rawValue, Geodesic.distance(center, $0.coordinate)) }
                    .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : PlaceID.utf8Precedes($0.0, $1.0) }.prefix(25).map(\.0)
                #expect(found == Array(brute))
            }

            // A nightly update touching 1 % keeps the indexes up row by row, through the triggers.
            let third = try (5_000..<60_000).map { try Self.place($0, renamed: $0 % 100 == 1) }
            let (small, _, rebuiltAgain) = try Self.snapshot(third, into: index)
            #expect(!rebuiltAgain)
            #expect(small.updated == 1_500 + 550 && small.added == 0)
            try Self.checkIndexes(index, triggers: triggers)
            try index.locked { () throws in
                #expect(try index.connection.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'renamed'") == 550)
            }
        }
    }

    @Test func aFailureDuringARebuildLeavesThePreviousIndex() throws {
        try withTemporaryIndex { index, _ in
            _ = try Self.snapshot(try (0..<8_000).map { try Self.place($0) }, into: index)
            struct Boom: Error {}
            #expect(throws: Boom.self) {
                try index.importSnapshot { writer in
                    try writer.beginSnapshot(source: "t")
                    _ = try writer.merge(try (8_000..<30_000).map { try Self.place($0) })
                    #expect(writer.rebuildsAll)
                    throw Boom()
                }
            }
            try Self.checkIndexes(
                index,
                triggers: try index.locked { () throws in
                    Int(try index.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places'") ?? 0)
                })
            try index.locked { () throws in
                #expect(try index.connection.scalarInt("SELECT count(*) FROM places") == 8_000)
                #expect(try index.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places'") ?? 0 > 3)
            }
        }
    }
}
