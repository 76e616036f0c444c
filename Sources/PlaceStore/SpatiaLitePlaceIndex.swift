import CSpatiaLite
import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// The default ``PlaceIndex``: a single SpatiaLite file.
///
/// ## Concurrency
/// One `SpatiaLitePlaceIndex` owns one SQLite connection and serialises every call on it with
/// a lock, so an instance may be shared between tasks and threads. The file is in WAL mode:
/// many readers and one writer at a time, across threads and processes. Readers never block
/// the writer and keep seeing the snapshot they started on. For parallel reads open one
/// read-only instance per thread (each has its own connection and prepared statements); a
/// second writer waits up to 10 s for the first.
///
/// ## Speed
/// Queries join SpatiaLite's R*Tree (`idx_places_geom`) by bounding box, read the exact
/// coordinates from the table (the R*Tree's 32-bit floats are only an outward-rounded hint),
/// drop candidates whose cheap haversine distance is clearly outside the radius, and decide
/// the rest by ``Geodesic/distance(_:_:)``. Statements are prepared once and reused.
public final class SpatiaLitePlaceIndex: SnapshotStore, @unchecked Sendable {
    // @unchecked Sendable: the connection and statement cache are touched only while `lock` is
    // held, which makes every use of them serial.
    private let lock = NSRecursiveLock()
    let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]
    /// Hot statements, prepared on first use and kept (reached with the lock held).
    var hot = HotStatements()

    /// Path of the index file.
    public let path: String
    /// True when opened with ``OpenMode/readOnly``.
    public let isReadOnly: Bool

    /// How to open an index file.
    public enum OpenMode: Sendable {
        /// The file must exist and be an index; nothing is written.
        case readOnly
        /// The file must exist; it is migrated to the current schema if older.
        case readWrite
        /// The file is created (with its schema) if missing.
        case createIfMissing
    }

    /// Opens (or creates) an index.
    /// - Throws: ``PlaceStoreError/indexNotFound(path:)`` when the file is missing and `mode` is not
    ///   `.createIfMissing`; ``PlaceStoreError/notAnIndex(path:)`` for other SQLite files;
    ///   ``PlaceStoreError/schemaTooNew(found:supported:)``.
    public init(path: String, mode: OpenMode = .readOnly) throws {
        self.path = path
        isReadOnly = mode == .readOnly
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists && mode != .createIfMissing { throw PlaceStoreError.indexNotFound(path: path) }
        connection = try SQLiteConnection(path: path, readOnly: isReadOnly, create: mode == .createIfMissing)
        do {
            try connection.execute(
                """
                PRAGMA synchronous = NORMAL; PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY;
                PRAGMA mmap_size = 4294967296;
                """)
        } catch PlaceStoreError.sqlite(let code, _, _) where code & 0xFF == SQLITE_NOTADB {
            // The first statement is where SQLite reads the header of a file that is not a database.
            throw PlaceStoreError.notADatabase(path: path)
        }
        if isReadOnly {
            let version = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
            if version == 0 { throw PlaceStoreError.notAnIndex(path: path) }
            if version > Schema.currentVersion {
                throw PlaceStoreError.schemaTooNew(found: version, supported: Schema.currentVersion)
            }
        } else {
            if try connection.scalarText("PRAGMA journal_mode = WAL") != "wal" {
                throw PlaceStoreError.cannotOpen(path: path, message: "cannot switch to WAL journal mode")
            }
            try Schema.migrate(connection)
        }
    }

    /// Runs `body` with the lock held.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs `body` with the lock held inside one read transaction, so that every statement of a
    /// query reads the same snapshot and the file locks are taken once, not per statement.
    /// Nested calls join the outer transaction.
    func reading<T>(_ body: () throws -> T) throws -> T {
        try locked {
            guard connection.isAutocommit else { return try body() }
            let begin = try hot.begin(self)
            begin.reset()
            try begin.run()
            do {
                let result = try body()
                let commit = try hot.commit(self)
                commit.reset()
                try commit.run()
                return result
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    // MARK: - The user data file beside the places

    /// The schema name under which ``attachUserData(_:)`` attaches a user data file.
    static let userDataSchema = "user_data"

    /// The user data file attached to this connection, if any (reached with the lock held).
    private var attachedUserData: String?

    /// Attaches the user data file at `path` (``SQLiteUserStore``: its gems are a place table
    /// of the same schema) to this connection, read-only when the connection is, so that one
    /// statement reads places and gems (``near(_:radius:filter:limit:cursor:withUserData:)``).
    /// Each file keeps its own WAL: a gem write never waits for an import of places, and a
    /// query's read transaction reads one snapshot of each file. Does nothing when that file is
    /// attached already; replaces another one.
    func attachUserData(_ path: String) throws {
        try locked {
            if attachedUserData == path { return }
            if attachedUserData != nil {
                hot.forgetUserDataStatements()
                try connection.execute("DETACH DATABASE \(Self.userDataSchema)")
                attachedUserData = nil
            }
            let attach = try connection.prepare("ATTACH DATABASE ?1 AS \(Self.userDataSchema)")
            try attach.bind([.text(path)])
            try attach.run()
            try connection.execute(
                """
                PRAGMA \(Self.userDataSchema).cache_size = -65536; PRAGMA \(Self.userDataSchema).mmap_size = 1073741824;
                """)
            attachedUserData = path
        }
    }

    /// A cached prepared statement (call with the lock held).
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let prepared = try connection.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    // MARK: - Writing

    /// Runs `body` in one write transaction: everything it does is committed together, or —
    /// when it throws, or the process dies — not at all.
    public func write<T>(_ body: (PlaceWriter) throws -> T) throws -> T {
        guard !isReadOnly else { throw PlaceStoreError.invalidArgument("the index \(path) was opened read-only") }
        return try locked { try transaction(body) }
    }

    /// ``write(_:)`` for filling an index: when it holds no places yet and no other connection
    /// has the file open, the transaction runs with a rollback journal instead of the WAL.
    ///
    /// In WAL mode every page of a fresh index is written twice, to the log at the commit and to
    /// the file at the checkpoint after it; with a rollback journal the new pages are written to
    /// the file once, and the journal holds only the few pages the empty index had (a million
    /// places commit in well under a second instead of about 2.5 s). It is as atomic: a kill
    /// leaves a journal that the next writer rolls back, to the empty index. Readers that open
    /// the file meanwhile see the empty index and wait out the commit (the busy timeout). The
    /// file is back in WAL mode afterwards. Otherwise — places already there, or another
    /// connection open — this is exactly ``write(_:)``.
    @discardableResult
    public func fill<T>(_ body: (PlaceWriter) throws -> T) throws -> T {
        guard !isReadOnly else { throw PlaceStoreError.invalidArgument("the index \(path) was opened read-only") }
        return try locked {
            guard try connection.scalarInt("SELECT count(*) FROM (SELECT 1 FROM places LIMIT 1)") == 0,
                (try? connection.scalarText("PRAGMA journal_mode = DELETE")) == "delete"
            else {
                return try transaction(body)
            }
            defer { _ = try? connection.scalarText("PRAGMA journal_mode = WAL") }
            return try transaction(body)
        }
    }

    /// A snapshot import is a ``fill(_:)``: a rollback journal when it fills an empty index
    /// nobody else has open, WAL otherwise.
    public func importSnapshot<T>(_ body: (PlaceWriter) throws -> T) throws -> T {
        try fill(body)
    }

    /// One transaction around `body` (call with the lock held).
    private func transaction<T>(_ body: (PlaceWriter) throws -> T) throws -> T {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let writer = PlaceWriter(index: self)
            let result = try body(writer)
            try writer.finish()
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Inserts the places, or replaces those whose id exists, in one transaction.
    /// - Returns: how many places were written.
    @discardableResult
    public func upsert(_ places: [Place]) throws -> Int {
        try write { try $0.upsert(places) }
    }

    /// Deletes places by id in one transaction. - Returns: how many existed.
    @discardableResult
    public func delete(_ ids: [PlaceID]) throws -> Int {
        try write { try $0.delete(ids) }
    }

    // MARK: - Reading

    /// The place with this id, or nil.
    public func place(_ id: PlaceID) throws -> Place? {
        try locked {
            let row = try statement("SELECT \(Schema.selectColumns) FROM places p WHERE p.id = ?1")
            row.reset()
            row.bind(id.rawValue, at: 1)
            defer { row.reset() }
            return try row.step() ? PlaceRowCodec.decode(row) : nil
        }
    }

    /// The places with these ids, keyed by id (ids not held are absent): one statement, the ids
    /// bound as one JSON array.
    public func places(_ ids: [PlaceID]) throws -> [PlaceID: Place] {
        guard !ids.isEmpty else { return [:] }
        let list = String(decoding: try JSONEncoder().encode(Set(ids.map(\.rawValue)).sorted()), as: UTF8.self)
        return try locked {
            let row = try statement("SELECT \(Schema.selectColumns) FROM places p WHERE p.id IN (SELECT value FROM json_each(?1))")
            row.reset()
            row.bind(list, at: 1)
            defer { row.reset() }
            var found: [PlaceID: Place] = [:]
            while try row.step() {
                let place = PlaceRowCodec.decode(row)
                found[place.id] = place
            }
            return found
        }
    }

    /// How many places the index holds, from one source or all.
    public func count(source: String? = nil) throws -> Int {
        try locked {
            let row: SQLiteStatement
            if let source {
                row = try statement("SELECT count(*) FROM places WHERE source = ?1")
                row.reset()
                row.bind(source, at: 1)
            } else {
                row = try statement("SELECT count(*) FROM places")
                row.reset()
            }
            defer { row.reset() }
            return try row.step() ? Int(row.int64(0)) : 0
        }
    }

    /// Per-source counts, last import times and file facts, for `geoquery stats`.
    public func statistics() throws -> IndexStatistics {
        try locked {
            var sources: [IndexStatistics.Source] = []
            let rows = try statement(
                """
                SELECT p.source, count(*), min(p.lat), min(p.lon), max(p.lat), max(p.lon),
                       (SELECT value FROM geoquery_meta WHERE key = 'imported:' || p.source)
                FROM places p GROUP BY p.source ORDER BY p.source
                """)
            rows.reset()
            while try rows.step() {
                sources.append(
                    IndexStatistics.Source(
                        name: rows.text(0) ?? "", count: Int(rows.int64(1)),
                        extent: BoundingBox(
                            uncheckedWest: rows.double(3), south: rows.double(2),
                            east: rows.double(5), north: rows.double(4)),
                        lastImport: rows.text(6)))
            }
            rows.reset()
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            return IndexStatistics(
                path: path, schemaVersion: Int(try connection.scalarInt("PRAGMA user_version") ?? 0),
                fileSize: size ?? 0, sources: sources)
        }
    }
}
