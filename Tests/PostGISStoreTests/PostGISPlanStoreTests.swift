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
    /// Runs a conformance suite on a new database of the test cluster.
    static func conforms(_ name: String, _ check: (any UserDataStore) async throws -> [String]) async throws {
        let url = try TestCluster.shared!.get().createDatabase(name)
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 4, timeout: .seconds(60))
        let failures = try await check(PostGISUserStore(sharingPoolsOf: index))
        #expect(failures.isEmpty, "\(failures)")
        await index.close()
    }

    @Test func conformsToThePlanStoreSuite() async throws { try await Self.conforms("plans", PlanStoreConformance.check) }

    @Test func conformsToTheFollowSuite() async throws { try await Self.conforms("follows", FollowConformance.check) }

    @Test func conformsToThePhotoAndSessionSuite() async throws { try await Self.conforms("storage", PhotoAndSessionConformance.check) }

    @Test func conformsToThePhotoOwnershipSuite() async throws { try await Self.conforms("photo_owners", PhotoOwnershipConformance.check) }

    @Test func conformsToTheEditVersionSuite() async throws { try await Self.conforms("gem_versions", EditVersionConformance.check) }

    @Test func conformsToTheFriendLimitSuite() async throws { try await Self.conforms("friend_limit", FriendLimitConformance.check) }

    @Test func conformsToTheAttemptSuite() async throws { try await Self.conforms("attempts") { try await AttemptConformance.check($0) } }

    @Test func conformsToTheBudgetSuite() async throws { try await Self.conforms("budgets") { try await BudgetConformance.check($0) } }

    @Test func conformsToTheWebhookDeliverySuite() async throws {
        try await Self.conforms("deliveries") { try await WebhookDeliveryConformance.check($0) }
    }

    @Test func conformsToTheRandomCityMemorySuite() async throws {
        try await Self.conforms("random_cities") { try await RandomCityMemoryConformance.checkWithAccountDeletion($0) }
    }

    @Test func conformsToThePopularitySuite() async throws { try await Self.conforms("popular", PopularityConformance.check) }
}
