import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

extension SpatiaLitePlaceIndex {
    /// Relative error band of the haversine distance against the ellipsoidal one. The true bound
    /// on WGS84 is about 0.56 %; candidates whose haversine distance exceeds the radius by more
    /// than this are certainly outside and skip the exact computation.
    static let cheapDistanceBand = 0.01

    /// Every place within `radius` (ellipsoidal distance, the radius itself included) of
    /// `center`, sorted by distance then id, `limit` at a time.
    ///
    /// A radius at or beyond half the meridian (20 003.93 km, the longest geodesic there is)
    /// means the whole Earth and is searched as that. Worst case: a first page counts at most
    /// 4 × (limit + 1) R*Tree entries (``firstProbeRadius(_:radius:filter:wanted:)``), then
    /// searches growing discs (×4 per step when empty) until one holds a page or covers the
    /// radius, so a query that matches nothing costs about 4/3 of one scan of every candidate
    /// in the radius; a later page is one such scan.
    ///
    /// - Parameters:
    ///   - limit: the most places to return; nil for all.
    ///   - cursor: ``PlacePage/nextCursor`` of the previous page of the same query.
    /// - Throws: ``PlaceQueryError``
    ///   for a limit below 1, or a SQLite error.
    public func near(
        _ center: Coordinate, radius: Distance, filter: PlaceFilter = .none,
        limit: Int? = nil, cursor: String? = nil
    ) throws -> PlacePage {
        try near(center, radius: radius, filter: filter, limit: limit, cursor: cursor, withUserData: false)
    }

    /// ``near(_:radius:filter:limit:cursor:)``, over the places and, when `withUserData` is
    /// true, the gems of the attached user data file (``attachUserData(_:)``) as one index:
    /// the answer `MergedPlaceIndex([places, gems])` gives. Neither text nor categories may be
    /// filtered on with `withUserData` (those read tables of the places file only).
    func near(
        _ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?,
        withUserData: Bool
    ) throws -> PlacePage {
        precondition(!withUserData || !Self.readsSideTables(filter), "text and categories are searched per file")
        try Self.validate(limit: limit)
        let fingerprint = { PageCursor.nearFingerprint(center: center, radius: radius, filter: filter) }
        let after = try cursor.map { try PageCursor(decoding: $0, expectedFingerprint: fingerprint()) }
        let searched = Self.searchedRadius(radius)
        return try reading {
            // A first page needs only the nearest `limit` places plus proof that more exist: search
            // growing discs and stop as soon as one holds more than a page. Same page, same cursor.
            if let limit, after == nil {
                var probe = try firstProbeRadius(center, radius: searched, filter: filter, wanted: limit + 1, withUserData: withUserData)
                while probe < searched {
                    let page = try collect(
                        center, radius: probe, filter: filter, limit: limit, after: nil, fingerprint: fingerprint,
                        withUserData: withUserData)
                    if page.nextCursor != nil { return page }
                    probe = Self.nextProbeRadius(probe, found: page.matches.count, wanted: limit + 1)
                }
            }
            return try collect(
                center, radius: searched, filter: filter, limit: limit, after: after, fingerprint: fingerprint,
                withUserData: withUserData)
        }
    }

    /// Whether a filter reads the name or category tables (``scan(box:filter:withUserData:_:)``
    /// then drives the scan by them).
    static func readsSideTables(_ filter: PlaceFilter) -> Bool {
        filter.text.map { !$0.trimmingCharacters(in: .whitespaces).isEmpty } == true || !filter.categories.isEmpty
    }

    static let firstProbeRadius = 500.0

