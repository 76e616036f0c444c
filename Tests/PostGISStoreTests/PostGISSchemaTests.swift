import Foundation
import PlaceModel
import PlaceQuery
import PostgresTestSupport
import Testing
@testable import PostGISStore

/// The PostgreSQL schema's migrations: servers that start together migrate it once, a
/// database newer than the program is refused, and a snapshot's content hash ignores only the
/// import time.
@Suite(.enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
struct PostGISSchemaTests {
    @Test func serversStartingTogetherMigrateOnce() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("migrate")
        let indexes = try await withThrowingTaskGroup(of: PostGISPlaceIndex.self) { group in
            for _ in 0..<4 { group.addTask { try await PostGISPlaceIndex.open(url, maximumConnections: 2, timeout: .seconds(60)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let name = String(url.split(separator: "/").last!)
        #expect(try cluster.psql(database: name, "SELECT count(*) || ':' || max(version) FROM geoquery_schema")
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

    @Test func theContentHashIgnoresOnlyTheImportTime() throws {
        let place = try Place(id: PlaceID("t:1"), name: "Café", coordinate: .init(latitude: 1, longitude: 2),
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
