import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

@testable import PlaceStore

/// The fast paths of filling an empty index — names indexed on a side thread and copied in, a
/// rollback journal instead of the WAL — and the schema version that makes the copy possible.
@Suite struct FillTests {
    static func places(_ count: Int, prefix: String = "t") throws -> [Place] {
        var generator = SplitMix64(seed: 5)
        return try (0..<count).map { n in
            try makePlace(
                "\(prefix):\(n)", Double.random(in: -80...80, using: &generator), Double.random(in: -180...180, using: &generator),
                name: n % 2 == 0 ? "Café Mercado \(n)" : "Harbour Tower \(n)",
                categories: n % 3 == 0 ? ["food.cafe", "culture"] : ["transport.station"])
        }
    }

    @Test func namesIndexedBesideABulkLoadMatchTheTableAndKeepWorking() throws {
        try withTemporaryIndex { index, _ in
            // A search first, so that this connection holds the (empty) name index's state.
            #expect(try Self.named("cafe", in: index).isEmpty)
            try index.fill { writer in
                for chunk in try Self.places(5_000).chunked(into: 1_250) { try writer.upsert(Array(chunk)) }
                #expect(writer.isBulkLoad)
            }
            try index.locked { () throws in
                let c = index.connection
                // FTS5's own check compares the index with the content table, term by term.
                try c.execute("INSERT INTO places_fts (places_fts) VALUES ('integrity-check')")
                #expect(try c.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'cafe'") == 2_500)
                #expect(try c.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'harbour'") == 2_500)
                #expect(try c.scalarInt("SELECT count(*) FROM place_categories") == 5_000 + 1_667)
                #expect(try c.scalarText("PRAGMA integrity_check") == "ok")
                #expect(try c.scalarText("PRAGMA journal_mode") == "wal")
            }
            // Later writes go through the restored triggers into the copied index.
            try index.upsert([try makePlace("t:new", 1, 1, name: "Mercado Nuevo"), try makePlace("t:0", 2, 2, name: "Renamed Hall")])
            try index.locked { () throws in
                let c = index.connection
                try c.execute("INSERT INTO places_fts (places_fts) VALUES ('integrity-check')")
                #expect(try c.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'mercado'") == 2_500)
                #expect(try c.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'renamed'") == 1)
            }
        }
    }

    @Test func anIDGivenTwiceInABulkLoadFallsBackToARebuiltNameIndex() throws {
        try withTemporaryIndex { index, _ in
            var places = try Self.places(3_000)
            places.append(try makePlace("t:7", 3, 3, name: "Second Seven", categories: ["nature"]))
            try index.fill { try $0.upsert(places) }
            try index.locked { () throws in
                let c = index.connection
                try c.execute("INSERT INTO places_fts (places_fts) VALUES ('integrity-check')")
                #expect(try c.scalarInt("SELECT count(*) FROM places_fts WHERE places_fts MATCH 'seven'") == 1)
                #expect(
                    try c.scalarText("SELECT group_concat(category) FROM place_categories WHERE pk = (SELECT pk FROM places WHERE id = 't:7')")
                        == "nature")
                #expect(try c.scalarInt("SELECT count(*) FROM places") == 3_000)
            }
        }
    }

    @Test func fillUsesARollbackJournalOnlyWhenAloneAndReturnsToWAL() throws {
        try withTemporaryIndex { index, path in
            // Another connection open: the journal cannot change, the fill runs in WAL mode.
            let other = try SpatiaLitePlaceIndex(path: path, mode: .readOnly)
            try index.fill { writer in
                try writer.upsert(try Self.places(1_500, prefix: "a"))
                #expect(try index.connection.scalarText("PRAGMA journal_mode") == "wal")
            }
            #expect(try other.count() == 1_500)
        }
        try withTemporaryIndex { index, _ in
            try index.fill { writer in
                try writer.upsert(try Self.places(1_500, prefix: "b"))
                #expect(try index.connection.scalarText("PRAGMA journal_mode") == "delete")
            }
            #expect(try index.locked { try index.connection.scalarText("PRAGMA journal_mode") } == "wal")
            // A fill of an index that has places is an ordinary WAL write.
            try index.fill { writer in
                try writer.upsert([try makePlace("b:extra", 0, 0)])
                #expect(try index.connection.scalarText("PRAGMA journal_mode") == "wal")
            }
            #expect(try index.count() == 1_501)
        }
    }

    @Test func aFailedFillLeavesTheEmptyIndexInWALMode() throws {
        try withTemporaryIndex { index, path in
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try index.fill { writer in
                    try writer.upsert(try Self.places(2_000))
                    throw Stop()
                }
            }
            #expect(try index.count() == 0)
            #expect(try index.locked { try index.connection.scalarText("PRAGMA journal_mode") } == "wal")
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
            try index.upsert([try makePlace("t:1", 1, 1)])
            #expect(try index.count() == 1)
        }
    }

    @Test func aVersionOneFileIsMigratedToANameIndexWithoutTokenCounts() throws {
        try withTemporaryIndex { index, path in
            try index.upsert([try makePlace("t:1", 1, 1, name: "São Bento"), try makePlace("t:2", 2, 2, name: "Porto Tower")])
            // Make it a version 1 file: the name index as version 1 defined it.
            try index.locked { () throws in
                try index.connection.execute(
                    """
                    DROP TABLE places_fts;
                    CREATE VIRTUAL TABLE places_fts USING fts5(
                        name, content = 'places', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
                    );
                    INSERT INTO places_fts (places_fts) VALUES ('rebuild');
                    DROP INDEX places_country_rank;
                    DROP INDEX places_continent_rank;
                    ALTER TABLE places DROP COLUMN country;
                    ALTER TABLE places DROP COLUMN continent;
                    ALTER TABLE places DROP COLUMN rank_key;
                    PRAGMA user_version = 1;
                    """)
                #expect(try index.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'places_fts_docsize'") == 1)
            }
            let migrated = try SpatiaLitePlaceIndex(path: path, mode: .readWrite)
            try migrated.locked { () throws in
                let c = migrated.connection
                #expect(try c.scalarInt("PRAGMA user_version") == Int64(Schema.currentVersion))
                #expect(try c.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'places_fts_docsize'") == 0)
                try c.execute("INSERT INTO places_fts (places_fts) VALUES ('integrity-check')")
            }
            #expect(try Self.named("sao", in: migrated) == ["t:1"])
        }
    }
}

