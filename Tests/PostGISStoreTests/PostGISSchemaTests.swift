import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresTestSupport
import ProviderTestSupport
import Testing

@testable import PostGISStore

/// The PostgreSQL schema's migrations: servers that start together migrate it once, a
/// database newer than the program is refused, and a snapshot's content hash ignores only the
/// import time.
@Suite(.waitsOnProcesses, .enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
struct PostGISSchemaTests {
    @Test func serversStartingTogetherMigrateOnce() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("migrate")
        let indexes = try await withThrowingTaskGroup(of: PostGISPlaceIndex.self) { group in
            for _ in 0..<4 { group.addTask { try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let name = String(url.split(separator: "/").last!)
        #expect(
            try cluster.psql(database: name, "SELECT count(*) || ':' || max(version) FROM geoquery_schema")
                == "1:\(PostGISSchema.migrations.count)")
        for index in indexes { await index.close() }
    }

    @Test func aNewerDatabaseIsRefused() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("newer")
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        await index.close()
        try cluster.psql(database: String(url.split(separator: "/").last!), "UPDATE geoquery_schema SET version = 99")
        await #expect(throws: PostGISError.schemaTooNew(found: 99, known: PostGISSchema.migrations.count)) {
            _ = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        }
    }

    /// A version-4 database (no ranks) gets every place's rank from its record and the region
    /// rank indexes; a ranked query then answers best first.
    @Test func aVersionFourDatabaseGetsRanks() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("ranks")
        let name = String(url.split(separator: "/").last!)
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        let france = PlaceRegion(countryCode: "FR", continent: .europe)
        func place(_ id: String, _ stars: Double?, count: Int?) throws -> Place {
            try Place(
                id: PlaceID(id), name: id, coordinate: .init(latitude: 45, longitude: 2),
                rating: stars.map { try Rating(sourceValue: $0, count: count) }, region: france)
        }
        try await index.upsert([
            try place("t:a", 4, count: 3), try place("t:b", nil, count: nil), try place("t:c", 4, count: 900),
            try place("t:d", 4.5, count: 1),
        ])
        await index.close()
        try cluster.psql(
            database: name,
            """
            ALTER TABLE places DROP COLUMN rank_key; ALTER TABLE gems DROP COLUMN rank_key; UPDATE geoquery_schema SET version = 4
            """)
        let migrated = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        let page = try await migrated.ranked(filter: PlaceFilter(countries: ["FR"]), limit: 10, cursor: nil)
        #expect(page.matches.map(\.id.rawValue) == ["t:d", "t:c", "t:a", "t:b"])
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%_rank'") == "4")
        await migrated.close()
    }

    /// Migration 6 leaves the place tables without a `geography` index, and the generic plan of
    /// the prepared near statement narrows through the 2-D index: a sequential scan would give
    /// the same answers, slowly, so only the plan shows it.
    @Test func nearSearchesNarrowThroughTheTwoDimensionalIndex() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("plan")
        let name = String(url.split(separator: "/").last!)
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        var places: [Place] = []
        for n in 0..<3_000 {
            places.append(
                try Place(
                    id: PlaceID("t:\(n)"), name: "P\(n)",
                    coordinate: .init(latitude: -60 + Double(n % 120), longitude: -170 + Double(n / 120) * 13)))
        }
        try await index.upsert(places)
        await index.close()
        _ = try cluster.psql(database: name, "ANALYZE places")
        #expect(
            try cluster.psql(
                database: name,
                """
                SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename IN ('places', 'gems') AND indexdef LIKE '%gist%'
                """) == "gems_geom,places_geom")
        let plan = try cluster.psql(
            database: name,
            """
            SET plan_cache_mode = force_generic_plan; PREPARE near AS \(NearStatement<PlacesTable>.sql);
            EXPLAIN EXECUTE near(2, 45, 1000, -1, -1, '', 50, 1.9, 44.9, 2.1, 45.1, 1.9, 44.9, 2.1, 45.1)
            """)
        #expect(plan.contains("Index Scan on places_geom") || plan.contains("Index Scan using places_geom"), "\(plan)")
        #expect(!plan.contains("Seq Scan"), "\(plan)")
    }

    /// Migration 7 keys the region rank indexes by the region code as an integer, for a database
    /// made before it too, and a ranked query walks them (the server's index statistics count
    /// the scans once the pool's sessions have ended): a scan of the table would give the same
    /// answers, slowly.
    @Test func rankedQueriesWalkTheRegionKeyIndexes() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("rankkey")
        let name = String(url.split(separator: "/").last!)
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        await index.close()
        // A version-6 database: its rank indexes keyed by the code as text.
        try cluster.psql(
            database: name,
            """
            DROP INDEX places_country_rank; CREATE INDEX places_country_rank ON places (country, rank_key, id) WHERE country IS NOT NULL;
            DROP INDEX places_continent_rank; CREATE INDEX places_continent_rank ON places (continent, rank_key, id) WHERE continent IS NOT NULL;
            UPDATE geoquery_schema SET version = 6
            """)
        let migrated = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        #expect(
            try cluster.psql(
                database: name,
                """
                SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%_rank' AND indexdef LIKE '%(((ascii(%'
                """) == "4", "all four rank indexes keyed by the code's bytes")
        var places: [Place] = []
        for n in 0..<4_000 {
            let region = [
                PlaceRegion(countryCode: "FR", continent: .europe), PlaceRegion(countryCode: "FI", continent: .europe),
                PlaceRegion(countryCode: "NA", continent: .africa), PlaceRegion(countryCode: "AR", continent: .southAmerica),
            ][n % 4]
            places.append(
                try Place(
                    id: PlaceID("t:\(n)"), name: "P\(n)", coordinate: .init(latitude: 45, longitude: 2),
                    rating: n % 7 == 0 ? nil : try Rating(sourceValue: Double(n % 5) + 0.5, count: n % 13), region: region))
        }
        try await migrated.upsert(places)
        _ = try cluster.psql(database: name, "ANALYZE places")
        let france = try await migrated.ranked(filter: PlaceFilter(countries: ["FR"]), limit: 5, cursor: nil)
        let expected = places.filter { $0.region?.countryCode == "FR" }
            .sorted { PlaceRank.precedes(PlaceRank.key(of: $0), $0.id.rawValue, PlaceRank.key(of: $1), $1.id.rawValue) }
        #expect(france.matches.map(\.id) == expected.prefix(5).map(\.id))
        let europe = try await migrated.ranked(filter: PlaceFilter(continents: [.europe]), limit: 3, cursor: nil)
        #expect(europe.matches.count == 3 && europe.matches.allSatisfy { $0.place.region?.continent == .europe })
        await migrated.close()
        var scans = ""
        for _ in 0..<50 {
            scans = try cluster.psql(
                database: name,
                """
                SELECT string_agg(indexrelname || ' ' || (idx_scan > 0)::text, ', ' ORDER BY indexrelname) FROM pg_stat_user_indexes
                WHERE indexrelname IN ('places_country_rank', 'places_continent_rank')
                """)
            if scans == "places_continent_rank true, places_country_rank true" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(scans == "places_continent_rank true, places_country_rank true")
    }

    /// Migration 6 rebuilds the source indexes on the source alone (what they serve: a source's
    /// rows and counts), for the place tables of a database made before it too.
    @Test func theSourceIndexesHoldTheSourceAlone() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("sourceindex")
        let name = String(url.split(separator: "/").last!)
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        await index.close()
        let definitions = "SELECT string_agg(indexdef, ' | ' ORDER BY indexname) FROM pg_indexes WHERE indexname IN ('places_source', 'gems_source')"
        #expect(
            try cluster.psql(database: name, definitions)
                == "CREATE INDEX gems_source ON public.gems USING btree (source) | CREATE INDEX places_source ON public.places USING btree (source)")
        // A version-5 database (its source indexes on (source, id), a geography index) migrates.
        try cluster.psql(
            database: name,
            """
            DROP INDEX places_source; CREATE INDEX places_source ON places (source, id); CREATE INDEX places_geog ON places USING gist (geog);
            UPDATE geoquery_schema SET version = 5
            """)
        let migrated = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        await migrated.close()
        #expect(
            try cluster.psql(database: name, definitions)
                == "CREATE INDEX gems_source ON public.gems USING btree (source) | CREATE INDEX places_source ON public.places USING btree (source)")
        #expect(try cluster.psql(database: name, "SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%_geog'") == "0")
    }

    /// Migration 16 files gems stored before the taxonomy was closed under it, the original
    /// category kept as `source_category`; a gem inside the taxonomy is left as it is.
    @Test func gemsFromBeforeTheTaxonomyAreFiledUnderIt() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("taxonomy")
        let name = String(url.split(separator: "/").last!)
        let edited = Date(timeIntervalSince1970: 1_750_000_000)
        func gem(_ id: String, _ categories: [String]) throws -> Place {
            try Place(
                id: PlaceID(id), name: id, coordinate: Coordinate(latitude: 48.85, longitude: 2.35),
                categories: categories.map { Category(trustedIdentifier: $0) }, tags: ["wheelchair": "yes"],
                gem: HiddenGem(owner: "old", visibility: .public, description: "kept", createdAt: edited, updatedAt: edited))
        }
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        try await PostGISUserStore(sharingPoolsOf: index).createGems([
            try gem("gem:old", ["nature.viewpoint", "food.cafe", "food.ramen"]),
            try gem("gem:fine", ["water.beach"]),
        ])
        await index.close()
        try cluster.psql(database: name, "UPDATE geoquery_schema SET version = 15")
        let migrated = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60))
        let store = PostGISUserStore(sharingPoolsOf: migrated)
        let old = try #require(try await store.place(PlaceID("gem:old")))
        #expect(old.categories.map(\.identifier) == ["nature", "food.cafe", "food"])
        #expect(old.tags == ["wheelchair": "yes", "source_category": "nature.viewpoint;food.ramen"])
        #expect(old.gem?.description == "kept" && old.gem?.updatedAt == edited)
        let fine = try #require(try await store.place(PlaceID("gem:fine")))
        #expect(fine.categories.map(\.identifier) == ["water.beach"] && fine.tags == ["wheelchair": "yes"])
        #expect(
            try cluster.psql(database: name, "SELECT string_agg(DISTINCT c, ',' ORDER BY c) FROM gems, unnest(categories) c")
                == "food,food.cafe,nature,water,water.beach")
        await migrated.close()
    }

    /// The pool's statement timeout stops a statement on the server (and it fails as the seam's
    /// deadline error); a task past its deadline is refused before asking; the pool works after.
    @Test func aStatementPastItsTimeoutIsStopped() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("timeout")
        // Long enough that no ordinary statement of a loaded test machine meets it (CI once
        // failed the open's first statement at 300 ms), far shorter than the sleep below.
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60), statementTimeout: .seconds(3))
        let started = ContinuousClock.now
        await #expect(throws: PlaceQueryError.deadlineExceeded) {
            _ = try await index.rawQuery("SELECT 'a'::text, 'b'::text, 0::float8 FROM pg_sleep(120)")
        }
        // Far from both ends: a busy test process may take seconds to resume the task.
        #expect(ContinuousClock.now - started < .seconds(60), "stopped by the server, not by the sleep ending")
        await #expect(throws: PlaceQueryError.deadlineExceeded) {
            try await QueryDeadline.$current.withValue(.now - .seconds(1)) {
                _ = try await index.near(try Coordinate(latitude: 0, longitude: 0), radius: Distance(meters: 1), filter: .none, limit: 1, cursor: nil)
            }
        }
        #expect(try await index.count(source: nil) == 0, "the pool still answers")
        await index.close()
    }

    /// Only waiting for a connection is bounded: with the pool's one connection busy, a second
    /// statement is told the database is unavailable once the pool's timeout has passed, while
    /// the busy statement runs to its end; the pool answers afterwards.
    @Test func aBusyPoolAnswersUnavailableAfterItsTimeout() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("busy")
        // The timeout bounds the first connection too, which a loaded test machine may take
        // longer than that to make: try again until it is made.
        var opened: PostGISPlaceIndex?
        for _ in 0..<20 where opened == nil {
            opened = try? await PostGISPlaceIndex.open(url, maximumConnections: 1, timeout: .seconds(1))
        }
        let index = try #require(opened)
        let started = ContinuousClock.now
        let busy = Task { try await index.rawQuery("SELECT 'a'::text, 'b'::text, 0::float8 FROM pg_sleep(20)") }
        try await Task.sleep(for: .milliseconds(300))
        do {
            _ = try await index.count(source: nil)
            Issue.record("a statement waiting for the busy connection was answered")
        } catch let error as PlaceQueryError {
            guard case .storeUnavailable(let reason) = error else { throw error }
            #expect(reason.contains("no connection within"), "\(reason)")
        }
        // Far from both ends: a busy test process may take seconds to resume the task.
        #expect(ContinuousClock.now - started < .seconds(18), "the wait ended by the timeout, not by the busy statement")
        #expect(try await busy.value == 1, "the busy statement ran to its end")
        #expect(try await index.count(source: nil) == 0, "the pool answers afterwards")
        await index.close()
    }

    @Test func theContentHashIgnoresOnlyTheImportTime() throws {
        let place = try Place(
            id: PlaceID("t:1"), name: "Café", coordinate: .init(latitude: 1, longitude: 2),
            categories: [Category("food.cafe")], provenance: Provenance(source: "t", sourceID: "1"))
        var imported = place
        imported.provenance.importedAt = Date(timeIntervalSince1970: 1_800_000_000)
        var renamed = imported
        renamed.name = "Cafe"
        let (plain, hash) = try PlaceRecord.record(place)
        let (stamped, stampedHash) = try PlaceRecord.record(imported)
        #expect(hash == stampedHash && plain != stamped, "the import time is stored but not hashed")
        #expect(try PlaceRecord.record(renamed).contentHash != stampedHash)
    }
}
