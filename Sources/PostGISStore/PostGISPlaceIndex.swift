import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresNIO

/// A ``PlaceIndex`` on a PostgreSQL/PostGIS place table (`places`, or `gems` inside
/// ``PostGISUserStore``), with exactly the semantics of every other implementation.
///
/// PostGIS narrows and orders (the circle's covering box through the 2-D GiST index on
/// `geog::geometry`, then `ST_DWithin` and `ST_Distance` on the spheroid; for a small circle's
/// page, every candidate of that box, see ``BoxNearStatement``); Swift decides. Inclusion and order use
/// GeoCore's WGS84 distance computed from the stored coordinates, so a place on the boundary is
/// in or out exactly as on SpatiaLite. The engine's distance may differ from GeoCore's by a
/// hair, so the engine searches a slightly larger disc (``engineSlack``) and a page is returned
/// only once every place that could still sort before its end has been read (see
/// ``near(_:radius:filter:limit:cursor:)``).
///
/// Reads go to the read pool (a replica, when one is configured), writes to the primary.
public final class PostGISPlaceIndex: PlaceIndex, Sendable {
    let primary: PostGISDatabase
    let reader: PostGISDatabase
    /// `places` or `gems`: one of this target's constants, never input.
    let table: String

    /// The most by which PostGIS's spheroidal distance may differ from GeoCore's, in metres. Both
    /// solve the same inverse problem to nanometres (PostGIS through GeographicLib); a metre is a
    /// wide margin that costs a few extra candidate rows.
    static let engineSlack = 1.0

    init(primary: PostGISDatabase, reader: PostGISDatabase? = nil, table: String) {
        self.primary = primary
        self.reader = reader ?? primary
        self.table = table
    }

    /// The place index of the `places` table of an open database.
    public convenience init(database: PostGISDatabase, readReplica: PostGISDatabase? = nil) {
        self.init(primary: database, reader: readReplica, table: "places")
    }

    /// The primary database (writes, and reads when there is no replica).
    public var location: PostGISLocation { primary.location }

    /// Closes the connection pools.
    public func close() async {
        await primary.close()
        if reader !== primary { await reader.close() }
    }

    /// Opens the database at `url`, migrating its schema to the newest version.
    /// - Parameter timeout: how long a statement may wait for a pooled connection (and the first
    ///   connection to open) before the call fails as unavailable.
    /// - Parameter statementTimeout: the longest one statement may run (a server passes its
    ///   request timeout, so a query that would scan for long frees its database backend too);
    ///   nil for no limit. Migrations are not bound by it.
    public static func open(
        _ url: String, readReplica: String? = nil, maximumConnections: Int = 16,
        timeout: Duration = .seconds(10), statementTimeout: Duration? = nil
    ) async throws -> PostGISPlaceIndex {
        let database = try await PostGISDatabase.connect(
            url, maximumConnections: maximumConnections, timeout: timeout,
            statementTimeout: statementTimeout)
        do {
            try await PostGISSchema.migrate(database)
            var replica: PostGISDatabase?
            if let readReplica {
                replica = try await PostGISDatabase.connect(
                    readReplica, maximumConnections: maximumConnections, timeout: timeout,
                    statementTimeout: statementTimeout)
            }
            return PostGISPlaceIndex(database: database, readReplica: replica)
        } catch {
            await database.close()
            throw error
        }
    }

