import CSpatiaLite
import Foundation
import GeoCore

/// The raw engine baseline: one hand-prepared statement joining SpatiaLite's R*Tree to the
/// table, the same exact distance decision as the library, and no model decoding: it returns
/// only (id, name, distance), sorted.
final class RawBaseline {
    private var db: OpaquePointer?
    private var statement: OpaquePointer?

    init(path: String) {
        sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        sqlite3_exec(db, "PRAGMA cache_size = -131072; PRAGMA mmap_size = 4294967296", nil, nil, nil)
        let sql = """
            SELECT p.id, p.name, p.lat, p.lon FROM idx_places_geom r CROSS JOIN places p ON p.pk = r.pkid
            WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2
            """
        sqlite3_prepare_v2(db, sql, -1, &statement, nil)
    }

    deinit {
        for ranked in rankedStatements.values { sqlite3_finalize(ranked) }
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }

    struct Row {
        var id: String
        var name: String
        var distance: Double
    }

    /// The first `limit` places of a region by the rank index, decoded to (id, name): the
    /// statement a hand-written ranked page would run. - Returns: how many rows.
    func ranked(column: String, value: String, limit: Int) -> Int {
        var statement: OpaquePointer?
        if rankedStatements[column] == nil {
            sqlite3_prepare_v2(
                db, "SELECT p.id, p.name FROM places p INDEXED BY places_\(column)_rank WHERE p.\(column) = ?1 ORDER BY p.rank_key, p.id LIMIT ?2",
                -1, &statement, nil)
            rankedStatements[column] = statement
        }
        statement = rankedStatements[column]!
        sqlite3_reset(statement)
        sqlite3_bind_text(statement, 1, value, -1, geoquery_sqlite_transient())
        sqlite3_bind_int64(statement, 2, Int64(limit))
        var count = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            _ = String(cString: sqlite3_column_text(statement, 0))
            _ = String(cString: sqlite3_column_text(statement, 1))
            count += 1
        }
        return count
    }
    private var rankedStatements: [String: OpaquePointer?] = [:]

    func near(_ center: Coordinate, radius: Double) -> [Row] {
        let box = BoundingBox.covering(center: center, radius: Distance(uncheckedMeters: radius))
        let origin = Geodesic.Origin(center)
        var rows: [Row] = []
        for part in box.nonWrappingParts {
            sqlite3_reset(statement)
            sqlite3_bind_double(statement, 1, part.west)
            sqlite3_bind_double(statement, 2, part.south)
            sqlite3_bind_double(statement, 3, part.east)
            sqlite3_bind_double(statement, 4, part.north)
            while sqlite3_step(statement) == SQLITE_ROW {
                let latitude = sqlite3_column_double(statement, 2), longitude = sqlite3_column_double(statement, 3)
                if haversineDistance(center, Coordinate(uncheckedLatitude: latitude, longitude: longitude)) > radius * 1.01 + 1 { continue }
                let d = Geodesic.distance(from: origin, latitude: latitude, longitude: longitude)
                guard d <= radius else { continue }
                rows.append(
                    Row(
                        id: String(cString: sqlite3_column_text(statement, 0)),
                        name: String(cString: sqlite3_column_text(statement, 1)), distance: d))
            }
        }
        rows.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        return rows
    }
}