    /// The first disc a first page searches. When nothing is filtered but gems by their
    /// visibility (``PlaceQuery/PlaceFilter/isEmpty``), so that entries stand for matches, the
    /// R*Tree entries in the whole radius's box are counted, up to 4 × `wanted`:
    /// - fewer than that, and the disc is sized to hold about 1.5 × `wanted` of them were they
    ///   spread evenly, or is the whole radius when the box holds few (one scan, no probes);
    /// - as many or more (a dense area), or with any other filter (which may match few of the
    ///   entries), the discs grow from ``firstProbeRadius`` by the density each one sees.
    ///
    /// Either way the page is the same: a disc answers only once it holds more than a page.
    /// Counting costs at most 4 × `wanted` entries and reads no row; on the bench's sparse gems
    /// it halves the discs searched and saves about a quarter of the rows read.
    func firstProbeRadius(
        _ center: Coordinate, radius: Double, filter: PlaceFilter, wanted: Int,
        withUserData: Bool = false
    ) throws -> Double {
        guard radius > Self.firstProbeRadius, filter.isEmpty else { return Self.firstProbeRadius }
        let cap = 4 * wanted
        let count = try entryCount(
            in: BoundingBox.covering(center: center, radius: Distance(uncheckedMeters: radius)), upTo: cap,
            withUserData: withUserData)
        if count >= cap { return Self.firstProbeRadius }
        let margin = 1.5
        if Double(count) <= margin * margin * Double(wanted) { return radius }
        return max(Self.firstProbeRadius, radius * (margin * Double(wanted) / Double(count)).squareRoot())
    }

    /// The radius actually searched: nothing lies farther than half the meridian, so a larger
    /// radius is the whole Earth (a metre more, so that rounding in a computed antipodal
    /// distance never leaves a place out).
    static func searchedRadius(_ radius: Distance) -> Double {
        min(radius.meters, WGS84.halfMeridianLength + 1)
    }

    /// How many discs a first page searches at most before its final scan: the probes when each
    /// finds nothing (×4 per step from ``firstProbeRadius``).
    static func worstCaseProbes(_ radius: Distance) -> Int {
        var probe = firstProbeRadius, count = 0
        while probe < searchedRadius(radius) {
            count += 1
            probe = nextProbeRadius(probe, found: 0, wanted: 2)
        }
        return count
    }

    /// The next disc to search: grown by the density the last one saw (area ∝ r²) with a
    /// margin, ×4 when it saw nothing.
    static func nextProbeRadius(_ radius: Double, found: Int, wanted: Int) -> Double {
        let factor = found == 0 ? 4 : min(4, max(1.25, (Double(wanted) / Double(found)).squareRoot() * 1.25))
        return radius * factor
    }

    /// Scans one disc: every match after `after`, sorted, the first `limit` of them. Call with
    /// the lock held (inside ``reading(_:)``).
    private func collect(
        _ center: Coordinate, radius r: Double, filter: PlaceFilter, limit: Int?,
        after: PageCursor?, fingerprint: () -> UInt64, withUserData: Bool = false
    ) throws -> PlacePage {
        let box = BoundingBox.covering(center: center, radius: Distance(uncheckedMeters: r))
        let origin = Geodesic.Origin(center)
        let cheapLimit = r * (1 + Self.cheapDistanceBand) + 1
        var hits = HitCollector()
        let rowFilter = RowFilter(filter)
        try scan(box: box, filter: filter, withUserData: withUserData) { row, latitude, longitude in
            let cheap = haversineDistance(center, Coordinate(uncheckedLatitude: latitude, longitude: longitude))
            if cheap > cheapLimit { return }
            let d = Geodesic.distance(from: origin, latitude: latitude, longitude: longitude)
            if d > r { return }
            if let after, !Self.isAfter(distance: d, idBytes: row.bytes(3), cursor: after) { return }
            guard rowFilter.passes(row) else { return }
            hits.add(row, latitude: latitude, longitude: longitude, distance: d)
        }
        return hits.page(limit: limit, fingerprint: fingerprint, withDistances: true)
    }

