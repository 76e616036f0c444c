import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceQueryConformance
import PostgresTestSupport
import ProviderTestSupport
import Testing

@testable import PostGISStore

/// The PostGIS place index against the same conformance suite as SpatiaLite (brute force on
/// 20 000 seeded places: clusters, poles, the antimeridian, gems of two owners, three viewers),
/// on a real PostgreSQL cluster started for the test run.
@Suite(.serialized, .waitsOnProcesses, .enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
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

    /// `near`, `within` and `nearest` equal brute force; paged answers equal unpaged ones;
    /// `places(_:)` answers `place(_:)` of each id.
    @Test(arguments: ["near", "within", "nearest", "paging", "ranked", "byID"])
    func conformsToBruteForce(_ check: String) async throws {
        let fixture = try await Self.fixture.value()
        let failures: [String] =
            switch check {
            case "near": try await fixture.suite.checkNear(fixture.index)
            case "within": try await fixture.suite.checkWithin(fixture.index)
            case "nearest": try await fixture.suite.checkNearest(fixture.index)
            case "ranked": try await fixture.suite.checkRanked(fixture.index)
            case "byID": try await fixture.suite.checkPlacesByID(fixture.index)
            default: try await fixture.suite.checkPaging(fixture.index)
            }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// Places and gems in their own tables, read as one by ``PostGISPlacesAndGemsIndex`` (what
    /// `geoquery serve` asks on PostgreSQL): brute force again — with three viewers, so both the
    /// one statement over both tables (pages within 50 km) and the merged index (the rest)
    /// answer — and the one statement was taken, for signed-in viewers too.
    final class CombinedFixture: Sendable {
        let suite: PlaceIndexConformance
        let combined: PostGISPlacesAndGemsIndex

        init() async throws {
            // The same places, fewer queries than the stores' own runs (this suite is the test
            // run's longest).
            suite = try PlaceIndexConformance(queriesPerCheck: 200)
            let url = try TestCluster.shared!.get().createDatabase("combined")
            let places = try await PostGISPlaceIndex.open(url, timeout: .seconds(60))
            let gems = PostGISUserStore(sharingPoolsOf: places)
            try await places.upsert(suite.places.filter { $0.id.source != "gem" })
            try await gems.upsert(suite.places.filter { $0.id.source == "gem" })
            guard let combined = places.merged(with: gems) as? PostGISPlacesAndGemsIndex else {
                throw PostGISError.server("the places index did not combine with its own database's gems")
            }
            self.combined = combined
        }
    }

    static let combinedFixture = AsyncOnce { try await CombinedFixture() }

    /// Paged and unpaged answers equal brute force for every viewer (the other queries are the
    /// merged index's as they stand).
    @Test func placesAndGemsReadAsOneConformToBruteForce() async throws {
        let fixture = try await Self.combinedFixture.value()
        let failures = try await fixture.suite.checkPaging(fixture.combined) + fixture.suite.checkPlacesByID(fixture.combined)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// The one statement's pages are the merged index's, page by page and cursor by cursor, for
    /// each viewer, around gems and around places, at radii and page sizes it answers; a filter
    /// on a column goes to the merged index.
    @Test func theOneStatementAnswersAsTheMergedIndex() async throws {
        let fixture = try await Self.combinedFixture.value()
        let gems = fixture.suite.places.filter { $0.gem != nil }.prefix(20)
        let places = fixture.suite.places.filter { $0.gem == nil }.prefix(12)
        var gemsAnswered: [String: Int] = [:], onePathPages: [String: Int] = [:]
        for (n, centre) in (gems + places).map(\.coordinate).enumerated() {
            let radius = Distance(uncheckedMeters: [1_000, 10_000, 45_000][n % 3])
            let limit = [1, 7, 50][(n / 3) % 3]
            var filter = PlaceFilter()
            filter.viewer = [nil, "ann", "bob", "cat"][n % 4]
            if filter.viewer == "cat" { filter.viewerFriends = ["ann"] }
            if n % 5 == 4 { filter.minimumRating = 2 }
            let viewer = filter.viewer ?? "anonymous"
            var cursor: String?, pages = 0
            repeat {
                let before = fixture.combined.oneStatementPages.value
                let one = try await fixture.combined.near(centre, radius: radius, filter: filter, limit: limit, cursor: cursor)
                let tookOnePath = fixture.combined.oneStatementPages.value > before
                let merged = try await fixture.combined.merged.near(centre, radius: radius, filter: filter, limit: limit, cursor: cursor)
                #expect(
                    one.matches.map(\.id) == merged.matches.map(\.id) && one.matches.map(\.distance) == merged.matches.map(\.distance),
                    "near \(centre) r=\(radius.meters) limit \(limit) viewer \(viewer), page \(pages)")
                #expect(one.nextCursor == merged.nextCursor)
                #expect(!tookOnePath || filter.minimumRating == nil, "a rating filter is a condition on a column")
                if tookOnePath {
                    onePathPages[viewer, default: 0] += 1
                    gemsAnswered[viewer, default: 0] += one.matches.filter { $0.id.source == "gem" }.count
                }
                cursor = one.nextCursor
                pages += 1
            } while cursor != nil && pages < 100
        }
        for viewer in ["anonymous", "ann", "bob", "cat"] {
            #expect(onePathPages[viewer, default: 0] > 0, "\(viewer)'s pages were read by the one statement")
            #expect(gemsAnswered[viewer, default: 0] > 0, "gems were among \(viewer)'s answers by the one statement")
        }

        // Who sees a private or friends-only gem through the one statement: its owner, and for a
        // friends-only gem the owner's friends; never anyone else.
        for gem in fixture.suite.places.filter({ [.private, .friends].contains($0.gem?.visibility) }).prefix(6) {
            let owner = try #require(gem.gem?.owner)
            let other = owner == "ann" ? "bob" : "ann"
            for (viewer, friends, listed) in [(owner, [String](), true), (other, [], false), ("cat", [owner], gem.gem?.visibility == .friends)] {
                var filter = PlaceFilter()
                filter.viewer = viewer
                filter.viewerFriends = friends
                let before = fixture.combined.oneStatementPages.value
                let page = try await fixture.combined.near(
                    gem.coordinate, radius: Distance(uncheckedMeters: 100), filter: filter, limit: 50, cursor: nil)
                #expect(fixture.combined.oneStatementPages.value > before)
                #expect(page.matches.contains { $0.id == gem.id } == listed, "\(gem.id) (\(gem.gem!.visibility)) for \(viewer)")
            }
        }
    }

    /// Only the places index of a database combines, and only with that database's gems.
    @Test func onlyTheSameDatabasesGemsCombine() async throws {
        let fixture = try await Self.fixture.value()
        let otherURL = try TestCluster.shared!.get().createDatabase("othergems")
        let other = try await PostGISPlaceIndex.open(otherURL, maximumConnections: 2, timeout: .seconds(60))
        #expect(fixture.index.merged(with: PostGISUserStore(sharingPoolsOf: fixture.index)) is PostGISPlacesAndGemsIndex)
        #expect(fixture.index.merged(with: PostGISUserStore(sharingPoolsOf: other)) == nil, "another database's gems")
        #expect(fixture.index.merged(with: fixture.index) == nil, "a store that is not the gems")
        #expect(MergedPlaceIndex.combining(fixture.index, other) is MergedPlaceIndex)
        await other.close()
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
