/// The statements every query uses, prepared once per connection and kept, so that a query
/// never hashes SQL text to find them. Reached only with the index lock held.
struct HotStatements {
    private var rowsInBoxStatement: SQLiteStatement?
    private var rowByPKStatement: SQLiteStatement?
    private var beginStatement: SQLiteStatement?
    private var commitStatement: SQLiteStatement?

    /// `BEGIN` (deferred: a read transaction once the first statement reads).
    mutating func begin(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        if let beginStatement { return beginStatement }
        let prepared = try index.connection.prepare("BEGIN")
        beginStatement = prepared
        return prepared
    }

    mutating func commit(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        if let commitStatement { return commitStatement }
        let prepared = try index.connection.prepare("COMMIT")
        commitStatement = prepared
        return prepared
    }

    private static func boxSQL(_ columns: String) -> String {
        """
        SELECT \(columns) FROM idx_places_geom r CROSS JOIN places p ON p.pk = r.pkid
        WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2
        """
    }

    /// Whole rows whose R*Tree box meets (?1 west, ?2 south, ?3 east, ?4 north).
    mutating func rowsInBox(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        if let rowsInBoxStatement { return rowsInBoxStatement }
        let prepared = try index.connection.prepare(Self.boxSQL(Schema.selectColumns))
        rowsInBoxStatement = prepared
        return prepared
    }

    /// The whole row with pk ?1.
    mutating func rowByPK(_ index: SpatiaLitePlaceIndex) throws -> SQLiteStatement {
        if let rowByPKStatement { return rowByPKStatement }
        let prepared = try index.connection.prepare("SELECT \(Schema.selectColumns) FROM places p WHERE p.pk = ?1")
        rowByPKStatement = prepared
        return prepared
    }

}
