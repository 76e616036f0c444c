import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresTestSupport
import ProviderTestSupport
import Testing

@testable import PostGISStore

/// Snapshot imports on PostgreSQL, both ways they are written: a snapshot at least as large as
/// the other sources rebuilds the place table beside the old one and swaps it in; a smaller one
/// merges in place. Both keep the snapshot semantics (counts, removals, unchanged places keep
/// their import time, the last of two rows with one id wins, other sources untouched), and a
/// rebuilt table has every index the migrations made.
@Suite(.serialized, .waitsOnProcesses, .enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
struct PostGISSnapshotTests {
    static func place(_ source: String, _ n: Int, name: String? = nil, importedAt: Date) throws -> Place {
        try Place(
            id: PlaceID("\(source):\(n)"), name: name ?? "Place \(n) café",
            coordinate: Coordinate(latitude: Double(n % 170) - 85 + 0.25, longitude: Double(n % 359) - 179.5),
            categories: n % 2 == 0 ? [try Category("food.cafe")] : [try Category("nature.park")],
            provenance: Provenance(source: source, sourceID: String(n), importedAt: importedAt),
            region: n % 3 == 0 ? PlaceRegion(countryCode: "FR", continent: .europe) : nil)
    }

    /// Imports `places` as the snapshot of `source` in batches of 1 000; answers the counts the
    /// importer would report and the removals.
    static func snapshot(_ places: [Place], source: String, into index: PostGISPlaceIndex) throws -> (SnapshotCounts, Int) {
        try index.importSnapshot { writer in
            try writer.beginSnapshot(source: source)
            var total = SnapshotCounts()
            var offset = 0
            while offset < places.count {
                let end = min(offset + 1_000, places.count)
                total += try writer.merge(try PostGISBatch(Array(places[offset..<end])))
                offset = end
            }
            let finish = try writer.finishSnapshot()
            total += finish.counts
            return (total, finish.removed)
        }
    }

    static func counts(_ added: Int, _ updated: Int, _ unchanged: Int) -> SnapshotCounts {
        var counts = SnapshotCounts()
        counts.added = added
        counts.updated = updated
        counts.unchanged = unchanged
        return counts
    }

    /// A database of its own in the shared test cluster, migrated, with its name and an index
    /// on it (two connections); the caller closes the index.
    static func database(_ prefix: String) async throws -> (cluster: TestCluster, name: String, index: PostGISPlaceIndex) {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase(prefix)
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        return (cluster, String(url.split(separator: "/").last!), index)
    }

    @Test func bothWaysKeepTheSnapshotSemantics() async throws {
        let (cluster, name, index) = try await Self.database("snapshots")
        defer { Task { await index.close() } }
        let indexesQuery = "SELECT string_agg(indexname || ' ' || indexdef, ' | ' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'places'"
        let migratedIndexes = try cluster.psql(database: name, indexesQuery)
        let monday = Date(timeIntervalSince1970: 1_790_000_000), tuesday = monday.addingTimeInterval(86_400)

        // A first fill rebuilds (nothing else is stored). One name holds every byte COPY's text
        // format and array literals escape.
        var first = try (0..<3_000).map { try Self.place("a", $0, importedAt: monday) }
        let awkward = "Tab\there, new\nline \\ back\\slash \"quoted\" Ünïcode {brace},comma\r"
        first[42] = try Self.place("a", 42, name: awkward, importedAt: monday)
        let (filled, none) = try Self.snapshot(first, source: "a", into: index)
        #expect(filled == Self.counts(3_000, 0, 0) && none == 0)
        #expect(try cluster.psql(database: name, indexesQuery) == migratedIndexes, "the rebuilt table has the migrations' indexes")
        #expect(try await index.place(PlaceID("a:42"))?.name == awkward)
        let awkwardWords = try cluster.psql(database: name, "SELECT array_to_string(name_words, '/') FROM places WHERE id = 'a:42'")
        #expect(awkwardWords == PlaceRecord.words(awkward).joined(separator: "/") && awkwardWords.contains("unicode"), "\(awkwardWords)")

        // A small source merges in place.
        let small = try (0..<100).map { try Self.place("b", $0, importedAt: monday) }
        let (merged, _) = try Self.snapshot(small, source: "b", into: index)
        #expect(merged == Self.counts(100, 0, 0))

        // The large source again, the next day: 100 gone, 50 renamed, 200 new, one id twice
        // (the second row wins). It rebuilds, copying source b across.
        var again = try (100..<3_200).map { n in
            try Self.place("a", n, name: (1_000..<1_050).contains(n) ? "Renamed \(n)" : nil, importedAt: tuesday)
        }
        again.append(try Self.place("a", 7, name: "Seven, the last row", importedAt: tuesday))
        again.insert(try Self.place("a", 7, name: "Seven, superseded", importedAt: tuesday), at: 0)
        let (rebuilt, removed) = try Self.snapshot(again, source: "a", into: index)
        // Of the 3 000 stored, 2 901 are named again (a:7 among them): 2 850 as they were, 51 changed;
        // the second row of a:7 counts as one more update; a:0…99 but a:7 are gone.
        #expect(rebuilt == Self.counts(200, 51 + 1, 2_850) && removed == 99, "\(rebuilt) \(removed)")
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM places WHERE source = 'b'") == "100")
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM places WHERE source = 'a'") == "3101")
        #expect(try cluster.psql(database: name, indexesQuery) == migratedIndexes)
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM pg_class WHERE relname IN ('places_next', 'places_import')") == "0")
        // The rebuilt table was analysed before the swap: the planner knows its rows and the
        // sources and categories a filter asks for, without waiting for autovacuum.
        #expect(try cluster.psql(database: name, "SELECT reltuples::bigint FROM pg_class WHERE relname = 'places'") == "3201")
        let analysed =
            "SELECT string_agg(attname, ',' ORDER BY attname) FROM pg_stats WHERE tablename = 'places' AND attname IN ('source', 'categories', 'geog')"
        #expect(try cluster.psql(database: name, analysed) == "categories,geog,source")

        let unchanged = try #require(try await index.place(PlaceID("a:2000")))
        #expect(unchanged.provenance.importedAt == monday, "an unchanged place keeps its import time")
        let renamed = try #require(try await index.place(PlaceID("a:1010")))
        #expect(renamed.name == "Renamed 1010" && renamed.provenance.importedAt == tuesday)
        #expect(try await index.place(PlaceID("a:7"))?.name == "Seven, the last row")
        #expect(try await index.place(PlaceID("a:50")) == nil)
        #expect(try await index.place(PlaceID("b:50"))?.name == "Place 50 café")

        // Queries read the swapped table through its indexes, prepared statements included.
        let centre = renamed.coordinate
        let near = try await index.near(centre, radius: Distance(uncheckedMeters: 1_000), filter: .none, limit: 10, cursor: nil)
        #expect(near.matches.map(\.id.rawValue).contains("a:1010"))
        let words = try await index.near(
            centre, radius: Distance(uncheckedMeters: 1_000), filter: PlaceFilter(text: "renamed"),
            limit: 10, cursor: nil)
        #expect(words.matches.first?.id.rawValue == "a:1010")
        let ranked = try await index.ranked(filter: PlaceFilter(countries: ["FR"]), limit: 5, cursor: nil)
        #expect(ranked.matches.count == 5)

        // The small source again, in place: 10 gone, 5 renamed, 3 new.
        let smallAgain = try (10..<103).map { n in
            try Self.place("b", n, name: n < 15 ? "Renamed b\(n)" : nil, importedAt: tuesday)
        }
        let (inPlace, smallRemoved) = try Self.snapshot(smallAgain, source: "b", into: index)
        #expect(inPlace == Self.counts(3, 5, 85) && smallRemoved == 10, "\(inPlace)")
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM places WHERE source = 'a'") == "3101")
    }

    /// A first fill streams into the new table until a batch repeats an id; from there it stages,
    /// and the last row of an id still wins, across batches and within one.
    @Test func aFirstFillWithRepeatedIDsKeepsTheLastRows() async throws {
        let (cluster, name, index) = try await Self.database("firstfill")
        defer { Task { await index.close() } }
        let indexesQuery = "SELECT string_agg(indexname || ' ' || indexdef, ' | ' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'places'"
        let migratedIndexes = try cluster.psql(database: name, indexesQuery)
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        let first = try (0..<1_000).map { try Self.place("a", $0, importedAt: day) }
        let second =
            try (1_000..<2_000).map { try Self.place("a", $0, importedAt: day) }
            + [try Self.place("a", 5, name: "Five again", importedAt: day)]
        let third =
            [try Self.place("a", 2_500, name: "Superseded in its batch", importedAt: day)]
            + (try (2_000..<3_000).map { try Self.place("a", $0, importedAt: day) })
            + [
                try Self.place("a", 5, name: "Five, the last row", importedAt: day),
                try Self.place("a", 1_500, name: "Fifteen hundred, last", importedAt: day),
            ]
        let (counts, removed) = try index.importSnapshot { writer in
            try writer.beginSnapshot(source: "a")
            for batch in [first, second, third] { _ = try writer.merge(try PostGISBatch(batch)) }
            let finish = try writer.finishSnapshot()
            return (finish.counts, finish.removed)
        }
        // 3 004 rows name 3 000 ids: four rows repeat an id, each an update of it.
        #expect(counts == Self.counts(3_000, 4, 0) && removed == 0, "\(counts)")
        #expect(try cluster.psql(database: name, "SELECT count(*) || ' ' || count(DISTINCT id) FROM places") == "3000 3000")
        #expect(try await index.place(PlaceID("a:5"))?.name == "Five, the last row")
        #expect(try await index.place(PlaceID("a:1500"))?.name == "Fifteen hundred, last")
        #expect(try await index.place(PlaceID("a:2500"))?.name == "Place 2500 café")
        #expect(try await index.place(PlaceID("a:999"))?.name == "Place 999 café")
        #expect(try cluster.psql(database: name, indexesQuery) == migratedIndexes, "the filled table has the migrations' indexes")
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM pg_class WHERE relname IN ('places_next', 'places_import')") == "0")
        let near = try await index.near(
            Coordinate(latitude: Double(5 % 170) - 85 + 0.25, longitude: Double(5 % 359) - 179.5),
            radius: Distance(uncheckedMeters: 100), filter: .none, limit: 10, cursor: nil)
        #expect(near.matches.map(\.id.rawValue) == ["a:5"])
    }

    /// A batch is copied in Hilbert order, so a first fill keeps nearby places on nearby pages;
    /// a batch that names an id twice keeps its own order (the later row must win).
    @Test func aFirstFillLaysPlacesOutAlongTheHilbertCurve() async throws {
        let (cluster, name, index) = try await Self.database("hilbert")
        defer { Task { await index.close() } }
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        let places = try (0..<1_000).map { try Self.place("h", $0, importedAt: day) }
        _ = try Self.snapshot(places, source: "h", into: index)
        func key(_ place: Place) -> UInt32 { HilbertCurve.index(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude) }
        let expected = places.indices.sorted { (key(places[$0]), $0) < (key(places[$1]), $1) }.map { places[$0].id.rawValue }
        #expect(expected != places.map(\.id.rawValue), "the dump's order is not the curve's")
        let stored = try cluster.psql(database: name, "SELECT string_agg(id, ',' ORDER BY ctid) FROM places")
        #expect(stored == expected.joined(separator: ","))

        var repeated = try PostGISBatch(Array(places.prefix(10)) + [try Self.place("h", 3, name: "Three again", importedAt: day)])
        #expect(repeated.spatiallyOrdered().lines == repeated.lines)
        repeated = try PostGISBatch(Array(places.prefix(10)))
        #expect(repeated.spatiallyOrdered().lines != repeated.lines && repeated.spatiallyOrdered().lines.count == repeated.lines.count)
        #expect(repeated.spatiallyOrdered().spatiallyOrdered().lines == repeated.spatiallyOrdered().lines)
    }

    /// A place written on its own while an import runs is kept: during a first fill and a
    /// rebuild (whose new table is filled on the import's work connection) the write waits for
    /// the commit and lands in the new table; before a rebuild's filling it is copied over.
    @Test func aSingleWriteDuringAnImportIsKept() async throws {
        let (_, _, index) = try await Self.database("writeduring")
        defer { Task { await index.close() } }
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        for round in 0..<2 {
            // Round 0 is a first fill (the table is empty), round 1 a rebuild of source a.
            let places = try (0..<2_000).map { try Self.place("a", $0, name: "Round \(round) \($0)", importedAt: day) }
            let writes = try index.importSnapshot { writer -> [Task<Int, any Error>] in
                try writer.beginSnapshot(source: "a")
                _ = try writer.merge(try PostGISBatch(Array(places[..<1_000])))
                let early = try Self.place("w", 2 * round, importedAt: day)
                let duringFill = Task.detached { try await index.upsert([early]) }
                Thread.sleep(forTimeInterval: 0.3)
                _ = try writer.merge(try PostGISBatch(Array(places[1_000...])))
                // Meant to arrive while the rows are written and indexed; kept whenever it does.
                let late = try Self.place("w", 2 * round + 1, importedAt: day)
                let duringFinish = Task.detached {
                    try await Task.sleep(for: .milliseconds(30))
                    return try await index.upsert([late])
                }
                _ = try writer.finishSnapshot()
                return [duringFill, duringFinish]
            }
            for write in writes { #expect(try await write.value == 1) }
            #expect(try await index.count(source: "a") == 2_000)
            #expect(try await index.count(source: "w") == 2 * round + 2, "round \(round): every single write is kept")
            #expect(try await index.place(PlaceID("a:7"))?.name == "Round \(round) 7")
        }
    }

    /// The import's transaction waits, idle, while its work connection streams: a database that
    /// ends idle transactions after 200 ms still takes an import whose batches come slower.
    @Test func aSlowImportOutlivesTheIdleTransactionLimit() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("idlelimit")
        let name = String(url.split(separator: "/").last!)
        // Migrated first without the limit: on a loaded machine a migration's transaction can
        // sit idle past 200 ms between its statements, and this test is about the import.
        await (try await PostGISPlaceIndex.open(url, maximumConnections: 1, timeout: .seconds(60))).close()
        try cluster.psql(database: name, "ALTER DATABASE \(name) SET idle_in_transaction_session_timeout = '200ms'")
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        defer { Task { await index.close() } }
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        let counts = try index.importSnapshot { writer -> SnapshotCounts in
            try writer.beginSnapshot(source: "a")
            for part in 0..<3 {
                Thread.sleep(forTimeInterval: 0.5)
                _ = try writer.merge(try PostGISBatch(try (part * 100..<(part + 1) * 100).map { try Self.place("a", $0, importedAt: day) }))
            }
            return try writer.finishSnapshot().counts
        }
        #expect(counts == Self.counts(300, 0, 0))
        #expect(try await index.count(source: "a") == 300)
    }

    /// An import one of whose connections the server ends half-way (a restart, an
    /// administrator, a proxy's timeout) fails with an error rather than waiting, changes
    /// nothing, and leaves nothing that stops the next import.
    @Test func anImportWhoseConnectionEndsFails() async throws {
        let (cluster, name, index) = try await Self.database("connends")
        defer { Task { await index.close() } }
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        _ = try Self.snapshot(try (0..<200).map { try Self.place("a", $0, importedAt: day) }, source: "a", into: index)
        // The transaction is the session idle in one; the work connection holds the import lock.
        let sessions = [
            "transaction": "state LIKE 'idle in transaction%'",
            "work": "pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')",
        ]
        for (connection, condition) in sessions.sorted(by: { $0.key < $1.key }) {
            let started = Date()
            #expect(throws: (any Error).self, "\(connection)") {
                try index.importSnapshot { writer -> SnapshotCounts in
                    try writer.beginSnapshot(source: "a")
                    _ = try writer.merge(try PostGISBatch(try (0..<300).map { try Self.place("a", $0, name: "New \($0)", importedAt: day) }))
                    let ended = try cluster.psql(
                        database: name,
                        """
                        SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(name)' AND \(condition)
                        """)
                    #expect(ended == "1", "the import's \(connection) connection")
                    _ = try writer.merge(try PostGISBatch(try (300..<400).map { try Self.place("a", $0, importedAt: day) }))
                    return try writer.finishSnapshot().counts
                }
            }
            #expect(Date().timeIntervalSince(started) < 30, "\(connection): failed, not waited")
            #expect(try await index.count(source: "a") == 200, "\(connection)")
            #expect(try await index.place(PlaceID("a:1"))?.name == "Place 1 café", "\(connection)")
        }
        let (counts, _) = try Self.snapshot(try (0..<250).map { try Self.place("a", $0, importedAt: day) }, source: "a", into: index)
        #expect(counts == Self.counts(50, 0, 200))
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'places_%'") == "0")
    }

    /// A role at its connection limit still imports: the work connection builds every index
    /// itself when the extra one cannot be opened.
    @Test func anImportWithoutAnExtraConnectionStillFinishes() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("connlimit")
        let name = String(url.split(separator: "/").last!)
        let role = "limited_" + name.suffix(8)
        try await PostGISPlaceIndex.open(url, maximumConnections: 1, timeout: .seconds(60)).close()
        try cluster.psql(
            database: name,
            """
            CREATE ROLE \(role) LOGIN CONNECTION LIMIT 2; ALTER SCHEMA public OWNER TO \(role);
            ALTER TABLE places OWNER TO \(role); GRANT ALL ON ALL TABLES IN SCHEMA public TO \(role)
            """)
        let limitedURL = url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@")
        #expect(limitedURL != url)
        let index = try await PostGISPlaceIndex.open(limitedURL, maximumConnections: 1, timeout: .seconds(60))
        await index.close()
        let indexesQuery = "SELECT string_agg(indexdef, ' | ' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'places'"
        let migratedIndexes = try cluster.psql(database: name, indexesQuery)
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        // The transaction and the work connection take the role's two connections.
        let (counts, _) = try Self.snapshot(try (0..<500).map { try Self.place("a", $0, importedAt: day) }, source: "a", into: index)
        #expect(counts == Self.counts(500, 0, 0))
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM places") == "500")
        #expect(try cluster.psql(database: name, indexesQuery) == migratedIndexes, "every index the migrations made")
    }

    /// An upsert that names an id twice stores the last of the two, beside the other places.
    @Test func anUpsertKeepsTheLastRowOfAnID() async throws {
        let (_, _, index) = try await Self.database("upsert")
        defer { Task { await index.close() } }
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        let written = try await index.upsert([
            try Self.place("u", 1, name: "First", importedAt: day), try Self.place("u", 2, importedAt: day),
            try Self.place("u", 1, name: "Last", importedAt: day),
        ])
        #expect(written == 2)
        #expect(try await index.place(PlaceID("u:1"))?.name == "Last")
        #expect(try await index.place(PlaceID("u:2"))?.name == "Place 2 café")
        _ = try await index.upsert([try Self.place("u", 2, name: "Again", importedAt: day)])
        #expect(try await index.place(PlaceID("u:2"))?.name == "Again")
        #expect(try await index.count(source: "u") == 2)
    }

    /// A rebuild that fails leaves the previous table, its rows and indexes, and nothing beside it.
    @Test func aFailedRebuildChangesNothing() async throws {
        let (cluster, name, index) = try await Self.database("failedrebuild")
        defer { Task { await index.close() } }
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        _ = try Self.snapshot(try (0..<500).map { try Self.place("a", $0, importedAt: day) }, source: "a", into: index)
        let before = try cluster.psql(database: name, "SELECT count(*) || ' ' || count(DISTINCT content_hash) FROM places")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try index.importSnapshot { writer in
                try writer.beginSnapshot(source: "a")
                _ = try writer.merge(try PostGISBatch(try (0..<900).map { try Self.place("a", $0, name: "New \($0)", importedAt: day) }))
                _ = try writer.finishSnapshot()
                throw Boom()
            }
        }
        #expect(try cluster.psql(database: name, "SELECT count(*) || ' ' || count(DISTINCT content_hash) FROM places") == before)
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM pg_class WHERE relname IN ('places_next', 'places_import')") == "0")
        #expect(try await index.place(PlaceID("a:3"))?.name == "Place 3 café")
    }

    /// The byte-level words of an ASCII text are Foundation's, on every ASCII byte.
    @Test func asciiWordsAreFoundationsWords() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = String(
                decoding: (0..<Int.random(in: 0...24, using: &generator)).map { _ in UInt8.random(in: 0...127, using: &generator) },
                as: UTF8.self)
            #expect(PlaceRecord.asciiWords(text) == PlaceRecord.foldedWords(text), "\(Array(text.utf8))")
        }
        #expect(PlaceRecord.asciiWords("Café") == nil)
    }

    /// A COPY line's words field, written as the name is read, is the `text[]` literal of the
    /// name's words, for ASCII names and others (quotes, backslashes and tabs among them).
    @Test func copyWordsAreTheWordsArray() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09 \"\\\t\n,{}é東ß-".unicodeScalars)
        var texts = ["", " ", "Rock & Roll \"Café\"", "Zürich HB", "a\\b", "東京タワー"]
        for _ in 0..<3_000 {
            texts.append(
                String(
                    String.UnicodeScalarView(
                        (0..<Int.random(in: 0...16, using: &generator)).map { _ in
                            alphabet.randomElement(using: &generator)!
                        })))
        }
        for text in texts {
            var direct = CopyText(), expected = CopyText()
            direct.integer(1)
            expected.integer(1)
            direct.words(of: text)
            expected.array(PlaceRecord.words(text))
            direct.integer(2)
            expected.integer(2)
            #expect(direct.bytes == expected.bytes, "\(text)")
        }
    }
}
