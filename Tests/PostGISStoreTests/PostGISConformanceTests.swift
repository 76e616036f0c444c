import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceQueryConformance
import PostgresTestSupport
import Testing
@testable import PostGISStore

/// The PostGIS place index against the same conformance suite as SpatiaLite (brute force on
/// 20 000 seeded places: clusters, poles, the antimeridian, gems of two owners, three viewers),
/// on a real PostgreSQL cluster started for the test run.
@Suite(.serialized, .enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
struct PostGISConformanceTests {
    final class Fixture: Sendable {
        let suite: PlaceIndexConformance
        let index: PostGISPlaceIndex

        init() async throws {
            suite = try PlaceIndexConformance()
            let url = try TestCluster.shared!.get().createDatabase("conformance")
            index = try await PostGISPlaceIndex.open(url, timeout: .seconds(60))
            try await index.upsert(suite.places)
        }
    }

    static let fixture = AsyncOnce { try await Fixture() }

    /// `near`, `within` and `nearest` equal brute force; paged answers equal unpaged ones.
    @Test(arguments: ["near", "within", "nearest", "paging", "ranked"])
    func conformsToBruteForce(_ check: String) async throws {
        let fixture = try await Self.fixture.value()
        let failures: [String] = switch check {
        case "near": try await fixture.suite.checkNear(fixture.index)
        case "within": try await fixture.suite.checkWithin(fixture.index)
        case "nearest": try await fixture.suite.checkNearest(fixture.index)
        case "ranked": try await fixture.suite.checkRanked(fixture.index)
        default: try await fixture.suite.checkPaging(fixture.index)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// Every place comes back equal to what was written, and counts and deletes agree.
    @Test func placesRoundTripAndCount() async throws {
        let fixture = try await Self.fixture.value()
        for place in fixture.suite.places.prefix(500) {
            let stored = try await fixture.index.place(place.id)
            #expect(stored == place, "\(place.id)")
        }
        let total = try await fixture.index.count(source: nil)
        #expect(total == fixture.suite.places.count)
        let gems = try await fixture.index.count(source: "gem")
        #expect(gems == fixture.suite.places.filter { $0.id.source == "gem" }.count)
        #expect(try await fixture.index.place(PlaceID("t:no-such-place")) == nil)
    }
}
