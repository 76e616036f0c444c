import Foundation
import GeoCore
import PlaceQuery
import PostgresNIO

/// The commonest query of a place service — places near a point, no filter but visibility, for
/// an anonymous viewer — as a statement prepared once per connection.
///
/// Every other query is parsed, analysed and planned each time it runs. For this one that was
/// most of PostgreSQL's work: a profile of `geoquery serve` under wrk (near 1 km, first 50) put
/// 25 % of all CPU in parsing and planning and 5 % in executing. Prepared, with PostgreSQL's
/// generic plan (the pools ask for `plan_cache_mode = force_generic_plan`, which only named
/// statements such as this one use), it is planned once per connection.
///
/// The engine narrows through the 2-D GiST index on `geog::geometry`: the circle's covering box
/// (``GeoCore/BoundingBox/covering(center:radius:)``, one or two parts) selects the candidates,
/// and `ST_DWithin` on the spheroid keeps those in the disc. The place tables have no
/// `geography` index (migration 6 dropped it): the 2-D index answers the same circles from
/// fewer pages, and building it costs a quarter of what the `geography` index cost an import.
///
/// The optional parts of the dynamic statement are parameters with neutral values: no cursor is
/// `d >= -1`, no keyset is `(d, id) > (-1, '')`, no limit is `LIMIT NULL`.
struct NearStatement<Table: PlaceTableName>: PostgresPreparedStatement {
    static var name: String { "geoquery_near_" + Table.name }

    static var sql: String {
        """
        SELECT id, name, latitude, longitude, record, d FROM (SELECT id, name, latitude, longitude, record, \
        ST_Distance(geog, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography) AS d FROM \(Table.name) \
        WHERE (geog::geometry && ST_MakeEnvelope($8, $9, $10, $11, 4326) OR geog::geometry && ST_MakeEnvelope($12, $13, $14, $15, 4326)) \
        AND ST_DWithin(geog, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $3) \
        AND (gem_visibility IS NULL OR gem_visibility = 'public')) s \
        WHERE d >= $4 AND (d, id) > ($5, $6) ORDER BY d, id LIMIT $7
        """
    }

    static var bindingDataTypes: [PostgresDataType] {
        [.float8, .float8, .float8, .float8, .float8, .text, .int8] + Array(repeating: .float8, count: 8)
    }

    typealias Row = (String, String, Double, Double, ByteBuffer, Double)

    var longitude: Double
    var latitude: Double
    /// The engine's search radius in metres.
    var radius: Double
    /// Rows nearer than this are skipped (a cursor's distance less the slack); -1 for none.
    var minimumDistance: Double
    /// Rows up to and including this (distance, id) were read in an earlier chunk; (-1, "") for none.
    var keysetDistance: Double
    var keysetID: String
    /// Rows to read; nil for all.
    var limit: Int?
    /// The box covering the searched disc: one part, or the two halves of one that crosses the
    /// antimeridian.
    var parts: [BoundingBox]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 15)
        bindings.append(longitude)
        bindings.append(latitude)
        bindings.append(radius)
        bindings.append(minimumDistance)
        bindings.append(keysetDistance)
        bindings.append(keysetID)
        bindings.append(limit)
        bindings.appendEnvelopes(parts)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }

    /// Whether `filter` asks nothing of SQL but what this statement tests: no viewer, and no
    /// condition on columns (opening hours are tested in Swift either way).
    static func covers(_ filter: PlaceFilter) -> Bool {
        filter.viewer == nil && filter.categories.isEmpty
            && (filter.text ?? "").trimmingCharacters(in: .whitespaces).isEmpty
            && filter.minimumRating == nil && filter.priceLevels == nil
            && filter.sources.isEmpty && filter.countries.isEmpty && filter.continents.isEmpty
    }
}

/// A place table's name, as a type, so that each table gets a prepared statement of its own.
protocol PlaceTableName: Sendable {
    static var name: String { get }
    /// The tables a ``BoxNearStatement`` reads: this one, or several read as one.
    static var tables: [String] { get }
}

