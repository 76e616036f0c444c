import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// The semantics every ``PlaceIndex`` implementation must have (DESIGN.md "Query semantics"),
/// checked against brute force: `near`, `within` and `nearest` equal a scan of every place with
/// GeoCore's exact distance, and paging yields exactly the unpaged answer.
///
/// Backend-neutral: a store's tests fill their implementation with ``places`` and call
/// ``check(_:)``, which returns every disagreement (empty when the store conforms). The places are
/// a seeded random mix of 20 000: clusters, a uniform spread, both poles, the antimeridian, and
/// duplicate coordinates so that ties on distance are broken by id.
public struct PlaceIndexConformance: Sendable {
    public static let categories = [
        "food.restaurant", "food.cafe", "drink.bar", "water.beach", "water.lake",
        "historic.castle", "transport.airport", "city", "landmark",
    ]
    static let regions: [(String?, Continent?)] = [
        ("FR", .europe), ("JP", .asia), ("US", .northAmerica), ("NZ", .oceania),
        (nil, .africa), (nil, nil),
    ]
    static let zones = ["Europe/Paris", "Asia/Tokyo", "America/Los_Angeles", "Pacific/Auckland", "Not/AZone"]

    /// The places to load into the index under test.
    public let places: [Place]
    /// Queries per check (500 in full; fewer for a quick run).
    public var queriesPerCheck: Int

    public init(placeCount: Int = 20_000, queriesPerCheck: Int = 500, seed: UInt64 = 20_261_122) throws {
        self.queriesPerCheck = queriesPerCheck
        var random = SplitMix64(seed: seed)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        let clusters =
            (0..<25).map { _ in (asin(unit() * 2 - 1) * 180 / .pi, unit() * 360 - 180) }
            + [(0.0, 179.9), (0.0, -179.9), (89.8, 0.0), (-89.8, 0.0), (65, 179.99)]
        var places: [Place] = []
        for n in 0..<placeCount {
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
            // Every 13th place is a hidden gem of "ann" or "bob", public, unlisted, private or friends-only.
            let isGem = n % 13 == 0
            let source = isGem ? "gem" : n % 3 == 0 ? "u" : "t"
            let category = Self.categories[Int(random.next() % UInt64(Self.categories.count))]
            let rating: Double? = n % 4 == 0 ? nil : Double(random.next() % 51) / 10
            // Some ratings say how many they summarise: ties on stars are broken by that count.
            let ratingCount: Int? = n % 3 == 0 ? (n &* 7_919) % 1_000 : nil
            let coordinate = n % 97 == 1 ? places[n - 1].coordinate : try Coordinate(latitude: latitude, longitude: longitude)
            // Regions, zones and hours are made up (not where the point is): the filters are what is tested.
            let (country, continent) = Self.regions[Int(random.next() % UInt64(Self.regions.count))]
            let zone = n % 7 == 0 ? nil : Self.zones[Int(random.next() % UInt64(Self.zones.count))]
            let open = Int(random.next() % 1440), length = 60 + Int(random.next() % 900)
            let hours =
                n % 5 == 0
                ? nil
                : OpeningHours(
                    text: nil,
                    periods: (1...7).filter { _ in random.next() % 4 != 0 }.map { day in
                        OpeningHours.Period(
                            openDay: day, openMinute: open, closeDay: open + length >= 1440 ? day % 7 + 1 : day,
                            closeMinute: (open + length) % 1440)
                    })
            places.append(
                try Place(
                    id: PlaceID("\(source):\(n)"), name: "P\(n)", coordinate: coordinate,
                    categories: [Category(category)], rating: rating.map { try Rating(sourceValue: $0, count: ratingCount) },
                    openingHours: hours,
                    gem: isGem ? HiddenGem(owner: ["ann", "bob"][n % 2], visibility: [.public, .unlisted, .private, .friends][n / 13 % 4]) : nil,
                    region: country == nil && continent == nil ? nil : PlaceRegion(countryCode: country, continent: continent),
                    timeZone: zone))
        }
        self.places = places
    }

    /// One query of a check.
    public struct Query: Sendable {
        public var center: Coordinate
        public var radius: Distance
        public var filter: PlaceFilter
    }

