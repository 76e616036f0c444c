import Foundation
import GeoCore
import PlaceQuery
import PlaceQueryConformance
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
        let directory: URL

        init() throws {
            suite = try PlaceIndexConformance()
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-prop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("p.sqlite").path
            try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing).upsert(suite.places)
            store = try SpatiaLitePlaceStore(path: path)
            let first = directory.appendingPathComponent("a.sqlite").path, second = directory.appendingPathComponent("b.sqlite").path
            let inSecond = suite.places.enumerated().filter { $0.element.gem != nil || $0.offset % 5 == 0 }.map(\.element)
            let inFirst = suite.places.enumerated().filter { !($0.element.gem != nil || $0.offset % 5 == 0) }.map(\.element)
            try SpatiaLitePlaceIndex(path: first, mode: .createIfMissing).upsert(inFirst)
            try SpatiaLitePlaceIndex(path: second, mode: .createIfMissing).upsert(inSecond)
            merged = MergedPlaceIndex([try SpatiaLitePlaceStore(path: first, threads: 2), try SpatiaLitePlaceStore(path: second, threads: 2)])
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static let fixture = Result { try Fixture() }

    /// `near`, `within` and `nearest` equal brute force; paged answers equal unpaged ones.
    @Test(arguments: ["near", "within", "nearest", "paging", "ranked"])
    func conformsToBruteForce(_ check: String) async throws {
        let fixture = try Self.fixture.get()
        let failures: [String] = switch check {
        case "near": try await fixture.suite.checkNear(fixture.store)
        case "within": try await fixture.suite.checkWithin(fixture.store)
        case "nearest": try await fixture.suite.checkNearest(fixture.store)
        case "ranked": try await fixture.suite.checkRanked(fixture.store)
        default: try await fixture.suite.checkPaging(fixture.store)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    /// Two stores merged answer exactly as one store with every place: same order, same
    /// pages, one cursor that continues both.
    @Test(arguments: ["near", "within", "nearest", "paging", "ranked"])
    func aMergedIndexConformsToo(_ check: String) async throws {
        let fixture = try Self.fixture.get()
        let failures: [String] = switch check {
        case "near": try await fixture.suite.checkNear(fixture.merged)
        case "within": try await fixture.suite.checkWithin(fixture.merged)
        case "nearest": try await fixture.suite.checkNearest(fixture.merged)
        case "ranked": try await fixture.suite.checkRanked(fixture.merged)
        default: try await fixture.suite.checkPaging(fixture.merged)
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
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
