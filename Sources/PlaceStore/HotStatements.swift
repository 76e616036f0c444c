import GeoCore

/// The statements every query uses, prepared once per connection and kept, so that a query
/// never hashes SQL text to find them. Reached only with the index lock held.
struct HotStatements {
    private var rowsInBoxStatement: SQLiteStatement?
    private var rowByPKStatement: SQLiteStatement?
    private var entriesInBoxStatement: SQLiteStatement?
    private var entryCountStatement: SQLiteStatement?
    private var rowsInBoxWithUserDataStatement: SQLiteStatement?
    private var entryCountWithUserDataStatement: SQLiteStatement?
    private var beginStatement: SQLiteStatement?
    private var commitStatement: SQLiteStatement?

    private static func prepared(
        _ slot: inout SQLiteStatement?, _ sql: @autoclosure () -> String,
        _ index: SpatiaLitePlaceIndex
    ) throws -> SQLiteStatement {
        if let slot { return slot }
        let statement = try index.connection.prepare(sql())
        slot = statement
        return statement
    }

    /// Whole rows whose R*Tree box meets (?1 west, ?2 south, ?3 east, ?4 north).
    mutating func rowsInBox(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        try Self.prepared(
            &rowsInBoxStatement,
            """
            SELECT \(Schema.selectColumns) FROM idx_places_geom r CROSS JOIN places p ON p.pk = r.pkid
            WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2
            """, index)
    }

    /// The R*Tree's entries (pk, west, south) that meet the box, without their rows.
    mutating func entriesInBox(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        try Self.prepared(
            &entriesInBoxStatement,
            """
            SELECT r.pkid, r.xmin, r.ymin FROM idx_places_geom r
            WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2
            """, index)
    }

    /// How many R*Tree entries meet the box, counted up to ?5 (the count stops there).
    mutating func entryCount(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        try Self.prepared(
            &entryCountStatement,
            """
            SELECT count(*) FROM (SELECT 1 FROM idx_places_geom r
            WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2 LIMIT ?5)
            """, index)
    }

    /// ``rowsInBox(_:)`` over the places and the attached user data file's gems
    /// (``SpatiaLitePlaceIndex/attachUserData(_:)``) at once.
    mutating func rowsInBoxWithUserData(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        let userData = SpatiaLitePlaceIndex.userDataSchema
        return try Self.prepared(
            &rowsInBoxWithUserDataStatement,
            """
            SELECT \(Schema.selectColumns) FROM main.idx_places_geom r CROSS JOIN main.places p ON p.pk = r.pkid
            WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2
            UNION ALL
            SELECT \(Schema.selectColumns) FROM \(userData).idx_places_geom r CROSS JOIN \(userData).places p ON p.pk = r.pkid
            WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2
            """, index)
    }

    /// ``entryCount(_:)`` over both files' R*Trees, each counted up to ?5.
    mutating func entryCountWithUserData(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        let userData = SpatiaLitePlaceIndex.userDataSchema
        return try Self.prepared(
            &entryCountWithUserDataStatement,
            """
            SELECT (SELECT count(*) FROM (SELECT 1 FROM main.idx_places_geom r
                    WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2 LIMIT ?5))
                 + (SELECT count(*) FROM (SELECT 1 FROM \(userData).idx_places_geom r
                    WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2 LIMIT ?5))
            """, index)
    }

    /// Drops the statements that read the attached user data file (before it is detached).
    mutating func forgetUserDataStatements() {
        rowsInBoxWithUserDataStatement = nil
        entryCountWithUserDataStatement = nil
    }

    /// The whole row with pk ?1.
    mutating func rowByPK(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        try Self.prepared(&rowByPKStatement, "SELECT \(Schema.selectColumns) FROM places p WHERE p.pk = ?1", index)
    }

    /// `BEGIN` (deferred: a read transaction once the first statement reads).
    mutating func begin(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        try Self.prepared(&beginStatement, "BEGIN", index)
    }

    mutating func commit(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        try Self.prepared(&commitStatement, "COMMIT", index)
    }
}

extension SQLiteStatement {
    /// Resets the statement and binds a box that does not cross the antimeridian the way the
    /// R*Tree statements take it: ?1 west, ?2 south, ?3 east, ?4 north.
    @inline(__always)
    func rebind(box part: BoundingBox) {
        reset()
        bind(part.west, at: 1)
        bind(part.south, at: 2)
        bind(part.east, at: 3)
        bind(part.north, at: 4)
    }
}