    // MARK: - Queries

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try Self.validate(limit: limit)
        let fingerprint = PageCursor.nearFingerprint(center: center, radius: radius, filter: filter)
        let after = try cursor.map { try PageCursor(decoding: $0, expectedFingerprint: fingerprint) }
        let hits = try await nearHits(center, radius: radius.meters, filter: filter, limit: limit, after: after)
        return Self.page(hits, limit: limit, fingerprint: fingerprint, withDistances: true)
    }

    /// The places within `radius` metres after `after`, sorted by (distance, id): the first
    /// `limit + 1` of them (all when `limit` is nil).
    ///
    /// Reads candidates in the engine's (distance, id) order, in chunks. After a chunk whose
    /// last engine distance is D, every unread place is at least D − slack away by GeoCore, so
    /// the hits nearer than that are final; when more than `limit` are final the page is known.
    func nearHits(_ center: Coordinate, radius: Double, filter: PlaceFilter, limit: Int?, after: PageCursor?) async throws -> [Hit] {
        let searched = min(radius, WGS84.halfMeridianLength + 1)
        let origin = Geodesic.Origin(center)
        var hits: [Hit] = []
        var keyset: (distance: Double, id: String)?
        var chunk = limit.map { $0 + 1 + 32 }
        if limit != nil, radius <= Self.boxNearMaximumRadius, BoxNearStatement<PlacesTable>.covers(filter),
            let boxHits = try await boxHits(center, radius: radius, filter: filter, after: after, withGems: false)
        {
            return boxHits
        }
        // The engine's disc, narrowed through the 2-D index by its covering box.
        let engineBox = BoundingBox.covering(center: center, radius: Distance(uncheckedMeters: searched + Self.engineSlack))
        while true {
            let rows: [NearStatement<PlacesTable>.Row]
            // A page (the service's every query) takes the prepared statement; a whole answer
            // (`--limit all`) is rarer and larger, and its custom plan may read the heap better.
            if chunk != nil && searched < WGS84.halfMeridianLength && NearStatement<PlacesTable>.covers(filter) {
                rows = try await preparedNear(
                    longitude: center.longitude, latitude: center.latitude,
                    radius: searched + Self.engineSlack,
                    minimumDistance: after.map { $0.distance - Self.engineSlack } ?? -1,
                    keysetDistance: keyset?.distance ?? -1, keysetID: keyset?.id ?? "", limit: chunk,
                    parts: engineBox.nonWrappingParts)
            } else {
                var sql = SQLBuilder()
                let lon = sql.bind(center.longitude), lat = sql.bind(center.latitude)
                let point = "ST_SetSRID(ST_MakePoint(\(lon), \(lat)), 4326)::geography"
                var conditions = try sql.conditions(for: filter)
                if searched < WGS84.halfMeridianLength {
                    conditions.insert("ST_DWithin(geog, \(point), \(sql.bind(searched + Self.engineSlack)))", at: 0)
                    conditions.insert(sql.pointIsIn(engineBox), at: 0)
                }
                var outer: [String] = []
                if let after { outer.append("d >= \(sql.bind(after.distance - Self.engineSlack))") }
                if let keyset { outer.append("(d, id) > (\(sql.bind(keyset.distance)), \(sql.bind(keyset.id)))") }
                var text =
                    "SELECT id, name, latitude, longitude, record, d FROM (SELECT id, name, latitude, longitude, record, "
                    + "ST_Distance(geog, \(point)) AS d FROM \(table)"
                if !conditions.isEmpty { text += " WHERE " + conditions.joined(separator: " AND ") }
                text += ") s"
                if !outer.isEmpty { text += " WHERE " + outer.joined(separator: " AND ") }
                text += " ORDER BY d, id"
                if let chunk { text += " LIMIT \(sql.bind(chunk))" }
                rows = try await pool(for: filter).rows(sql.query(text)).map { try $0.decode(NearStatement<PlacesTable>.Row.self) }
            }
            var lastEngineDistance = 0.0, lastID = ""
            for (id, name, latitude, longitude, record, engineDistance) in rows {
                lastEngineDistance = engineDistance
                lastID = id
                if let hit = Self.hit(
                    id: id, name: name, latitude: latitude, longitude: longitude, record: record,
                    origin: origin, radius: searched, after: after, openAt: filter.openAt)
                {
                    hits.append(hit)
                }
            }
            hits.sort(by: Hit.precedes)
            guard let limit, let size = chunk, rows.count == size else { return hits }
            let settled = hits.prefix { $0.distance < lastEngineDistance - Self.engineSlack }
            if settled.count > limit { return Array(settled) }
            keyset = (lastEngineDistance, lastID)
            chunk = size * 2
        }
    }

    /// A row read for a near query as a hit, or nil when GeoCore puts it beyond `radius`, it sorts
    /// no later than the cursor, or it is not open at `openAt`.
    private static func hit(
        id: String, name: String, latitude: Double, longitude: Double, record: ByteBuffer,
        origin: Geodesic.Origin, radius: Double, after: PageCursor?, openAt: Date?
    ) -> Hit? {
        let d = Geodesic.distance(from: origin, latitude: latitude, longitude: longitude)
        if d > radius { return nil }
        if let after, !sortsAfter(distance: d, id: id, cursor: after) { return nil }
        let hit = Hit(id: id, name: name, latitude: latitude, longitude: longitude, record: record, distance: d)
        if let openAt, hit.place.isOpen(at: openAt) != true { return nil }
        return hit
    }

    /// Radii up to this many metres may be answered from ``BoxNearStatement``'s candidates.
    static let boxNearMaximumRadius = 50_000.0
    /// The most candidates ``BoxNearStatement`` reads before the engine's ordered search takes over.
    static let boxNearCap = 1_000

    /// The hits of a near query within ``boxNearMaximumRadius`` from every candidate in the box
    /// that covers the circle, sorted; nil when the box holds more than ``boxNearCap``. `filter`
    /// must be one ``BoxNearStatement/covers(_:)``. With `withGems`, the `gems` table's gems the
    /// viewer may see are read in the same statement (``PostGISPlacesAndGemsIndex``), from the
    /// primary for a signed-in viewer as every read of theirs of the gems.
    func boxHits(_ center: Coordinate, radius: Double, filter: PlaceFilter, after: PageCursor?, withGems: Bool) async throws -> [Hit]? {
        let box = BoundingBox.covering(center: center, radius: Distance(uncheckedMeters: radius))
        let parts = box.nonWrappingParts
        let cap = Self.boxNearCap + 1, viewer = filter.viewer, friends = filter.viewerFriends
        let rows: [BoxNearStatement<PlacesTable>.Row]
        if withGems {
            rows = try await (viewer == nil ? reader : primary)
                .rows(BoxNearStatement<PlacesAndGemsTables>(parts: parts, cap: cap, viewer: viewer, viewerFriends: friends))
        } else if table == GemsTable.name {
            rows = try await pool(for: filter).rows(BoxNearStatement<GemsTable>(parts: parts, cap: cap, viewer: viewer, viewerFriends: friends))
        } else {
            rows = try await reader.rows(BoxNearStatement<PlacesTable>(parts: parts, cap: cap, viewer: viewer, viewerFriends: friends))
        }
        guard rows.count <= Self.boxNearCap else { return nil }
        let origin = Geodesic.Origin(center)
        var hits: [Hit] = []
        for (id, name, latitude, longitude, record) in rows {
            if let hit = Self.hit(
                id: id, name: name, latitude: latitude, longitude: longitude, record: record,
                origin: origin, radius: radius, after: after, openAt: filter.openAt)
            {
                hits.append(hit)
            }
        }
        // Every candidate was read, so every hit is final.
        return hits.sorted(by: Hit.precedes)
    }

    /// ``NearStatement`` on this index's table, on the read pool (it serves anonymous viewers only).
    private func preparedNear(
        longitude: Double, latitude: Double, radius: Double, minimumDistance: Double,
        keysetDistance: Double, keysetID: String, limit: Int?,
        parts: [BoundingBox]
    ) async throws -> [NearStatement<PlacesTable>.Row] {
        if table == GemsTable.name {
            return try await reader.rows(
                NearStatement<GemsTable>(
                    longitude: longitude, latitude: latitude, radius: radius,
                    minimumDistance: minimumDistance, keysetDistance: keysetDistance,
                    keysetID: keysetID, limit: limit, parts: parts))
        }
        return try await reader.rows(
            NearStatement<PlacesTable>(
                longitude: longitude, latitude: latitude, radius: radius,
                minimumDistance: minimumDistance, keysetDistance: keysetDistance,
                keysetID: keysetID, limit: limit, parts: parts))
    }

    public func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try Self.validate(limit: limit)
        let fingerprint = PageCursor.withinFingerprint(box: box, filter: filter)
        var afterID = try cursor.map { try PageCursor(decoding: $0, expectedFingerprint: fingerprint).id }
        var hits: [Hit] = []
        let chunk = limit.map { $0 + 1 + 32 }
        while true {
            var sql = SQLBuilder()
            var conditions = [sql.pointIsIn(box)] + (try sql.conditions(for: filter))
            if let afterID { conditions.append("id > \(sql.bind(afterID))") }
            var text =
                "SELECT id, name, latitude, longitude, record FROM \(table) WHERE " + conditions.joined(separator: " AND ")
                + " ORDER BY id"
            if let chunk { text += " LIMIT \(sql.bind(chunk))" }
            let rows = try await pool(for: filter).rows(sql.query(text))
            for row in rows {
                let (id, name, latitude, longitude, record) = try row.decode((String, String, Double, Double, ByteBuffer).self)
                afterID = id
                guard box.contains(latitude: latitude, longitude: longitude) else { continue }
                let hit = Hit(id: id, name: name, latitude: latitude, longitude: longitude, record: record, distance: 0)
                if let openAt = filter.openAt, hit.place.isOpen(at: openAt) != true { continue }
                hits.append(hit)
            }
            // Rows come in id order, so every hit read is final.
            if let limit, let chunk, rows.count == chunk, hits.count <= limit { continue }
            return Self.page(hits, limit: limit, fingerprint: fingerprint, withDistances: false)
        }
    }

    /// Searches growing discs from 500 m (×4 while empty, else sized by the density seen) until
    /// one holds `count` places or reaches `maxDistance` (half the meridian at most).
    public func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        guard count >= 1 else { throw PlaceQueryError.invalidArgument(name: "k", value: String(count), valid: "it must be at least 1") }
        let ceiling = min(maxDistance?.meters ?? WGS84.halfMeridianLength, WGS84.halfMeridianLength)
        var radius = min(500, ceiling)
        while true {
            let hits = try await nearHits(center, radius: radius, filter: filter, limit: count, after: nil)
            if hits.count >= count || radius >= ceiling { return hits.prefix(count).map { $0.match(withDistance: true) } }
            let factor = hits.isEmpty ? 4 : min(4, max(1.25, (Double(count + 1) / Double(hits.count)).squareRoot() * 1.25))
            radius = min(radius * factor, ceiling)
        }
    }

    /// Best first (``PlaceRank``) in the countries or continents `filter` names: one branch per
    /// region, each an ordered walk of its `(region key, rank_key, id)` index from the cursor, merged
    /// by the engine (a Merge Append), read in chunks until a page is known. With countries and
    /// continents both given, the countries drive and the continents are a condition. Worst case
    /// (conditions that match little): one walk of the named regions' entries.
    public func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try Self.validate(limit: limit)
        try PlaceRank.requireRegion(filter)
        var after = try PlaceRank.cursor(cursor, filter: filter)
        let (column, values) =
            filter.countries.isEmpty
            ? ("continent", filter.continents.map(\.rawValue)) : ("country", filter.countries)
        var hits: [(key: Int64, hit: Hit)] = []
        let chunk = limit.map { $0 + 1 + 32 }
        while true {
            var sql = SQLBuilder()
            var conditions = try sql.conditions(for: filter)
            if let after { conditions.append("(rank_key, id) > (\(sql.bind(after.key)), \(sql.bind(after.id)))") }
            let limitText = chunk.map { " LIMIT \(sql.bind($0))" } ?? ""
            let branches = Set(values).sorted().map { value in
                // The rank index's key, and the code itself (see `PostGISSchema.regionKey`).
                let code = sql.bind(value)
                return "(SELECT id, name, latitude, longitude, record, rank_key FROM \(table) WHERE "
                    + "\(PostGISSchema.regionKey(column)) = \(PostGISSchema.regionKey(code)) AND \(column) = \(code) AND "
                    + conditions.joined(separator: " AND ") + " ORDER BY rank_key, id\(limitText))"
            }
            let text = "SELECT * FROM (" + branches.joined(separator: " UNION ALL ") + ") ranked ORDER BY rank_key, id" + limitText
            let rows = try await pool(for: filter).rows(sql.query(text))
            for row in rows {
                let (id, name, latitude, longitude, record, key) = try row.decode((String, String, Double, Double, ByteBuffer, Int64).self)
                after = (key, id)
                let hit = Hit(id: id, name: name, latitude: latitude, longitude: longitude, record: record, distance: 0)
                if let openAt = filter.openAt, hit.place.isOpen(at: openAt) != true { continue }
                hits.append((key, hit))
            }
            // Rows come in (rank_key, id) order, so every hit read is final.
            if let limit, let chunk, rows.count == chunk, hits.count <= limit { continue }
            guard let limit, hits.count > limit else { return PlacePage(matches: hits.map { $0.hit.match(withDistance: false) }, nextCursor: nil) }
            let kept = hits.prefix(limit)
            let last = kept[kept.index(before: kept.endIndex)]
            return PlacePage(
                matches: kept.map { $0.hit.match(withDistance: false) },
                nextCursor: PlaceRank.encodedCursor(key: last.key, id: last.hit.id, filter: filter))
        }
    }

    public func place(_ id: PlaceID) async throws -> Place? {
        let rows = try await reader.rows("SELECT id, name, latitude, longitude, record FROM \(unescaped: table) WHERE id = \(id.rawValue)")
        guard let row = rows.first else { return nil }
        let (id, name, latitude, longitude, record) = try row.decode((String, String, Double, Double, ByteBuffer).self)
        return Hit(id: id, name: name, latitude: latitude, longitude: longitude, record: record, distance: 0).place
    }

    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] {
        guard !ids.isEmpty else { return [:] }
        let wanted = Array(Set(ids.map(\.rawValue)))
        let rows = try await reader.rows("SELECT id, name, latitude, longitude, record FROM \(unescaped: table) WHERE id = ANY(\(wanted))")
        var found: [PlaceID: Place] = [:]
        for row in rows {
            let (id, name, latitude, longitude, record) = try row.decode((String, String, Double, Double, ByteBuffer).self)
            let place = Hit(id: id, name: name, latitude: latitude, longitude: longitude, record: record, distance: 0).place
            found[place.id] = place
        }
        return found
    }

    public func count(source: String?) async throws -> Int {
        if let source {
            return try await reader.scalarInt("SELECT count(*)::bigint FROM \(unescaped: table) WHERE source = \(source)") ?? 0
        }
        return try await reader.scalarInt("SELECT count(*)::bigint FROM \(unescaped: table)") ?? 0
    }

    // MARK: - Writes

    /// Inserts or replaces places (the last of two with one id wins), in one transaction.
    /// - Returns: how many rows were written.
    @discardableResult
    public func upsert(_ places: [Place]) async throws -> Int {
        guard !places.isEmpty else { return 0 }
        // One row per id, the last: the staging table keeps no order.
        var lastIndex: [PlaceID: Int] = [:]
        for (index, place) in places.enumerated() { lastIndex[place.id] = index }
        let batch = try PostGISBatch(
            lastIndex.count == places.count
                ? places
                : places.indices.filter { lastIndex[places[$0].id] == $0 }.map { places[$0] })
        let table = self.table
        return try await primary.transaction { connection in try await Self.write(batch, into: table, on: connection) }
    }

    /// Inserts or replaces the batch's places (no id twice) in `table` inside the caller's transaction.
    /// - Returns: how many rows were written.
    static func write(_ batch: PostGISBatch, into table: String, on connection: PostgresConnection) async throws -> Int {
        try await stage(batch, on: connection, logger: PostGISDatabase.statementLogger)
        let rows = try await connection.all(
            PostgresQuery(
                unsafeSQL: """
                    WITH written AS (INSERT INTO \(table) (\(PlaceRecord.tableColumns))
                        SELECT \(PlaceRecord.stagedValues) FROM staging s
                        ON CONFLICT (id) DO UPDATE SET \(PlaceRecord.updateAssignments) RETURNING 1)
                    SELECT count(*)::bigint FROM written
                    """))
        return try rows.first?.decode(Int.self) ?? 0
    }

    @discardableResult
    public func delete(_ ids: [PlaceID]) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let rows = try await primary.rows(
            """
            WITH gone AS (DELETE FROM \(unescaped: table) WHERE id = ANY(\(ids.map(\.rawValue))) RETURNING 1)
            SELECT count(*)::bigint FROM gone
            """)
        return try rows.first?.decode(Int.self) ?? 0
    }

    /// Creates the temporary `staging` table (dropped at commit) or empties it, and copies the
    /// batch into it.
    static func stage(_ batch: PostGISBatch, on connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query(PostgresQuery(unsafeSQL: PlaceRecord.stagingTable), logger: logger).collect()
        _ = try await connection.query("TRUNCATE staging", logger: logger).collect()
        try await copy(batch, into: "staging", on: connection, logger: logger)
    }

    /// Streams the batch's lines into `table` (a place table or a staging table) with COPY, a
    /// megabyte at a time.
    static func copy(_ batch: PostGISBatch, into table: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.copyFrom(table: table, columns: PlaceRecord.columns, logger: logger) { writer in
            let lines = batch.lines
            var start = 0
            while start < lines.count {
                var end = min(start + 1 << 20, lines.count)
                while end < lines.count && lines[end - 1] != 0x0A { end += 1 }
                var buffer = ByteBufferAllocator().buffer(capacity: end - start)
                buffer.writeBytes(lines[start..<end])
                try await writer.write(buffer)
                start = end
            }
        }
    }

    // MARK: - Helpers

    /// Runs a hand-written statement on the read pool and decodes its (id, name, distance) rows:
    /// the raw baseline `make bench` measures the library against. - Returns: how many rows.
    package func rawQuery(_ query: PostgresQuery) async throws -> Int {
        let rows = try await reader.rows(query)
        for row in rows { _ = try row.decode((String, String, Double).self) }
        return rows.count
    }

    /// Where a query reads: the replica, but a signed-in viewer's query of the gems goes to the
    /// primary, so whoever just wrote a gem reads their own write (a replica may lag behind).
    /// Imported places change only by imports, which no request waits for.
    func pool(for filter: PlaceFilter) -> PostGISDatabase {
        table == "gems" && filter.viewer != nil ? primary : reader
    }

    static func validate(limit: Int?) throws {
        if let limit, limit < 1 {
            throw PlaceQueryError.invalidArgument(name: "limit", value: String(limit), valid: "it must be at least 1 (or no limit)")
        }
    }

    static func sortsAfter(distance: Double, id: String, cursor: PageCursor) -> Bool {
        if distance != cursor.distance { return distance > cursor.distance }
        return PlaceID.utf8Precedes(cursor.id, id)
    }

    /// The first `limit` hits, with a cursor when more follow.
    static func page(_ hits: [Hit], limit: Int?, fingerprint: UInt64, withDistances: Bool) -> PlacePage {
        guard let limit, hits.count > limit else {
            return PlacePage(matches: hits.map { $0.match(withDistance: withDistances) }, nextCursor: nil)
        }
        let kept = hits.prefix(limit)
        let last = kept[kept.index(before: kept.endIndex)]
        let cursor = PageCursor(distance: withDistances ? last.distance : 0, id: last.id, queryFingerprint: fingerprint)
        return PlacePage(matches: kept.map { $0.match(withDistance: withDistances) }, nextCursor: cursor.encoded())
    }
}

