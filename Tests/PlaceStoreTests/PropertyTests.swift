import Foundation
import GeoCore
import PlaceModel
import Testing
@testable import PlaceStore

/// The index against a brute-force scan of every place with the same distance function, on a
/// seeded random index of 20 000 places: clusters, uniform spread, poles and the antimeridian.
@Suite(.serialized) struct PropertyTests {
    static let categories = ["food.restaurant", "food.cafe", "drink.bar", "water.beach", "water.lake",
                             "historic.castle", "transport.airport", "city", "landmark"]

    final class Fixture: @unchecked Sendable {
        let places: [Place]
        let index: SpatiaLitePlaceIndex
        let directory: URL

        init() throws {
            var random = SplitMix64(seed: 20_261_122)
            func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
            let clusters = (0..<25).map { _ in (asin(unit() * 2 - 1) * 180 / .pi, unit() * 360 - 180) }
                + [(0.0, 179.9), (0.0, -179.9), (89.8, 0.0), (-89.8, 0.0), (65, 179.99)]
            var places: [Place] = []
            for n in 0..<20_000 {
                let latitude: Double, longitude: Double
                if n % 5 == 0 {
                    latitude = asin(unit() * 2 - 1) * 180 / .pi
                    longitude = unit() * 360 - 180
                } else {
                    let (cLat, cLon) = clusters[Int(random.next() % UInt64(clusters.count))]
                    let spread = 0.5 * unit()
                    latitude = min(90, max(-90, cLat + (unit() * 2 - 1) * spread))
                    longitude = Coordinate.normalizedLongitude(cLon + (unit() * 2 - 1) * spread * 2)
                }
                let source = n % 3 == 0 ? "u" : "t"
                let category = PropertyTests.categories[Int(random.next() % UInt64(PropertyTests.categories.count))]
                let rating: Double? = n % 4 == 0 ? nil : Double(random.next() % 51) / 10
                // Some duplicate coordinates, so that ties on distance are broken by id.
                let coordinate = n % 97 == 1 ? places[n - 1].coordinate : try Coordinate(latitude: latitude, longitude: longitude)
                places.append(try Place(id: PlaceID("\(source):\(n)"), name: "P\(n)", coordinate: coordinate,
                                        categories: [Category(category)], rating: rating.map { try Rating(sourceValue: $0) }))
            }
            self.places = places
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-prop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("p.sqlite").path, mode: .createIfMissing)
            try index.upsert(places)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static let fixture = Result { try Fixture() }

    struct Query {
        var center: Coordinate
        var radius: Distance
        var filter: PlaceFilter
    }

    static func queries(count: Int, seed: UInt64, places: [Place]) throws -> [Query] {
        var random = SplitMix64(seed: seed)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        return try (0..<count).map { n in
            let center: Coordinate
            if n % 2 == 0 {
                let place = places[Int(random.next() % UInt64(places.count))]
                center = try Coordinate(latitude: min(90, max(-90, place.coordinate.latitude + (unit() - 0.5) * 0.05)),
                                        normalizingLongitude: place.coordinate.longitude + (unit() - 0.5) * 0.05)
            } else {
                center = try Coordinate(latitude: asin(unit() * 2 - 1) * 180 / .pi, longitude: unit() * 360 - 180)
            }
            // Log-uniform radii from 10 m to 20 000 km, and some zero.
            let radius = n % 50 == 0 ? Distance.zero : try Distance(meters: pow(10, 1 + unit() * 6.3))
            var filter = PlaceFilter()
            switch n % 3 {
            case 1: filter.categories = [try Category(["food", "water.beach", "transport"][n % 3 == 1 ? Int(random.next() % 3) : 0])]
            case 2:
                filter.categories = [try Category("food"), try Category("historic")]
                filter.minimumRating = 2.5
                filter.sources = ["t"]
            default: break
            }
            return Query(center: center, radius: radius, filter: filter)
        }
    }

    /// Brute force: every place, the library's exact distance function. Haversine is used only to
    /// skip pairs more than 1 % beyond the radius (its proven error is under 0.6 %).
    static func bruteForceNear(_ places: [Place], _ query: Query) -> [(String, Double)] {
        places.compactMap { place -> (String, Double)? in
            guard query.filter.matchesAttributes(of: place) else { return nil }
            if haversineDistance(query.center, place.coordinate) > query.radius.meters * 1.01 + 1 { return nil }
            let d = Geodesic.distance(query.center, place.coordinate)
            return d <= query.radius.meters ? (place.id.rawValue, d) : nil
        }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : PlaceID.utf8Precedes($0.0, $1.0) }
    }

