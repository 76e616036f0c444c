import Foundation
import PlaceQuery
import PostgresNIO

/// The commonest query of a place service — places near a point, no filter but visibility, for
/// an anonymous viewer — as a statement prepared once per connection.
///
/// Every other query is parsed, analysed and planned each time it runs. For this one that was
/// most of PostgreSQL's work: a profile of `geoquery serve` under wrk (near 1 km, first 50) put
/// 25 % of all CPU in parsing and planning and 5 % in executing. Prepared, with PostgreSQL's
/// generic plan (the pools ask for `plan_cache_mode = force_generic_plan`, which only named
/// statements such as this one use), it is planned once per connection. The generic plan is the
/// GiST index scan on `geog` that the custom plans choose.
///
/// The optional parts of the dynamic statement are parameters with neutral values: no cursor is
/// `d >= -1`, no keyset is `(d, id) > (-1, '')`, no limit is `LIMIT NULL`.
struct NearStatement<Table: PlaceTableName>: PostgresPreparedStatement {
    static var name: String { "geoquery_near_" + Table.name }

    static var sql: String {
        """
        SELECT id, name, latitude, longitude, record, d FROM (SELECT id, name, latitude, longitude, record, \
        ST_Distance(geog, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography) AS d FROM \(Table.name) \
        WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $3) \
        AND (gem_visibility IS NULL OR gem_visibility = 'public')) s \
        WHERE d >= $4 AND (d, id) > ($5, $6) ORDER BY d, id LIMIT $7
        """
    }

    static var bindingDataTypes: [PostgresDataType] { [.float8, .float8, .float8, .float8, .float8, .text, .int8] }

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

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(longitude)
        bindings.append(latitude)
        bindings.append(radius)
        bindings.append(minimumDistance)
        bindings.append(keysetDistance)
        bindings.append(keysetID)
        bindings.append(limit)
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
}

enum PlacesTable: PlaceTableName {
    static var name: String { "places" }
}

enum GemsTable: PlaceTableName {
    static var name: String { "gems" }
}
