import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceQueryConformance
import ProviderTestSupport
import Testing

@testable import PlaceStore

/// The SpatiaLite store against the backend-neutral conformance suite (brute force on 20 000
/// seeded places: clusters, poles, the antimeridian), through the async ``SpatiaLitePlaceStore``
/// that servers use.
@Suite(.serialized) struct PropertyTests {
    final class Fixture: Sendable {
        let suite: PlaceIndexConformance
        let store: SpatiaLitePlaceStore
        /// The same places split over two files — the gems and every fifth other place in one,
        /// the rest in the other — answered as one by a ``MergedPlaceIndex``.
        let merged: MergedPlaceIndex
        /// The places but gems in a places file, the gems in a user data file, combined by the
        /// places store (``SpatiaLitePlacesAndGemsIndex``).
        let combined: SpatiaLitePlacesAndGemsIndex
        let directory: URL

        init() throws {
            suite = try PlaceIndexConformance()
            directory = try TemporaryDirectories.make("geoquery-prop")
            let path = directory.appendingPathComponent("p.sqlite").path
            try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing).upsert(suite.places)
            store = try SpatiaLitePlaceStore(path: path)
            let first = directory.appendingPathComponent("a.sqlite").path, second = directory.appendingPathComponent("b.sqlite").path
            let inSecond = suite.places.enumerated().filter { $0.element.gem != nil || $0.offset % 5 == 0 }.map(\.element)
            let inFirst = suite.places.enumerated().filter { !($0.element.gem != nil || $0.offset % 5 == 0) }.map(\.element)
            try SpatiaLitePlaceIndex(path: first, mode: .createIfMissing).upsert(inFirst)
            try SpatiaLitePlaceIndex(path: second, mode: .createIfMissing).upsert(inSecond)
            merged = MergedPlaceIndex([try SpatiaLitePlaceStore(path: first, threads: 2), try SpatiaLitePlaceStore(path: second, threads: 2)])
            combined = try Self.combined(suite.places, in: directory)
        }

