import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// Writes inside one transaction of ``SpatiaLitePlaceIndex/write(_:)``. Valid only inside that
/// closure.
///
/// A transaction whose first upsert finds the index empty is a bulk load: the triggers on
/// `places` (SpatiaLite's geometry checks, timestamps and spatial-index upkeep, the name index's)
/// and the secondary indexes of `places` and `place_categories` are set aside while rows go in,
/// and category rows are held back (``PendingCategories``). Before the commit the spatial index
/// is built as a packed R*Tree (``PackedRTree``), the category rows are written in key order,
/// each set-aside index is built in one sorted pass, the name index (built meanwhile on a thread
/// of its own, ``SideNameIndex``) is copied in, and the triggers are put back exactly as they were. Every row's geometry is built from validated
/// coordinates, byte for byte as SpatiaLite's `MakePoint` builds it, so the checks the geometry
/// triggers would make hold by construction. It is all one transaction, so a failure or a kill
/// still leaves the previous contents, triggers and indexes included.
public final class PlaceWriter {
    let index: SpatiaLitePlaceIndex
    private var decidedBulk = false
    private(set) var isBulkLoad = false
    /// A bulk load over a non-empty index (``enterRebuild()``): the spatial, category and name
    /// indexes are rebuilt from every row at the end rather than kept up row by row.
    private(set) var rebuildsAll = false
    /// The indexes and triggers set aside during a bulk load, to recreate verbatim.
    private var setAside: [String] = []
    /// The category rows of a bulk load, written at its end.
    private var pendingCategories = PendingCategories()
    /// The name index of a bulk load, built beside it; nil when a row was written twice (the
    /// name index is then rebuilt in one pass at the end instead).
    private var sideNames: SideNameIndex?
    /// The page cache size to restore after a bulk load.
    private var regularCacheSize: Int64?
    /// The source of the snapshot under way (``beginSnapshot(source:)``).
    var snapshotSource: String?
    /// True when the index was empty when the snapshot began: nothing to compare or remove, and
    /// the first large batch makes it a bulk load.
    var snapshotIsFresh = false
    /// Changed rows of a snapshot not written yet (``SnapshotRebuild``), in dump order.
    var deferredWrites: [(batch: EncodedBatch, rows: [Int])] = []
    var deferredCount = 0
    /// How many changed rows make rebuilding the indexes cheaper than keeping them up.
    var rebuildThreshold = Int.max

    /// The page cache of a bulk load, in KiB: 1 GiB, which holds a load of about three million
    /// places without spilling. SQLite allocates it only as pages are used.
    static let bulkCacheKiB = 1 << 20

    init(index: SpatiaLitePlaceIndex) { self.index = index }

    /// Enters bulk mode if this is the first write to an empty index and the batch is large.
    private func considerBulkLoad(batchSize: Int) throws {
        guard !decidedBulk else { return }
        decidedBulk = true
        guard batchSize >= 1000, try index.connection.scalarInt("SELECT count(*) FROM (SELECT 1 FROM places LIMIT 1)") == 0 else {
            return
        }
        try setAsideIndexesAndTriggers()
        // Names are indexed beside the load (SideNameIndex), when the name index is the kind
        // whose shadow tables can be copied.
        if let definition = try index.connection.scalarText("SELECT sql FROM sqlite_master WHERE name = 'places_fts'"),
            definition.contains("columnsize = 0"), definition.contains("content = 'places'")
        {
            sideNames = try SideNameIndex(definition: definition)
        }
    }

    /// Switches a transaction that will change a large share of a non-empty index to a bulk
    /// load that rebuilds: triggers and secondary indexes are set aside as for an empty index,
    /// and at the end the packed R*Tree, the category rows and the name index are rebuilt from
    /// every row of `places` — cheaper than keeping them up row by row once more than about a
    /// tenth of the rows change (``SnapshotRebuild``). Nothing changes for readers until the
    /// commit; a failure or a kill leaves the previous index whole.
    func enterRebuild() throws {
        guard !isBulkLoad else { return }
        decidedBulk = true
        try setAsideIndexesAndTriggers()
        rebuildsAll = true
    }

