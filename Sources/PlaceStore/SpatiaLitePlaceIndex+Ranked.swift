import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

extension SpatiaLitePlaceIndex {
    /// The places of the countries or continents `filter` names, best first (``PlaceRank``),
    /// `limit` at a time.
    ///
    /// Each named region is one walk of its rank index (`places_country_rank` or
    /// `places_continent_rank`) from the cursor, in (rank_key, id) order; the walks are merged
    /// and every other condition is tested on the raw row, so a page stops as soon as it holds
    /// `limit + 1` matches. With countries and continents both given, the countries drive and the
    /// continents are a condition. Worst case (conditions that match little): one walk of the
    /// named regions' entries, never of the whole index.
    ///
    /// - Throws: ``PlaceQueryError`` for a limit below 1, a filter with no region, or a cursor
    ///   of another query; or a SQLite error.
    public func ranked(filter: PlaceFilter, limit: Int? = nil, cursor: String? = nil) throws -> PlacePage {
        try Self.validate(limit: limit)
        try PlaceRank.requireRegion(filter)
        let after = try PlaceRank.cursor(cursor, filter: filter)
        let (column, values) =
            filter.countries.isEmpty
            ? ("continent", filter.continents.map(\.rawValue)) : ("country", filter.countries)
        return try reading {
            var textMatches: Set<Int64>?
            if let text = filter.text, !text.trimmingCharacters(in: .whitespaces).isEmpty {
                let found = try fullTextMatches(text)
                if found.isEmpty { return PlacePage(matches: [], nextCursor: nil) }
                textMatches = found
            }
            var sql =
                "SELECT \(Schema.selectColumns), p.rank_key FROM places p INDEXED BY places_\(column)_rank "
                + "WHERE p.\(column) = ?1"
            if after != nil { sql += " AND (p.rank_key, p.id) > (?2, ?3)" }
            sql += " ORDER BY p.rank_key, p.id"
            // One walk per region, each positioned on its first row; every walk is reset on the
            // way out, so a cached statement never keeps its read open past the query.
            var walks: [SQLiteStatement] = []
            defer { for walk in walks { walk.reset() } }
            for (n, value) in Set(values).sorted().enumerated() {
                // The first walk reuses the cached statement; more regions need statements of their own.
                let walk = n == 0 ? try statement(sql) : try connection.prepare(sql)
                walk.reset()
                walk.bind(value, at: 1)
                if let after {
                    walk.bind(after.key, at: 2)
                    walk.bind(after.id, at: 3)
                }
                if try walk.step() { walks.append(walk) }
            }
            // The walks keep only rows of the driving regions: that condition needs no second test.
            var rowConditions = filter
            if filter.countries.isEmpty { rowConditions.continents = [] } else { rowConditions.countries = [] }
            let rowFilter = RowFilter(rowConditions)
            var rows = RowArena.Builder()
            var kept: [(key: Int64, offset: Int)] = []
            let wanted = limit.map { $0 + 1 } ?? Int.max
            while kept.count < wanted, !walks.isEmpty {
                // The walk whose current row sorts first (a handful of walks: a linear pick).
                var first = 0
                for candidate in walks.indices.dropFirst() where Self.rankPrecedes(walks[candidate], walks[first]) { first = candidate }
                let row = walks[first]
                if textMatches?.contains(row.int64(0)) ?? true, rowFilter.passes(row) {
                    kept.append((row.int64(6), rows.append(row, latitude: row.double(1), longitude: row.double(2))))
                }
                if try !row.step() { walks.remove(at: first) }
            }
            let arena = rows.finish()
            let count = limit.map { min($0, kept.count) } ?? kept.count
            let matches = kept.prefix(count).map { PlaceMatch(storage: arena, offset: $0.offset, distance: nil) }
            var next: String?
            if count < kept.count, let last = kept.prefix(count).last {
                next = PlaceRank.encodedCursor(key: last.key, id: arena.text(.id, at: last.offset) ?? "", filter: filter)
            }
            return PlacePage(matches: matches, nextCursor: next)
        }
    }

    /// Whether the row `a` is on sorts before the row `b` is on, by (rank_key, id bytes).
    private static func rankPrecedes(_ a: SQLiteStatement, _ b: SQLiteStatement) -> Bool {
        let keyA = a.int64(6), keyB = b.int64(6)
        if keyA != keyB { return keyA < keyB }
        return a.bytes(3).lexicographicallyPrecedes(b.bytes(3))
    }
}