    @Test func nearEqualsBruteForce() throws {
        let fixture = try Self.fixture.get()
        var nonEmpty = 0
        for query in try Self.queries(count: 500, seed: 1, places: fixture.places) {
            let expected = Self.bruteForceNear(fixture.places, query)
            let answer = try fixture.index.near(query.center, radius: query.radius, filter: query.filter)
            #expect(answer.matches.map(\.place.id.rawValue) == expected.map(\.0), "near \(query.center) r=\(query.radius)")
            #expect(zip(answer.matches, expected).allSatisfy { $0.distance!.meters == $1.1 })
            #expect(answer.nextCursor == nil)
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty > 200, "the queries must mostly find something to compare")
    }

    @Test func withinEqualsBruteForce() throws {
        let fixture = try Self.fixture.get()
        for query in try Self.queries(count: 500, seed: 2, places: fixture.places) {
            // Boxes of every size, a third of them across the antimeridian.
            var box = BoundingBox.covering(center: query.center, radius: query.radius)
            if query.radius.meters > 0, box.west < box.east, Int(query.radius.meters) % 3 == 0 {
                box = try BoundingBox(west: max(box.west, 100), south: box.south, east: min(box.east, -100), north: box.north)
            }
            let expected = fixture.places.filter { box.contains($0.coordinate) && query.filter.matchesAttributes(of: $0) }
                .map(\.id).sorted().map(\.rawValue)
            let answer = try fixture.index.within(box, filter: query.filter)
            #expect(answer.matches.map(\.place.id.rawValue) == expected, "within \(box)")
        }
    }

    /// Brute-force k nearest: every place's haversine distance, then exact distances in that
    /// order until the haversine band proves no further place can beat the k-th.
    static func bruteForceNearest(_ places: [Place], _ query: Query, k: Int) -> [(String, Double)] {
        let candidates = places.filter { query.filter.matchesAttributes(of: $0) }
            .map { ($0, haversineDistance(query.center, $0.coordinate)) }
            .sorted { $0.1 < $1.1 }
        var best: [(String, Double)] = []
        for (place, cheap) in candidates {
            if best.count >= k, cheap * 0.99 - 1 > best[k - 1].1 { break }
            let d = Geodesic.distance(query.center, place.coordinate)
            guard d <= query.radius.meters else { continue }
            best.append((place.id.rawValue, d))
            best.sort { $0.1 != $1.1 ? $0.1 < $1.1 : PlaceID.utf8Precedes($0.0, $1.0) }
            if best.count > k { best.removeLast() }
        }
        return best
    }

    @Test func nearestEqualsBruteForce() throws {
        let fixture = try Self.fixture.get()
        for (n, query) in try Self.queries(count: 500, seed: 3, places: fixture.places).enumerated() {
            let k = [1, 3, 10, 25][n % 4]
            let maxDistance: Distance? = n % 5 == 0 ? query.radius : nil
            let expected = Self.bruteForceNearest(fixture.places, Query(center: query.center, radius: maxDistance ?? .halfMeridian,
                                                                         filter: query.filter), k: k)
            let answer = try fixture.index.nearest(query.center, count: k, maxDistance: maxDistance, filter: query.filter)
            #expect(answer.map(\.place.id.rawValue) == expected.map(\.0), "nearest \(k) to \(query.center)")
        }
    }

    @Test func pagingYieldsExactlyTheUnpagedAnswer() throws {
        let fixture = try Self.fixture.get()
        var pagesRead = 0
        for (n, query) in try Self.queries(count: 120, seed: 4, places: fixture.places).enumerated() {
            let whole = try fixture.index.near(query.center, radius: query.radius, filter: query.filter).matches
            // Small pages, but at most ~40 of them per query: each page is one scan.
            let limit = max([1, 2, 7, 50][n % 4], whole.count / 40)
            var paged: [PlaceMatch] = []
            var cursor: String?
            repeat {
                let page = try fixture.index.near(query.center, radius: query.radius, filter: query.filter, limit: limit, cursor: cursor)
                #expect(page.matches.count <= limit)
                paged += page.matches
                cursor = page.nextCursor
                pagesRead += 1
            } while cursor != nil && paged.count <= whole.count
            #expect(paged.map(\.place.id) == whole.map(\.place.id))
            #expect(paged == whole)

            var box = BoundingBox.covering(center: query.center, radius: query.radius)
            if box == .world { box = try BoundingBox(west: -10, south: -10, east: 10, north: 10) }
            let wholeBox = try fixture.index.within(box, filter: query.filter).matches
            let boxLimit = max(limit, wholeBox.count / 40)
            var pagedBox: [PlaceMatch] = []
            cursor = nil
            repeat {
                let page = try fixture.index.within(box, filter: query.filter, limit: boxLimit, cursor: cursor)
                pagedBox += page.matches
                cursor = page.nextCursor
            } while cursor != nil && pagedBox.count <= wholeBox.count
            #expect(pagedBox.map(\.place.id) == wholeBox.map(\.place.id))
        }
        #expect(pagesRead > 500, "paging must actually be exercised")
    }
}