    /// Drops the triggers on `places` and the secondary indexes, remembering them verbatim.
    private func setAsideIndexesAndTriggers() throws {
        // Secondary indexes (not the unique key's automatic one, which has no sql) and triggers.
        let objects = try index.connection.prepare(
            """
            SELECT type, name, sql FROM sqlite_master
            WHERE (type = 'trigger' AND tbl_name = 'places')
               OR (type = 'index' AND tbl_name IN ('places', 'place_categories') AND sql IS NOT NULL)
            ORDER BY type
            """)
        var drops: [String] = []
        while try objects.step() {
            drops.append("DROP \(objects.text(0) == "index" ? "INDEX" : "TRIGGER") \"\(objects.text(1) ?? "")\"")
            setAside.append(objects.text(2) ?? "")
        }
        for drop in drops { try index.connection.execute(drop) }
        // The whole load stays in memory until the commit rather than spilling pages twice.
        regularCacheSize = try index.connection.scalarInt("PRAGMA cache_size")
        try index.connection.execute("PRAGMA cache_size = -\(Self.bulkCacheKiB)")
        isBulkLoad = true
    }

    /// Builds what a bulk load deferred. Called by ``SpatiaLitePlaceIndex/write(_:)`` before COMMIT.
    func finish() throws {
        guard isBulkLoad else { return }
        if rebuildsAll {
            try index.connection.execute(
                """
                DELETE FROM idx_places_geom_rowid;
                DELETE FROM idx_places_geom_parent;
                DELETE FROM place_categories;
                """)
            pendingCategories = try Self.categoriesOfEveryRow(index.connection)
        }
        try PackedRTree.build(index.connection)
        try pendingCategories.write(to: index.connection)
        pendingCategories = PendingCategories()
        for sql in setAside { try index.connection.execute(sql) }
        if rebuildsAll {
            try index.connection.execute("INSERT INTO places_fts (places_fts) VALUES ('rebuild')")
        } else if let sideNames {
            try sideNames.copy(into: index.connection)
        } else {
            try index.connection.execute("INSERT INTO places_fts (places_fts) VALUES ('rebuild')")
        }
        sideNames = nil
        if let regularCacheSize { try index.connection.execute("PRAGMA cache_size = \(regularCacheSize)") }
        try index.connection.execute(
            """
            UPDATE geometry_columns_time SET last_insert = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            WHERE f_table_name = 'places' AND f_geometry_column = 'geom'
            """)
        setAside = []
        isBulkLoad = false
        rebuildsAll = false
    }

    /// The category rows of every place, read from the categories each row's details hold.
    private static func categoriesOfEveryRow(_ connection: SQLiteConnection) throws -> PendingCategories {
        var pending = PendingCategories()
        var codes: [[UInt8]: Int] = [:]
        let rows = try connection.prepare("SELECT pk, details FROM places")
        while try rows.step() {
            let list = PlaceDetailsCodec.filterFields(rows.nonEmptyBlob(1)).categories
            guard list.count > 0 else { continue }
            var found: [Int] = []
            for identifier in list.split(separator: 0x20) {
                let key = Array(identifier)
                let code: Int
                if let known = codes[key] {
                    code = known
                } else {
                    code = pending.code(for: String(decoding: key, as: UTF8.self))
                    codes[key] = code
                }
                found.append(code)
            }
            pending.add(found, pk: rows.int64(0))
        }
        return pending
    }

    /// Inserts or replaces places by id. The batch is written in Hilbert-curve order so that
    /// places near each other share database pages (about 1.5× faster queries).
    /// - Returns: how many places were written.
    @discardableResult
    public func upsert(_ places: [Place]) throws -> Int {
        let counts = try upsertCounting(try EncodedBatch(places))
        return counts.inserted + counts.updated
    }