    /// Every place inside `box` (crossing the antimeridian when west > east), sorted by id.
    /// Worst case: one scan of every candidate in the box (the whole index for a world box),
    /// whatever `limit` is, as the answer is sorted by id.
    public func within(
        _ box: BoundingBox, filter: PlaceFilter = .none, limit: Int? = nil,
        cursor: String? = nil
    ) throws -> PlacePage {
        try Self.validate(limit: limit)
        let fingerprint = { PageCursor.withinFingerprint(box: box, filter: filter) }
        let after = try cursor.map { try PageCursor(decoding: $0, expectedFingerprint: fingerprint()) }
        return try reading {
            var hits = HitCollector()
            let rowFilter = RowFilter(filter)
            try scan(box: box, filter: filter) { row, latitude, longitude in
                guard box.contains(latitude: latitude, longitude: longitude) else { return }
                if let after, !Self.isAfter(distance: 0, idBytes: row.bytes(3), cursor: after) { return }
                guard rowFilter.passes(row) else { return }
                hits.add(row, latitude: latitude, longitude: longitude, distance: 0)
            }
            return hits.page(limit: limit, fingerprint: fingerprint, withDistances: false)
        }
    }

    /// The `count` places nearest to `center` (ellipsoidal distance), no further than
    /// `maxDistance`, sorted by distance then id.
    ///
    /// Searches growing radii from 500 m, each step sized by the density the previous one saw:
    /// the places within a radius, sorted, begin with the nearest ones overall as soon as there
    /// are `count` of them. Without a name or category filter the steps read the R*Tree's
    /// entries and only the rows that can be among the nearest
    /// (``nearestByEntries(_:radius:filter:count:)``). All steps read one
    /// snapshot. Worst case (a filter that matches fewer
    /// than `count` places): the discs grow to half the meridian, about 4/3 of one scan of the
    /// whole index.
    public func nearest(
        _ center: Coordinate, count: Int, maxDistance: Distance? = nil,
        filter: PlaceFilter = .none
    ) throws -> [PlaceMatch] {
        guard count >= 1 else { throw PlaceQueryError.invalidArgument(name: "k", value: String(count), valid: "it must be at least 1") }
        let ceiling = min(maxDistance?.meters ?? WGS84.halfMeridianLength, WGS84.halfMeridianLength)
        return try reading {
            var radius = min(Self.firstProbeRadius, ceiling)
            let unused = { UInt64(0) }
            if Self.findsNearestByEntries(filter) {
                return try nearestByEntries(center, radius: ceiling, filter: filter, count: count)
            }
            while true {
                let page = try collect(center, radius: radius, filter: filter, limit: count, after: nil, fingerprint: unused)
                if page.matches.count == count || radius >= ceiling { return page.matches }
                radius = min(Self.nextProbeRadius(radius, found: page.matches.count, wanted: count), ceiling)
            }
        }
    }

    // MARK: - Candidate scan