extension PlaceTableName {
    static var tables: [String] { [name] }
}

enum PlacesTable: PlaceTableName {
    static var name: String { "places" }
}

enum GemsTable: PlaceTableName {
    static var name: String { "gems" }
}

/// The places and the gems read by one ``BoxNearStatement`` (`UNION ALL` of the two); for that
/// statement only — no table has this name.
enum PlacesAndGemsTables: PlaceTableName {
    static var name: String { "places_and_gems" }
    static var tables: [String] { [PlacesTable.name, GemsTable.name] }
}

/// Every place in one or two longitude/latitude boxes (two when the box crosses the
/// antimeridian) that a viewer may see listed, up to a cap: the candidates of a small-radius near
/// query, read through the 2-D GiST index on `geog::geometry` and decided wholly in Swift.
///
/// A small circle's candidates are few, and this index answers a box from fewer pages than a
/// `geography` index answered `ST_DWithin` (26 buffers against 142 for a 1 km query on the
/// bench's million places), with no spheroidal distance computed and nothing sorted by the
/// engine. When the cap is reached the caller falls back to ``NearStatement``, so a dense area
/// costs one capped read more, never a wrong answer.
struct BoxNearStatement<Table: PlaceTableName>: PostgresPreparedStatement {
    static var name: String { "geoquery_box_near_" + Table.name }

    /// One capped read per table; several tables' reads are one statement (`UNION ALL`), each
    /// capped on its own, so the caller's cap test sees at least as many rows as any one holds.
    static var sql: String {
        Table.tables.map { table in
            """
            (SELECT id, name, latitude, longitude, record FROM \(table) \
            WHERE (geog::geometry && ST_MakeEnvelope($1, $2, $3, $4, 4326) OR geog::geometry && ST_MakeEnvelope($5, $6, $7, $8, 4326)) \
            AND (gem_visibility IS NULL OR gem_visibility = 'public' \
            OR (gem_visibility IN ('private', 'friends') AND gem_owner = $10) \
            OR (gem_visibility = 'friends' AND gem_owner = ANY($11))) LIMIT $9)
            """
        }.joined(separator: " UNION ALL ")
    }

    static var bindingDataTypes: [PostgresDataType] {
        [.float8, .float8, .float8, .float8, .float8, .float8, .float8, .float8, .int8, .text, .textArray]
    }

    /// Whether `filter` asks nothing of SQL but what this statement tests: who views (gems are
    /// listed as ``SQLBuilder/conditions(for:)`` lists them), and no condition on columns
    /// (opening hours are tested in Swift either way).
    static func covers(_ filter: PlaceFilter) -> Bool {
        var anonymous = filter
        anonymous.viewer = nil
        return NearStatement<Table>.covers(anonymous)
    }

    typealias Row = (String, String, Double, Double, ByteBuffer)

    /// One box, or the two halves of one that crosses the antimeridian.
    var parts: [BoundingBox]
    /// At most this many rows are read.
    var cap: Int
    /// Who asks: their own private and friends-only gems are listed too; nil for anonymous.
    var viewer: String?
    /// The users whose friends-only gems the viewer sees (the viewer's friends).
    var viewerFriends: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 11)
        bindings.appendEnvelopes(parts)
        bindings.append(cap)
        bindings.append(viewer)
        bindings.append(viewer == nil ? [] : viewerFriends)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Row.self)
    }
}

extension PostgresBindings {
    /// The corners (west, south, east, north) of two envelopes: the parts of a box that crosses
    /// the antimeridian, or one box's twice.
    mutating func appendEnvelopes(_ parts: [BoundingBox]) {
        for part in [parts[0], parts.count > 1 ? parts[1] : parts[0]] {
            append(part.west)
            append(part.south)
            append(part.east)
            append(part.north)
        }
    }
}
