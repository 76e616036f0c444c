import Foundation
import PlaceQuery
import PlaceQueryConformance
import PostgresTestSupport
import ProviderTestSupport
import Testing
@testable import PostGISStore

/// Friends, plans, share links, availability, albums and notifications on PostgreSQL: the same
/// conformance suite as the SQLite store.
@Suite(.waitsOnProcesses, .enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
struct PostGISPlanStoreTests {
    @Test func conformsToThePlanStoreSuite() async throws {
        let url = try TestCluster.shared!.get().createDatabase("plans")
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 4, timeout: .seconds(60))
        let failures = try await PlanStoreConformance.check(PostGISUserStore(sharingPoolsOf: index))
        #expect(failures.isEmpty, "\(failures)")
        await index.close()
    }

    @Test func conformsToThePhotoAndSessionSuite() async throws {
        let url = try TestCluster.shared!.get().createDatabase("storage")
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 4, timeout: .seconds(60))
        let failures = try await PhotoAndSessionConformance.check(PostGISUserStore(sharingPoolsOf: index))
        #expect(failures.isEmpty, "\(failures)")
        await index.close()
    }

    @Test func conformsToThePopularitySuite() async throws {
        let url = try TestCluster.shared!.get().createDatabase("popular")
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 4, timeout: .seconds(60))
        let failures = try await PopularityConformance.check(PostGISUserStore(sharingPoolsOf: index))
        #expect(failures.isEmpty, "\(failures)")
        await index.close()
    }
}
