import CSpatiaLite
import Foundation

/// One SQLite connection with SpatiaLite initialised in it.
///
/// Not thread-safe by itself: every use goes through its owner (``SpatiaLitePlaceIndex``), which
/// serialises access with a lock. The handle is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
final class SQLiteConnection {
    private(set) var handle: OpaquePointer?
    private var spatialiteCache: UnsafeMutableRawPointer?
    let path: String
    /// Uptime in nanoseconds after which statements are interrupted; 0 for none. Read by the
    /// progress handler (on the thread running the statement), set by ``withDeadline(_:_:)``.
    private let deadline = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
    /// What the log size is reported to after each commit (``reportLogSize(to:)``), kept alive
    /// as long as the hook that points to it.
    private var logSizeObserver: BackgroundCheckpointer?

    /// Turns off SQLite's global memory statistics once per process, before the first open: it
    /// is a global mutex that serialises allocation across connections.
    private static let configureOnce: Void = { _ = geoquery_sqlite_disable_memstatus() }()

    /// How long a statement waits for another connection's lock before it fails with `SQLITE_BUSY`.
    static let busyTimeoutMilliseconds: Int32 = 10_000

    /// Why `path` could not be opened, with what to do about it: a folder that does not exist
    /// or a file or folder the user may not use; else SQLite's own words.
    static func explanation(ofOpening path: String, sqliteMessage: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let manager = FileManager.default
        if !folder.isEmpty, !manager.fileExists(atPath: folder) {
            return "the folder \(folder) does not exist; create it (mkdir -p \(folder)) or give a path in a folder that exists"
        }
        if manager.fileExists(atPath: path) ? !manager.isReadableFile(atPath: path) : !manager.isWritableFile(atPath: folder.isEmpty ? "." : folder) {
            return "permission denied; give the user running geoquery access to it, or give another path"
        }
        return sqliteMessage
    }