    /// Upserts the rows of `batch` (by default all) and tells new rows from rewritten ones.
    ///
    /// The batch is written in Hilbert order, not its own: of an id given twice, only the last is
    /// written (the earlier one counts as written, then updated).
    func upsertCounting(_ batch: EncodedBatch, rows subset: [Int]? = nil) throws -> (inserted: Int, updated: Int) {
        let (ordered, superseded) = batch.writeOrder(of: subset)
        try considerBulkLoad(batchSize: ordered.count)
        let insert = try index.statement(PlaceRowCodec.insertSQL)
        let clearCategories = try index.statement("DELETE FROM place_categories WHERE pk = ?1")
        let addCategory = try index.statement("INSERT OR IGNORE INTO place_categories (category, pk) VALUES (?1, ?2)")
        var updated = 0
        let append = isBulkLoad ? try index.statement(PlaceRowCodec.appendSQL) : nil
        // The batch's category codes as the bulk load's.
        let bulkCodes = isBulkLoad ? batch.categoryIdentifiers.map { pendingCategories.code(for: $0) } : []
        let geometry = UnsafeMutableRawBufferPointer.allocate(byteCount: PlaceRowCodec.pointGeometrySize, alignment: 8)
        defer { geometry.deallocate() }
        var named: [(row: Int, pk: Int64)] = []
        if sideNames != nil { named.reserveCapacity(ordered.count) }
        defer { if !named.isEmpty { sideNames?.add(batch, rows: named) } }
        try batch.bytes.withUnsafeBufferPointer { bytes in
            // Every statement borrows the batch's bytes: none may keep them past this closure.
            defer { for statement in [insert, append] { statement?.reset() } }
            for rowIndex in ordered {
                let row = batch.rows[rowIndex]
                let pk: Int64, isUpdate: Bool
                if let append, let appended = try self.append(row, bytes: bytes, geometry: geometry, with: append) {
                    (pk, isUpdate) = (appended, false)
                } else {
                    // After a failed append the id exists (the upsert updates it): no key to find.
                    let proposed = append == nil ? try unusedKey(near: row.hilbert) : nil
                    PlaceRowCodec.bind(row, bytes: bytes, geometry: geometry, to: insert)
                    if let proposed { insert.bind(proposed, at: 11) } else { insert.bind(nil as String?, at: 11) }
                    guard try insert.step() else {
                        throw PlaceStoreError.sqlite(code: 0, message: "upsert returned no row", sql: PlaceRowCodec.insertSQL)
                    }
                    pk = insert.int64(0)
                    try insert.run()
                    isUpdate = proposed.map { pk != $0 } ?? true  // an existing row kept its pk: its old categories go
                }
                if isUpdate { updated += 1 }
                if rebuildsAll { continue }  // categories and names are rebuilt from every row at the end
                let categories = batch.categories(of: rowIndex)
                if isBulkLoad {
                    if isUpdate {
                        pendingCategories.replace(categories.map { bulkCodes[$0] }, pk: pk)
                        sideNames?.abandon()
                        sideNames = nil
                    } else {
                        pendingCategories.add(categories.lazy.map { bulkCodes[$0] }, pk: pk)
                        if sideNames != nil { named.append((rowIndex, pk)) }
                    }
                    continue
                }
                if isUpdate {
                    clearCategories.reset()
                    clearCategories.bind(pk, at: 1)
                    try clearCategories.run()
                }
                for code in categories {
                    addCategory.reset()
                    addCategory.bind(batch.categoryIdentifiers[code], at: 1)
                    addCategory.bind(pk, at: 2)
                    try addCategory.run()
                }
            }
        }
        return (ordered.count - updated, updated + superseded)
    }

    /// The first pk of the key range of rows placed by their position (``unusedKey(near:)``):
    /// above every pk a bulk load gives (they count up from 1), below 2^53.
    static let positionKeyBase: Int64 = 1 << 52
    /// How many pks each cell of the Hilbert curve's 2^16 × 2^16 grid (about 600 × 300 m at
    /// the equator) has before its rows spill to the end of the table.
    static let keysPerCell: Int64 = 1 << 20

    /// An unused pk among those of the Hilbert cell `hilbert`, for a row an upsert may insert:
    /// the cell's highest pk plus one. A table's rows are stored in pk order, so places added
    /// one at a time (gems, a nightly import's new places) are stored beside their neighbours,
    /// as a bulk load stores its batch in Hilbert order: a query near them reads fewer pages.
    /// Gems stored so took 10–16 % less server CPU per gems-near request than the same gems with
    /// keys in the order they came (`docs/performance-history.md`). A full cell gives the pk
    /// after the table's highest.
    private func unusedKey(near hilbert: UInt32) throws -> Int64 {
        let first = Self.positionKeyBase + Int64(hilbert) * Self.keysPerCell, last = first + Self.keysPerCell - 1
        let highestInCell = try index.statement("SELECT pk FROM places WHERE pk BETWEEN ?1 AND ?2 ORDER BY pk DESC LIMIT 1")
        defer { highestInCell.reset() }
        highestInCell.reset()
        highestInCell.bind(first, at: 1)
        highestInCell.bind(last, at: 2)
        guard try highestInCell.step() else { return first }
        let highest = highestInCell.int64(0)
        if highest < last { return highest + 1 }
        return (try index.connection.scalarInt("SELECT max(pk) FROM places") ?? 0) + 1
    }

    /// Inserts a row that is new; nil when its id exists already (a constraint error), for the
    /// caller to upsert instead.
    private func append(
        _ row: EncodedBatch.Row, bytes: UnsafeBufferPointer<UInt8>, geometry: UnsafeMutableRawBufferPointer,
        with statement: SQLiteStatement
    ) throws -> Int64? {
        PlaceRowCodec.bind(row, bytes: bytes, geometry: geometry, to: statement)
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