    /// Seeded queries: centres near places and anywhere, log-uniform radii from 10 m to
    /// 20 000 km and some zero, with and without category, rating and source filters.
    public func queries(count: Int, seed: UInt64) throws -> [Query] {
        var random = SplitMix64(seed: seed)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        return try (0..<count).map { n in
            let center: Coordinate
            if n % 2 == 0 {
                let place = places[Int(random.next() % UInt64(places.count))]
                center = try Coordinate(
                    latitude: min(90, max(-90, place.coordinate.latitude + (unit() - 0.5) * 0.05)),
                    normalizingLongitude: place.coordinate.longitude + (unit() - 0.5) * 0.05)
            } else {
                center = try Coordinate(latitude: asin(unit() * 2 - 1) * 180 / .pi, longitude: unit() * 360 - 180)
            }
            let radius = n % 50 == 0 ? Distance.zero : try Distance(meters: pow(10, 1 + unit() * 6.3))
            var filter = PlaceFilter()
            switch n % 3 {
            case 1: filter.categories = [try Category(["food", "water.beach", "transport"][Int(random.next() % 3)])]
            case 2:
                filter.categories = [try Category("food"), try Category("historic")]
                filter.minimumRating = 2.5
                filter.sources = ["t"]
            default: break
            }
            switch n % 8 {
            case 1: filter.countries = ["FR", "JP", "US"]
            case 2: filter.continents = [.europe, .oceania, .northAmerica]
            case 3: filter.openAt = Date(timeIntervalSince1970: 1_795_000_000 + Double(random.next() % 604_800))
            default: break
            }
            // Who asks decides which gems are listed: nobody, one owner or the other, or cat, a
            // friend of ann (as bob is in some queries), who sees ann's friends-only gems.
            filter.viewer = [nil, "ann", "bob", "cat"][Int(random.next() % 4)]
            if filter.viewer == "cat" || (filter.viewer == "bob" && random.next() % 2 == 0) { filter.viewerFriends = ["ann"] }
            return Query(center: center, radius: radius, filter: filter)
        }
    }

    /// Brute force: every place, GeoCore's exact distance. Haversine only skips pairs more than
    /// 1 % beyond the radius (its proven error is under 0.6 %).
    public func bruteForceNear(_ query: Query) -> [(id: String, meters: Double)] {
        places.compactMap { place -> (id: String, meters: Double)? in
            guard query.filter.matchesAttributes(of: place) else { return nil }
            if haversineDistance(query.center, place.coordinate) > query.radius.meters * 1.01 + 1 { return nil }
            let d = Geodesic.distance(query.center, place.coordinate)
            return d <= query.radius.meters ? (place.id.rawValue, d) : nil
        }.sorted { $0.meters != $1.meters ? $0.meters < $1.meters : PlaceID.utf8Precedes($0.id, $1.id) }
    }

    /// Brute-force k nearest: haversine order, then exact distances until the haversine band
    /// proves no further place can beat the k-th.
    public func bruteForceNearest(_ query: Query, k: Int) -> [(id: String, meters: Double)] {
        let candidates = places.filter { query.filter.matchesAttributes(of: $0) }
            .map { ($0, haversineDistance(query.center, $0.coordinate)) }
            .sorted { $0.1 < $1.1 }
        var best: [(id: String, meters: Double)] = []
        for (place, cheap) in candidates {
            if best.count >= k, cheap * 0.99 - 1 > best[k - 1].meters { break }
            let d = Geodesic.distance(query.center, place.coordinate)
            guard d <= query.radius.meters else { continue }
            best.append((place.id.rawValue, d))
            best.sort { $0.meters != $1.meters ? $0.meters < $1.meters : PlaceID.utf8Precedes($0.id, $1.id) }
            if best.count > k { best.removeLast() }
        }
        return best
    }

    /// Every disagreement between `index` and brute force, as sentences; empty when it conforms.
    public func check(_ index: any PlaceIndex) async throws -> [String] {
        var failures: [String] = []
        failures += try await checkNear(index)
        failures += try await checkWithin(index)
        failures += try await checkNearest(index)
        failures += try await checkPaging(index)
        failures += try await checkRanked(index)
        failures += try await checkPlacesByID(index)
        return failures
    }