extension FillTests {
    /// A version-2 file (no region or rank columns) gets them filled from each row's details and
    /// indexed; a ranked query then answers best first.
    @Test func aVersionTwoFileGetsRegionsAndRanks() throws {
        try withTemporaryIndex { index, path in
            let france = PlaceRegion(countryCode: "FR", continent: .europe)
            func place(_ id: String, _ stars: Double?, count: Int?, region: PlaceRegion? = france) throws -> Place {
                try Place(
                    id: PlaceID(id), name: id, coordinate: Coordinate(latitude: 45, longitude: 2),
                    rating: stars.map { try Rating(sourceValue: $0, count: count) }, region: region)
            }
            try index.upsert([
                try place("t:a", 4, count: 3), try place("t:b", nil, count: nil), try place("t:c", 4, count: 900),
                try place("t:d", 4.5, count: 1), try place("t:e", 5, count: 9, region: nil),
            ])
            try index.locked { () throws in
                try index.connection.execute(
                    """
                    DROP INDEX places_country_rank;
                    DROP INDEX places_continent_rank;
                    ALTER TABLE places DROP COLUMN country;
                    ALTER TABLE places DROP COLUMN continent;
                    ALTER TABLE places DROP COLUMN rank_key;
                    PRAGMA user_version = 2;
                    """)
            }
            let migrated = try SpatiaLitePlaceIndex(path: path, mode: .readWrite)
            try migrated.locked { () throws in
                #expect(try migrated.connection.scalarInt("PRAGMA user_version") == 3)
                #expect(try migrated.connection.scalarInt("SELECT count(*) FROM places WHERE rank_key IS NULL") == 0)
            }
            #expect(try migrated.ranked(filter: PlaceFilter(countries: ["FR"])).matches.map(\.id.rawValue) == ["t:d", "t:c", "t:a", "t:b"])
            #expect(try migrated.ranked(filter: PlaceFilter(continents: [.europe]), limit: 2).matches.map(\.id.rawValue) == ["t:d", "t:c"])
        }
    }

    /// Ids of the places whose names match `text`, through the library's name filter.
    static func named(_ text: String, in index: SpatiaLitePlaceIndex) throws -> [String] {
        try index.nearest(try Coordinate(latitude: 0, longitude: 0), count: 10, filter: PlaceFilter(text: text)).map(\.id.rawValue)
    }
}

extension Array {
    func chunked(into size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