        /// A places file of `places` but gems and a user data file of their gems, combined.
        static func combined(_ places: [Place], in directory: URL) throws -> SpatiaLitePlacesAndGemsIndex {
            let name = UUID().uuidString.prefix(8)
            let placesPath = directory.appendingPathComponent("places-\(name).sqlite").path
            let usersPath = directory.appendingPathComponent("users-\(name).sqlite").path
            try SpatiaLitePlaceIndex(path: placesPath, mode: .createIfMissing).upsert(places.filter { $0.gem == nil })
            let users = try SQLiteUserStore(path: usersPath, threads: 2)
            try SpatiaLitePlaceIndex(path: usersPath, mode: .readWrite).upsert(places.filter { $0.gem != nil })
            let store = try SpatiaLitePlaceStore(path: placesPath, threads: 2)
            guard let combined = store.merged(with: users) as? SpatiaLitePlacesAndGemsIndex else {
                throw PlaceStoreError.invalidArgument("the places store did not combine with a user data store")
            }
            return combined
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static let fixture = Result { try Fixture() }

    /// `near`, `within` and `nearest` equal brute force; paged answers equal unpaged ones;
    /// `places(_:)` answers `place(_:)` of each id.
    @Test(arguments: ["near", "within", "nearest", "paging", "ranked", "byID"])
    func conformsToBruteForce(_ check: String) async throws {
        let fixture = try Self.fixture.get()
        let failures: [String] =
            switch check {
            case "near": try await fixture.suite.checkNear(fixture.store)
            case "within": try await fixture.suite.checkWithin(fixture.store)
            case "nearest": try await fixture.suite.checkNearest(fixture.store)
            case "ranked": try await fixture.suite.checkRanked(fixture.store)
            case "byID": try await fixture.suite.checkPlacesByID(fixture.store)
            default: try await fixture.suite.checkPaging(fixture.store)
            }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// Two stores merged answer exactly as one store with every place: same order, same
    /// pages, one cursor that continues both.
    @Test(arguments: ["near", "within", "nearest", "paging", "ranked", "byID"])
    func aMergedIndexConformsToo(_ check: String) async throws {
        let fixture = try Self.fixture.get()
        let failures: [String] =
            switch check {
            case "near": try await fixture.suite.checkNear(fixture.merged)
            case "within": try await fixture.suite.checkWithin(fixture.merged)
            case "nearest": try await fixture.suite.checkNearest(fixture.merged)
            case "ranked": try await fixture.suite.checkRanked(fixture.merged)
            case "byID": try await fixture.suite.checkPlacesByID(fixture.merged)
            default: try await fixture.suite.checkPaging(fixture.merged)
            }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// Places and gems read by one statement over two files answer as every place in one store:
    /// `near` (every viewer, filters included) and its pages equal brute force.
    @Test(arguments: ["near", "paging", "byID"])
    func placesAndGemsReadAsOneConformToBruteForce(_ check: String) async throws {
        let fixture = try Self.fixture.get()
        let failures: [String] =
            switch check {
            case "near": try await fixture.suite.checkNear(fixture.combined)
            case "byID": try await fixture.suite.checkPlacesByID(fixture.combined)
            default: try await fixture.suite.checkPaging(fixture.combined)
            }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// The one statement's pages are the merged index's, page by page and cursor by cursor, for
    /// each viewer, around gems and around places; a name filter goes to the merged index.
    @Test func theOneStatementAnswersAsTheMergedIndex() async throws {
        let fixture = try Self.fixture.get()
        let before = fixture.combined.oneStatementPages.value
        let gems = fixture.suite.places.filter { $0.gem != nil }.prefix(12)
        let places = fixture.suite.places.filter { $0.gem == nil }.prefix(12)
        var gemsAnswered = 0, pagesRead = 0
        for (n, centre) in (gems + places).map(\.coordinate).enumerated() {
            let radius = Distance(uncheckedMeters: [1_000, 30_000, 400_000][n % 3])
            let limit = [1, 7, 50][(n / 3) % 3]
            var filter = PlaceFilter()
            filter.viewer = [nil, "ann", "bob", "cat"][n % 4]
            if filter.viewer == "cat" { filter.viewerFriends = ["ann"] }
            if n % 5 == 4 { filter.minimumRating = 2 }
            var cursor: String?, pages = 0
            repeat {
                let one = try await fixture.combined.near(centre, radius: radius, filter: filter, limit: limit, cursor: cursor)
                let merged = try await fixture.combined.merged.near(centre, radius: radius, filter: filter, limit: limit, cursor: cursor)
                #expect(
                    one.matches.map(\.id) == merged.matches.map(\.id) && one.matches.map(\.distance) == merged.matches.map(\.distance),
                    "near \(centre) r=\(radius.meters) limit \(limit) viewer \(filter.viewer ?? "none"), page \(pages)")
                #expect(one.nextCursor == merged.nextCursor)
                gemsAnswered += one.matches.filter { $0.id.source == "gem" }.count
                cursor = one.nextCursor
                pages += 1
            } while cursor != nil && pages < 60
            pagesRead += pages
        }
        #expect(gemsAnswered > 0, "gems were among the answers")
        #expect(fixture.combined.oneStatementPages.value - before == pagesRead, "every page was read by the one statement")

        let named = PlaceFilter(text: fixture.suite.places[0].name)
        let centre = fixture.suite.places[0].coordinate, radius = Distance(uncheckedMeters: 50_000)
        let counted = fixture.combined.oneStatementPages.value
        let byName = try await fixture.combined.near(centre, radius: radius, filter: named, limit: 10, cursor: nil)
        let mergedByName = try await fixture.combined.merged.near(centre, radius: radius, filter: named, limit: 10, cursor: nil)
        #expect(!byName.matches.isEmpty && byName.matches.map(\.id) == mergedByName.matches.map(\.id))
        #expect(fixture.combined.oneStatementPages.value == counted, "a name filter searches each file's own name index")
    }

    /// Only a user data store combines; one places store combined with two user data files in
    /// turn answers each time from the file it was combined with (its connections move over).
    @Test func eachCombinationReadsItsOwnUserDataFile() async throws {
        let fixture = try Self.fixture.get()
        let directory = fixture.directory
        #expect(fixture.combined.places.merged(with: fixture.combined.places) == nil, "a places store is not user data")
        #expect(MergedPlaceIndex.combining(fixture.combined.places, fixture.merged) is MergedPlaceIndex)

        let centre = try Coordinate(latitude: 47.5, longitude: 8.5)
        func gem(_ name: String, owner: String) throws -> Place {
            Place(
                id: try PlaceID("gem:\(name)"), name: name, coordinate: centre,
                provenance: Provenance(source: "gem", sourceID: name),
                gem: HiddenGem(owner: owner, visibility: .public, createdAt: Date(), updatedAt: Date()))
        }
        let placesPath = directory.appendingPathComponent("shared-places.sqlite").path
        try SpatiaLitePlaceIndex(path: placesPath, mode: .createIfMissing).upsert([])
        let places = try SpatiaLitePlaceStore(path: placesPath, threads: 1)
        var answers: [[String]] = []
        for name in ["first", "second", "first"] {
            let usersPath = directory.appendingPathComponent("shared-\(name).sqlite").path
            let users = try SQLiteUserStore(path: usersPath, threads: 1)
            if name == "first" && answers.isEmpty || name == "second" {
                try SpatiaLitePlaceIndex(path: usersPath, mode: .readWrite).upsert([try gem(name, owner: "ann")])
            }
            let combined = try #require(places.merged(with: users))
            let page = try await combined.near(centre, radius: Distance(uncheckedMeters: 100), filter: .none, limit: 10, cursor: nil)
            answers.append(page.matches.map(\.id.rawValue))
            try await users.shutdown()
        }
        #expect(answers == [["gem:first"], ["gem:second"], ["gem:first"]])
        try await places.shutdown()
    }

    /// A query past its deadline is stopped inside SQLite (or before it starts) and says so; the
    /// same query without a deadline answers, and the connection works after an interrupt.
    @Test func aDeadlineStopsAQuery() async throws {
        let fixture = try Self.fixture.get()
        let center = try Coordinate(latitude: 10, longitude: 10)
        let world = Distance.halfMeridian
        let rated = PlaceFilter(minimumRating: 5.1 - 0.1)
        for budget in [Duration.zero, .microseconds(300)] {
            await #expect(throws: PlaceQueryError.deadlineExceeded) {
                try await QueryDeadline.$current.withValue(.now + budget) {
                    _ = try await fixture.store.near(center, radius: world, filter: rated, limit: nil, cursor: nil)
                }
            }
        }
        let answer = try await fixture.store.near(center, radius: world, filter: rated, limit: nil, cursor: nil)
        #expect(answer.matches.allSatisfy { ($0.place.rating?.value ?? 0) >= 5 })
        let generous = try await QueryDeadline.$current.withValue(.now + .seconds(30)) {
            try await fixture.store.near(center, radius: world, filter: rated, limit: nil, cursor: nil)
        }
        #expect(generous.matches.count == answer.matches.count)
    }

    /// The suite is not vacuous: an index that drops one place fails it.
    @Test func theSuiteCatchesAMissingPlace() async throws {
        let fixture = try Self.fixture.get()
        let directory = fixture.directory.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("b.sqlite").path
        try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing).upsert(Array(fixture.suite.places.dropFirst(7)))
        let broken = try SpatiaLitePlaceStore(path: path)
        var quick = fixture.suite
        quick.queriesPerCheck = 60
        let failures = try await quick.checkWithin(broken)
        #expect(!failures.isEmpty)
        try await broken.shutdown()
    }
}