/// One row an answer keeps: its columns, and its record decoded only when asked.
struct Hit: Sendable {
    var id: String
    var name: String
    var latitude: Double
    var longitude: Double
    var record: ByteBuffer
    var distance: Double

    var place: Place {
        record.withUnsafeReadableBytes { PlaceRecord.place(record: $0, id: id, name: name, latitude: latitude, longitude: longitude) }
    }

    func match(withDistance: Bool) -> PlaceMatch {
        PlaceMatch(storage: StoredPlace(self), offset: 0, distance: withDistance ? Distance(uncheckedMeters: distance) : nil)
    }

    static func precedes(_ a: Hit, _ b: Hit) -> Bool {
        a.distance != b.distance ? a.distance < b.distance : PlaceID.utf8Precedes(a.id, b.id)
    }
}

/// One stored place handed out in an answer: the cheap fields at once, the whole place decoded
/// from its record when asked. Immutable.
final class StoredPlace: PlaceRowStorage {
    let hit: Hit
    init(_ hit: Hit) { self.hit = hit }
    func place(at offset: Int) -> Place { hit.place }
    func id(at offset: Int) -> PlaceID { PlaceID(trustedRawValue: hit.id) }
    func name(at offset: Int) -> String { hit.name }
    func coordinate(at offset: Int) -> Coordinate { Coordinate(uncheckedLatitude: hit.latitude, longitude: hit.longitude) }
    func withStoredRow<R>(at offset: Int, _ body: (StoredPlaceRow) throws -> R) rethrows -> R? {
        var id = hit.id, name = hit.name
        return try id.withUTF8 { id in
            try name.withUTF8 { name in
                try hit.record.withUnsafeReadableBytes { record in
                    try body(
                        StoredPlaceRow(
                            id: UnsafeRawBufferPointer(id), name: UnsafeRawBufferPointer(name),
                            latitude: hit.latitude, longitude: hit.longitude, details: record))
                }
            }
        }
    }
}
