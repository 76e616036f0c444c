import Foundation
import GeoCore
import PlaceModel

/// Writes inside one transaction of ``SpatiaLitePlaceIndex/write(_:)``. Valid only inside that
/// closure.
///
/// A transaction whose first upsert finds the index empty is a bulk load: the triggers on
/// `places` (SpatiaLite's geometry checks, timestamps and spatial-index upkeep, the name index's)
/// are set aside while rows go in; before the commit the spatial index is built as a packed
/// R*Tree (``PackedRTree``), the name index in one pass, and the triggers are put back exactly as
/// they were. Every row's geometry is built from validated coordinates, byte for byte as
/// SpatiaLite's `MakePoint` builds it, so the checks the geometry triggers would make hold by
/// construction. It is all one transaction, so a
/// failure or a kill still leaves the previous contents, triggers included.
public final class PlaceWriter {
    let index: SpatiaLitePlaceIndex
    private var decidedBulk = false
    private(set) var isBulkLoad = false
    /// The triggers set aside during a bulk load, to recreate verbatim.
    private var setAsideTriggers: [String] = []
    /// The highest pk in the table (read at the first upsert, then kept up to date): a new row's
    /// rowid is always above it, so a returned pk at or below it means the upsert updated an
    /// existing row, whose old categories must go.
    private var highestPK: Int64?
    /// The source of the snapshot under way (``beginSnapshot(source:)``).
    var snapshotSource: String?
    /// True when the snapshot's source had no places when it began: nothing to compare or remove.
    var snapshotIsFresh = false

    init(index: SpatiaLitePlaceIndex) { self.index = index }

    /// Enters bulk mode if this is the first write to an empty index and the batch is large.
    private func considerBulkLoad(batchSize: Int) throws {
        guard !decidedBulk else { return }
        decidedBulk = true
        guard batchSize >= 1000, try index.connection.scalarInt("SELECT count(*) FROM (SELECT 1 FROM places LIMIT 1)") == 0 else {
            return
        }
        let triggers = try index.connection.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places'")
        var names: [String] = []
        while try triggers.step() {
            names.append(triggers.text(0) ?? "")
            setAsideTriggers.append(triggers.text(1) ?? "")
        }
        for name in names { try index.connection.execute("DROP TRIGGER \"\(name)\"") }
        isBulkLoad = true
    }

    /// Builds what a bulk load deferred. Called by ``SpatiaLitePlaceIndex/write(_:)`` before COMMIT.
    func finish() throws {
        guard isBulkLoad else { return }
        try PackedRTree.build(index.connection)
        try index.connection.execute("INSERT INTO places_fts (places_fts) VALUES ('rebuild')")
        for sql in setAsideTriggers { try index.connection.execute(sql) }
        try index.connection.execute("""
            UPDATE geometry_columns_time SET last_insert = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            WHERE f_table_name = 'places' AND f_geometry_column = 'geom'
            """)
        setAsideTriggers = []
        isBulkLoad = false
    }

    /// Inserts or replaces places by id. The batch is written in Hilbert-curve order so that
    /// places near each other share database pages (about 1.5× faster queries).
    /// - Returns: how many places were written.
    @discardableResult
    public func upsert(_ places: [Place]) throws -> Int {
        let counts = try upsertCounting(try places.map(EncodedPlace.init))
        return counts.inserted + counts.updated
    }

    /// Upserts and tells new rows from rewritten ones.
    func upsertCounting(_ places: [EncodedPlace]) throws -> (inserted: Int, updated: Int) {
        // The batch is written in Hilbert order, not its own: of an id given twice, only the last
        // is written (the earlier one counts as written, then updated).
        var seen = Set<String>(minimumCapacity: places.count)
        var superseded = 0
        var latest: [EncodedPlace] = []
        latest.reserveCapacity(places.count)
        for encoded in places.reversed() {
            if seen.insert(encoded.place.id.rawValue).inserted { latest.append(encoded) } else { superseded += 1 }
        }
        let ordered = latest.sorted { $0.hilbert < $1.hilbert }
        try considerBulkLoad(batchSize: places.count)
        let insert = try index.statement(PlaceRowCodec.insertSQL)
        let clearCategories = try index.statement("DELETE FROM place_categories WHERE pk = ?1")
        let addCategory = try index.statement("INSERT OR IGNORE INTO place_categories (category, pk) VALUES (?1, ?2)")
        var highest = try highestPK ?? index.connection.scalarInt("SELECT coalesce(max(pk), 0) FROM places") ?? 0
        defer { highestPK = highest }
        var updated = 0
        let append = isBulkLoad ? try index.statement(PlaceRowCodec.appendSQL) : nil
        for encoded in ordered {
            let place = encoded.place
            let pk: Int64
            if let append, let appended = try self.append(encoded, with: append) {
                pk = appended
            } else {
                PlaceRowCodec.bind(encoded, to: insert)
                guard try insert.step() else {
                    throw PlaceStoreError.sqlite(code: 0, message: "upsert returned no row", sql: PlaceRowCodec.insertSQL)
                }
                pk = insert.int64(0)
                try insert.run()
            }
            if pk <= highest {  // an existing row: its old categories go
                updated += 1
                clearCategories.reset()
                clearCategories.bind(pk, at: 1)
                try clearCategories.run()
            }
            highest = max(highest, pk)
            for category in place.categories {
                addCategory.reset()
                addCategory.bind(category.identifier, at: 1)
                addCategory.bind(pk, at: 2)
                try addCategory.run()
            }
        }
        insert.reset()
        return (ordered.count - updated, updated + superseded)
    }

    /// Inserts a row that is new; nil when its id exists already (a constraint error), for the
    /// caller to upsert instead.
    private func append(_ encoded: EncodedPlace, with statement: SQLiteStatement) throws -> Int64? {
        PlaceRowCodec.bind(encoded, to: statement)
        do {
            try statement.run()
        } catch PlaceStoreError.sqlite(let code, _, _) where code & 0xFF == 19 /* SQLITE_CONSTRAINT */ {
            statement.reset()
            return nil
        }
        return index.connection.lastInsertRowID
    }

    /// Deletes places by id. - Returns: how many existed.
    @discardableResult
    public func delete(_ ids: [PlaceID]) throws -> Int {
        let statement = try index.statement("DELETE FROM places WHERE id = ?1")
        var deleted = 0
        for id in ids {
            statement.reset()
            statement.bind(id.rawValue, at: 1)
            try statement.run()
            deleted += index.connection.changes
        }
        return deleted
    }

    /// Records a fact about the index (for example the time a source was last imported).
    public func setMetadata(_ value: String, forKey key: String) throws {
        let statement = try index.statement("INSERT OR REPLACE INTO geoquery_meta (key, value) VALUES (?1, ?2)")
        statement.reset()
        statement.bind(key, at: 1)
        statement.bind(value, at: 2)
        try statement.run()
    }
}