    /// `ranked` equals brute force (every place of the regions that passes the filter, sorted by
    /// ``PlaceRank``), unpaged and in pages, for each viewer; a filter with no region is refused.
    public func checkRanked(_ index: any PlaceIndex) async throws -> [String] {
        var failures: [String] = []
        let regions: [(countries: [String], continents: [Continent])] = [
            (["FR"], []), ([], [.europe]), (["FR", "JP"], []), ([], [.africa]), (["US", "NZ"], [.oceania]),
            ([], [.asia, .northAmerica]), (["XX"], []),
        ]
        var compared = 0
        for (n, region) in regions.enumerated() {
            for (m, viewer) in [nil, "ann", "bob", "cat"].enumerated() {
                var filter = PlaceFilter(countries: region.countries, continents: region.continents, viewer: viewer)
                if viewer == "cat" { filter.viewerFriends = ["ann"] }
                switch (n + m) % 4 {
                case 1: filter.categories = [try Category("food")]
                case 2: filter.minimumRating = 3
                case 3: filter.text = "p1"
                default: break
                }
                let expected = places.filter { place in
                    filter.matchesAttributes(of: place) && (filter.text.map { place.name.lowercased().hasPrefix($0) } ?? true)
                }.map { (key: PlaceRank.key(of: $0), id: $0.id.rawValue) }
                    .sorted { PlaceRank.precedes($0.key, $0.id, $1.key, $1.id) }.map(\.id)
                let whole = try await index.ranked(filter: filter, limit: nil, cursor: nil)
                if whole.matches.map(\.id.rawValue) != expected {
                    let firstDifference =
                        zip(whole.matches.map(\.id.rawValue), expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        ?? min(whole.matches.count, expected.count)
                    failures.append(
                        "ranked \(filter.canonicalDescription): \(whole.matches.count) places, brute force \(expected.count), first difference at \(firstDifference)"
                    )
                    continue
                }
                if whole.nextCursor != nil { failures.append("ranked without a limit gave a cursor") }
                if whole.matches.contains(where: { $0.distance != nil }) { failures.append("ranked matches carry a distance") }
                // Small pages, but at most ~10 of them per query: each page is a query of its own.
                let limit = max([1, 7, 50][(n + m) % 3], expected.count / 10)
                var paged: [String] = []
                var cursor: String?
                repeat {
                    let page = try await index.ranked(filter: filter, limit: limit, cursor: cursor)
                    if page.matches.count > limit { failures.append("a ranked page of \(page.matches.count) for limit \(limit)") }
                    paged += page.matches.map(\.id.rawValue)
                    cursor = page.nextCursor
                } while cursor != nil && paged.count <= expected.count
                if paged != expected { failures.append("ranked \(filter.canonicalDescription) in pages of \(limit) ≠ unpaged") }
                if !expected.isEmpty { compared += 1 }
            }
        }
        if compared < 20 { failures.append("only \(compared) ranked queries found something to compare") }
        do {
            _ = try await index.ranked(filter: PlaceFilter(categories: [try Category("food")]), limit: 5, cursor: nil)
            failures.append("ranked with no region was answered")
        } catch PlaceQueryError.invalidArgument(let name, _, _) where name == "region" {}
        let other = try await index.ranked(filter: PlaceFilter(countries: ["JP"]), limit: 1, cursor: nil).nextCursor
        do {
            _ = try await index.ranked(filter: PlaceFilter(countries: ["FR"]), limit: 1, cursor: other)
            failures.append("a ranked cursor of another query was accepted")
        } catch PlaceQueryError.invalidCursor {}
        return failures
    }

    public func checkNear(_ index: any PlaceIndex) async throws -> [String] {
        var failures: [String] = []
        var nonEmpty = 0
        for query in try queries(count: queriesPerCheck, seed: 1) {
            let expected = bruteForceNear(query)
            let answer = try await index.near(query.center, radius: query.radius, filter: query.filter, limit: nil, cursor: nil)
            if answer.matches.map(\.id.rawValue) != expected.map(\.id) {
                failures.append("near \(query.center) r=\(query.radius.meters) m: \(answer.matches.count) places, brute force \(expected.count)")
            } else if !zip(answer.matches, expected).allSatisfy({ $0.distance?.meters == $1.meters }) {
                failures.append("near \(query.center) r=\(query.radius.meters) m: distances differ from GeoCore's")
            }
            if answer.nextCursor != nil { failures.append("near without a limit gave a cursor") }
            // A first page, as a service asks (a store may answer pages another way).
            let limit = [1, 5, 50][nonEmpty % 3]
            let first = try await index.near(query.center, radius: query.radius, filter: query.filter, limit: limit, cursor: nil)
            if first.matches.map(\.id.rawValue) != expected.prefix(limit).map(\.id) || (first.nextCursor != nil) != (expected.count > limit) {
                failures.append(
                    "near \(query.center) r=\(query.radius.meters) m, first \(limit): \(first.matches.count) places, brute force \(min(limit, expected.count))"
                )
            }
            if !expected.isEmpty { nonEmpty += 1 }
        }
        // A third of the queries must find something (small radii and narrow filters find nothing).
        if nonEmpty < queriesPerCheck / 3 { failures.append("only \(nonEmpty) near queries found something to compare") }
        return failures
    }

    public func checkWithin(_ index: any PlaceIndex) async throws -> [String] {
        var failures: [String] = []
        for query in try queries(count: queriesPerCheck, seed: 2) {
            // Boxes of every size, a third of them across the antimeridian.
            var box = BoundingBox.covering(center: query.center, radius: query.radius)
            if query.radius.meters > 0, box.west < box.east, Int(query.radius.meters) % 3 == 0 {
                box = try BoundingBox(west: max(box.west, 100), south: box.south, east: min(box.east, -100), north: box.north)
            }
            let expected = places.filter { box.contains($0.coordinate) && query.filter.matchesAttributes(of: $0) }
                .map(\.id).sorted().map(\.rawValue)
            let answer = try await index.within(box, filter: query.filter, limit: nil, cursor: nil)
            if answer.matches.map(\.id.rawValue) != expected {
                failures.append("within \(box): \(answer.matches.count) places, brute force \(expected.count)")
            }
        }
        return failures
    }

    public func checkNearest(_ index: any PlaceIndex) async throws -> [String] {
        var failures: [String] = []
        for (n, query) in try queries(count: queriesPerCheck, seed: 3).enumerated() {
            let k = [1, 3, 10, 25][n % 4]
            let maxDistance: Distance? = n % 5 == 0 ? query.radius : nil
            let expected = bruteForceNearest(Query(center: query.center, radius: maxDistance ?? .halfMeridian, filter: query.filter), k: k)
            let answer = try await index.nearest(query.center, count: k, maxDistance: maxDistance, filter: query.filter)
            if answer.map(\.id.rawValue) != expected.map(\.id) {
                failures.append("nearest \(k) to \(query.center): \(answer.map(\.id.rawValue)) ≠ \(expected.map(\.id))")
            }
        }
        return failures
    }

    /// `places(_:)` answers what `place(_:)` answers for each id: every id the index holds,
    /// gems and places alike, and no other; a repeated id once; an empty list empty.
    public func checkPlacesByID(_ index: any PlaceIndex) async throws -> [String] {
        var failures: [String] = []
        var random = SplitMix64(seed: 9)
        for round in 0..<max(4, queriesPerCheck / 50) {
            let count = [1, 3, 40, 400][round % 4]
            var ids = (0..<count).map { _ in places[Int(random.next() % UInt64(places.count))].id }
            ids += [try PlaceID("t:\(places.count + round)"), try PlaceID("gem:none\(round)")]
            if let first = ids.first { ids.append(first) }
            let found = try await index.places(ids)
            var expected: [PlaceID: Place] = [:]
            for id in Set(ids) { expected[id] = try await index.place(id) }
            if found != expected {
                let wrong = Set(found.keys).symmetricDifference(expected.keys).map(\.rawValue).sorted().prefix(5)
                failures.append("places(\(ids.count) ids) ≠ place(_:) of each: \(found.count) against \(expected.count), ids \(wrong)")
            }
            if expected.count != Set(ids).count - 2 { failures.append("place(_:) missed a place the index was filled with") }
        }
        if try await !index.places([]).isEmpty { failures.append("places([]) is not empty") }
        return failures
    }

    public func checkPaging(_ index: any PlaceIndex) async throws -> [String] {
        var failures: [String] = []
        var pagesRead = 0
        for (n, query) in try queries(count: max(10, queriesPerCheck / 4), seed: 4).enumerated() {
            let whole = try await index.near(query.center, radius: query.radius, filter: query.filter, limit: nil, cursor: nil).matches
            // Small pages, but at most ~40 of them per query: each page is one scan.
            let limit = max([1, 2, 7, 50][n % 4], whole.count / 40)
            var paged: [PlaceMatch] = []
            var cursor: String?
            repeat {
                let page = try await index.near(query.center, radius: query.radius, filter: query.filter, limit: limit, cursor: cursor)
                if page.matches.count > limit { failures.append("a page of \(page.matches.count) for limit \(limit)") }
                paged += page.matches
                cursor = page.nextCursor
                pagesRead += 1
            } while cursor != nil && paged.count <= whole.count
            if paged.map(\.id) != whole.map(\.id) || paged.map(\.distance) != whole.map(\.distance) {
                failures.append("near \(query.center) r=\(query.radius.meters) in pages of \(limit) ≠ unpaged")
            }

            var box = BoundingBox.covering(center: query.center, radius: query.radius)
            if box == .world { box = try BoundingBox(west: -10, south: -10, east: 10, north: 10) }
            let wholeBox = try await index.within(box, filter: query.filter, limit: nil, cursor: nil).matches
            let boxLimit = max(limit, wholeBox.count / 40)
            var pagedBox: [PlaceMatch] = []
            cursor = nil
            repeat {
                let page = try await index.within(box, filter: query.filter, limit: boxLimit, cursor: cursor)
                pagedBox += page.matches
                cursor = page.nextCursor
            } while cursor != nil && pagedBox.count <= wholeBox.count
            if pagedBox.map(\.id) != wholeBox.map(\.id) { failures.append("within \(box) in pages of \(boxLimit) ≠ unpaged") }
        }
        if pagesRead < queriesPerCheck { failures.append("paging was barely exercised (\(pagesRead) pages)") }
        return failures
    }
}