    init(path: String, readOnly: Bool, create: Bool) throws {
        _ = SQLiteConnection.configureOnce
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            // "Whether or not an error occurs when it is opened, resources associated with the
            // database connection handle should be released by passing it to sqlite3_close()."
            sqlite3_close(db)
            throw PlaceStoreError.cannotOpen(path: path, message: Self.explanation(ofOpening: path, sqliteMessage: message))
        }
        handle = db
        guard let cache = spatialite_alloc_connection() else {
            close()
            throw PlaceStoreError.spatiaLiteUnavailable("spatialite_alloc_connection failed")
        }
        spatialiteCache = cache
        spatialite_init_ex(db, cache, 0)
        sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
        sqlite3_extended_result_codes(db, 1)
        deadline.initialize(to: 0)
        // Every 10 000 virtual-machine steps (tens of microseconds), look at the clock.
        sqlite3_progress_handler(
            db, 10_000,
            { context in
                guard let limit = context?.load(as: UInt64.self), limit != 0 else { return 0 }
                return DispatchTime.now().uptimeNanoseconds > limit ? 1 : 0
            }, UnsafeMutableRawPointer(deadline))
    }

    deinit {
        close()
        deadline.deallocate()
    }

    /// Runs `body` with statements interrupted (`SQLITE_INTERRUPT`) once `instant` has passed.
    func withDeadline<T>(_ instant: ContinuousClock.Instant?, _ body: () throws -> T) rethrows -> T {
        guard let instant else { return try body() }
        let remaining = ContinuousClock.now.duration(to: instant)
        let nanoseconds = max(0, remaining.components.seconds) * 1_000_000_000 + max(0, remaining.components.attoseconds / 1_000_000_000)
        deadline.pointee = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(1, nanoseconds))
        defer { deadline.pointee = 0 }
        return try body()
    }

    func close() {
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
        if let spatialiteCache {
            spatialite_cleanup_ex(spatialiteCache)
            self.spatialiteCache = nil
        }
    }

    /// Reports the main file's log size, in pages, to `checkpointer` after each commit instead of
    /// checkpointing in the commit: the automatic checkpoint is this same hook, so it stops.
    func reportLogSize(to checkpointer: BackgroundCheckpointer) {
        logSizeObserver = checkpointer
        sqlite3_wal_hook(
            handle,
            { context, writer, schema, pages in
                if let context, let schema, strcmp(schema, "main") == 0 {
                    Unmanaged<BackgroundCheckpointer>.fromOpaque(context).takeUnretainedValue().logGrew(to: Int(pages), writer: writer)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    func error(_ code: Int32, sql: String? = nil) -> PlaceStoreError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
        return .sqlite(code: code, message: message, sql: sql)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(message)
            throw PlaceStoreError.sqlite(code: rc, message: text, sql: sql)
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// The first column of the first row as an integer, or nil.
    func scalarInt(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    func scalarText(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> String? {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
    /// The rowid of the last row inserted on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True outside an explicit transaction.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }
}

/// A value to bind.
enum SQLiteValue {
    case null, int(Int64), double(Double), text(String)
}

/// A prepared statement, kept and reused: `reset()` then bind then step.
final class SQLiteStatement {
    private(set) var handle: OpaquePointer?
    unowned let connection: SQLiteConnection
    let sql: String

    init(connection: SQLiteConnection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw connection.error(rc, sql: sql)
        }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and clears its bindings.
    @inline(__always)
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ values: [SQLiteValue]) throws {
        reset()
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    @inline(__always)
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .int(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .double(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let v): rc = sqlite3_bind_text(handle, index, v, -1, geoquery_sqlite_transient())
        }
        if rc != SQLITE_OK { throw connection.error(rc, sql: sql) }
    }

    @inline(__always) func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }
    @inline(__always) func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }
    @inline(__always) func bind(_ value: String?, at index: Int32) {
        if let value { sqlite3_bind_text(handle, index, value, -1, geoquery_sqlite_transient()) } else { sqlite3_bind_null(handle, index) }
    }
    @inline(__always) func bindOptional(_ value: Double?, at index: Int32) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }
    @inline(__always) func bindOptional(_ value: Int?, at index: Int32) {
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }

    /// Steps once: true when a row is available, false when done.
    @inline(__always)
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.error(rc, sql: sql)
    }

    /// Steps to completion, ignoring rows.
    func run() throws { while try step() {} }

    @inline(__always) func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inline(__always) func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// Text of a column, nil for NULL.
    @inline(__always)
    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The raw UTF-8 bytes of a text column, valid until the next step/reset; empty for NULL.
    @inline(__always)
    func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let pointer = sqlite3_column_text(handle, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }
}

extension SQLiteStatement {
    /// The bytes of a BLOB column that is either NULL or non-empty (one call: SQLite returns no
    /// pointer for both NULL and an empty blob); valid until the next step/reset.
    @inline(__always)
    func nonEmptyBlob(_ column: Int32) -> UnsafeRawBufferPointer? {
        guard let pointer = sqlite3_column_blob(handle, column) else { return nil }
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The UTF-8 bytes of a NOT NULL TEXT column; valid until the next step/reset.
    @inline(__always)
    func textBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_text(handle, column)
        return UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// Binds UTF-8 text without copying it: the bytes must stay valid until the statement is
    /// stepped and reset.
    @inline(__always) func bind(borrowedText text: UnsafeRawBufferPointer, at index: Int32) {
        if let base = text.baseAddress {
            sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(text.count), nil)
        } else {
            sqlite3_bind_text(handle, index, "", 0, nil)
        }
    }

    /// Binds a blob without copying it (NULL when empty): the bytes must stay valid until the
    /// statement is stepped and reset.
    @inline(__always) func bind(borrowedBlob blob: UnsafeRawBufferPointer, at index: Int32) {
        if let base = blob.baseAddress, blob.count > 0 {
            sqlite3_bind_blob(handle, index, base, Int32(blob.count), nil)
        } else {
            sqlite3_bind_null(handle, index)
        }
    }

    /// Binds the current value of a column of another statement, type and bytes as they are.
    func bind(columnOf other: SQLiteStatement, _ column: Int32, at index: Int32) {
        sqlite3_bind_value(handle, index, sqlite3_column_value(other.handle, column))
    }

    @inline(__always) func bind(blob: [UInt8]?, at index: Int32) {
        guard let blob else {
            sqlite3_bind_null(handle, index)
            return
        }
        _ = blob.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), geoquery_sqlite_transient()) }
    }
}