    /// Calls `body` for every stored place whose coordinates may lie in `box`, with the row
    /// positioned on ``Schema/selectColumns``. Must be called with the lock held.
    ///
    /// Candidates come from the spatial index; with a text or category filter that matches
    /// fewer places than the spatial index would offer, they come from those places instead.
    ///
    /// With `withUserData` the candidates are those of both files (``attachUserData(_:)``);
    /// the filter must then read no side table (``readsSideTables(_:)``).
    func scan(
        box: BoundingBox, filter: PlaceFilter, withUserData: Bool = false,
        _ body: (SQLiteStatement, Double, Double) throws -> Void
    ) throws {
        var textMatches: Set<Int64>?
        if let text = filter.text, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            textMatches = try fullTextMatches(text)
            if textMatches!.isEmpty { return }
        }
        var driver: [Int64]?
        if textMatches != nil || !filter.categories.isEmpty {
            let spatialCount = try entryCount(in: box, upTo: 200_000)  // bounded: it only steers the plan
            if let textMatches, textMatches.count < spatialCount {
                driver = Array(textMatches)
            } else if !filter.categories.isEmpty, let byCategory = try categoryMatches(filter.categories, atMost: spatialCount) {
                driver = byCategory
            }
        }
        if let driver {
            let row = try hot.rowByPK(self)
            for pk in driver.sorted() {
                if let textMatches, !textMatches.contains(pk) { continue }
                row.reset()
                row.bind(pk, at: 1)
                guard try row.step() else { continue }
                let latitude = row.double(1), longitude = row.double(2)
                if box.contains(latitude: latitude, longitude: longitude) { try body(row, latitude, longitude) }
            }
            row.reset()
            return
        }
        let row = try withUserData ? hot.rowsInBoxWithUserData(self) : hot.rowsInBox(self)
        defer { row.reset() }
        for part in box.nonWrappingParts {
            row.rebind(box: part)
            while try row.step() {
                if let textMatches, !textMatches.contains(row.int64(0)) { continue }
                try body(row, row.double(1), row.double(2))
            }
        }
    }

    /// How many R*Tree entries meet the box (both halves of one that crosses the antimeridian),
    /// counted up to `cap`: the count reads entries only, and stops there.
    func entryCount(in box: BoundingBox, upTo cap: Int, withUserData: Bool = false) throws -> Int {
        let statement = try withUserData ? hot.entryCountWithUserData(self) : hot.entryCount(self)
        defer { statement.reset() }
        var count = 0
        for part in box.nonWrappingParts where count < cap {
            statement.rebind(box: part)
            statement.bind(Int64(cap - count), at: 5)
            if try statement.step() { count += Int(statement.int64(0)) }
        }
        return count
    }

    /// The pks of places in any of the categories (children included), or nil when there are
    /// more than `limit`.
    private func categoryMatches(_ categories: [Category], atMost limit: Int) throws -> [Int64]? {
        let lookup = try statement(
            """
            SELECT pk FROM place_categories WHERE category = ?1 OR (category > ?2 AND category < ?3) LIMIT ?4
            """)
        var pks = Set<Int64>()
        for category in categories {
            lookup.reset()
            lookup.bind(category.identifier, at: 1)
            lookup.bind(category.identifier + ".", at: 2)
            lookup.bind(category.identifier + "/", at: 3)  // "/" sorts right after "."
            lookup.bind(Int64(limit + 1), at: 4)
            while try lookup.step() {
                pks.insert(lookup.int64(0))
                if pks.count > limit {
                    lookup.reset()
                    return nil
                }
            }
        }
        lookup.reset()
        return Array(pks)
    }

    /// The pks whose names match every word of `text` as a word prefix. Control characters
    /// separate words, as in the name index's tokenizer (a NUL would otherwise cut the bound
    /// query short).
    func fullTextMatches(_ text: String) throws -> Set<Int64> {
        let words = text.split(whereSeparator: { character in
            character.isWhitespace || character.isPunctuation
                || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
        })
        guard !words.isEmpty else { return [] }
        let query = words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
        let lookup = try statement("SELECT rowid FROM places_fts WHERE places_fts MATCH ?1")
        lookup.reset()
        lookup.bind(query, at: 1)
        var result = Set<Int64>()
        while try lookup.step() { result.insert(lookup.int64(0)) }
        lookup.reset()
        return result
    }

    // MARK: - Row tests on raw columns

    /// Whether (distance, id) sorts after the cursor.
    static func isAfter(distance: Double, idBytes: UnsafeBufferPointer<UInt8>, cursor: PageCursor) -> Bool {
        if distance != cursor.distance { return distance > cursor.distance }
        return cursor.id.utf8.lexicographicallyPrecedes(idBytes)
    }

    static func validate(limit: Int?) throws {
        if let limit, limit < 1 {
            throw PlaceQueryError.invalidArgument(name: "limit", value: String(limit), valid: "it must be at least 1 (or no limit)")
        }
    }
}
