import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

@testable import GeoQueryServer

/// The `/healthz` count: one count at a time however many ask, and a failed count is reported,
/// never hidden behind the previous one.
@Suite struct CountCacheTests {
    /// The fixture's real store, with its counts observed: how many ran, each slowed down as a
    /// count over a large table is, and failing on demand (as when the database goes away).
    final class ObservedIndex: PlaceIndex, @unchecked Sendable {
        // @unchecked Sendable: `counts` and `failing` are touched only under `lock`.
        let store: any PlaceIndex
        private let lock = NSLock()
        private var counts = 0
        private var failing = false

        init(_ store: any PlaceIndex) { self.store = store }

        var countsRun: Int { lock.withLock { counts } }
        func fail(_ on: Bool) { lock.withLock { failing = on } }

        func count(source: String?) async throws -> Int {
            let fails = lock.withLock {
                counts += 1
                return failing
            }
            try await Task.sleep(for: .milliseconds(100))
            if fails { throw PlaceQueryError.invalidArgument(name: "database", value: "gone", valid: "a database that answers") }
            return try await store.count(source: source)
        }

        func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
            try await store.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
        }
        func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
            try await store.within(box, filter: filter, limit: limit, cursor: cursor)
        }
        func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
            try await store.nearest(center, count: count, maxDistance: maxDistance, filter: filter)
        }
        func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
            try await store.ranked(filter: filter, limit: limit, cursor: cursor)
        }
        func place(_ id: PlaceID) async throws -> Place? { try await store.place(id) }
        func upsert(_ places: [Place]) async throws -> Int { try await store.upsert(places) }
        func delete(_ ids: [PlaceID]) async throws -> Int { try await store.delete(ids) }
    }

    @Test func manyCallersShareOneCount() async throws {
        let index = ObservedIndex(try ServerFixture.shared.get().store)
        let expected = try await index.store.count(source: nil)
        let cache = CountCache()
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { try await cache.count(index) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: expected, count: 16))
        #expect(index.countsRun == 1)
    }

    @Test func aFailedCountIsReportedNotHidden() async throws {
        let index = ObservedIndex(try ServerFixture.shared.get().store)
        let cache = CountCache(maximumAge: .zero)
        let expected = try await cache.count(index)
        index.fail(true)
        // The count has expired: this caller gets it at once while one refresh runs (and fails).
        #expect(try await cache.count(index) == expected)
        var reported = false
        for _ in 0..<100 where !reported {
            do {
                _ = try await cache.count(index)
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                reported = true
            }
        }
        #expect(reported, "the cache kept answering an old count while every count failed")
        index.fail(false)
        #expect(try await cache.count(index) == expected)
    }
}
