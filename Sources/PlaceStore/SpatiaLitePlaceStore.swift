import CSpatiaLite
import Foundation
import GeoCore
import NIOPosix
import PlaceModel
import PlaceQuery

/// The ``PlaceIndex`` of a SpatiaLite file for async callers: a server, a federated search.
///
/// ## Threading model
/// SQLite calls block, so none runs on the caller's thread. The store owns a `NIOThreadPool`
/// (SwiftNIO's pool for blocking work) and every call runs on one of its threads; the awaiting
/// task is suspended meanwhile, so Swift's cooperative pool and a server's event loops stay free.
/// Each pool thread that reads takes a read-only connection of its own from a small free list
/// (at most one per thread, opened on first use, kept for the store's life), so reads run in
/// parallel, each on one consistent WAL snapshot. Writes go through one read-write connection,
/// opened on the first write: SQLite allows one writer at a time anyway, and a writer never
/// blocks the readers (WAL). The write-ahead log is copied into the file on a thread of its own
/// (``BackgroundCheckpointer``), so that no write waits for a checkpoint's syncs.
///
/// Call ``shutdown()`` when done; a store that is dropped without it stops its threads when the
/// last reference goes.
public final class SpatiaLitePlaceStore: PlaceIndex, @unchecked Sendable {
    // @unchecked Sendable: `idle` and `writer` are read and written only while `lock` is held;
    // each connection taken from `idle` is used by one pool thread at a time and returned after.
    // `checkpointer` is set with `writer`, under the same lock.
    private let pool: NIOThreadPool
    private let writeTurns = WriteTurns()
    private let lock = NSLock()
    private var idle: [SpatiaLitePlaceIndex] = []
    private var writer: SpatiaLitePlaceIndex?
    private var checkpointer: BackgroundCheckpointer?
    private var isShutDown = false

    /// Path of the index file.
    public let path: String
    /// How many threads run queries (and so how many read connections there can be).
    public let threadCount: Int
    /// The log size, in pages, from which writes have the log copied into the file. From four
    /// times that, the copy also holds writers off until the log can start again, so that
    /// writes that never pause cannot grow it without bound.
    public let checkpointPages: Int
    /// How many checkpoints have restarted the log after a burst of writes (see
    /// ``checkpointPages``); 0 before the first write.
    var logRestarts: Int { lock.withLock { checkpointer }?.restarts ?? 0 }

    /// Opens the index at `path` for reading (it must exist; ``PlaceStoreError/indexNotFound(path:)``
    /// otherwise) and starts `threads` pool threads (default: one per core, at least two).
    /// - Parameter checkpointPages: the log size, in pages, from which writes have the log
    ///   copied into the file in the background (default 4 000 pages, 16 MB of 4 KB pages; SQLite's
    ///   own default is 1 000, and each checkpoint costs syncs).
    public init(path: String, threads: Int? = nil, checkpointPages: Int = 4_000) throws {
        self.path = path
        self.checkpointPages = max(1, checkpointPages)
        threadCount = max(2, threads ?? ProcessInfo.processInfo.activeProcessorCount)
        // Open one reader now so that a missing or foreign file fails here, not on the first query.
        idle = [try SpatiaLitePlaceIndex(path: path, mode: .readOnly)]
        pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
    }

    deinit {
        if !isShutDown {
            pool.shutdownGracefully { _ in }
            checkpointer?.stopWithoutWaiting()
        }
    }

    /// Stops the pool threads after the calls under way; later calls fail.
    public func shutdown() async throws {
        let first = lock.withLock { () -> Bool in
            defer { isShutDown = true }
            return !isShutDown
        }
        if first {
            try await pool.shutdownGracefully()
            await lock.withLock { checkpointer }?.stop()
        }
    }

    /// Runs `body` on a pool thread with a read-only connection of that thread's own. When the
    /// calling task has a ``QueryDeadline``, SQLite interrupts the statements that run past it
    /// and the call throws ``PlaceQueryError/deadlineExceeded``.
    public func reading<T: Sendable>(_ body: @escaping @Sendable (SpatiaLitePlaceIndex) throws -> T) async throws -> T {
        let deadline = QueryDeadline.current
        return try await pool.runIfActive { [self] in
            if let deadline, ContinuousClock.now >= deadline { throw PlaceQueryError.deadlineExceeded }
            let connection = try lock.withLock { idle.popLast() } ?? SpatiaLitePlaceIndex(path: path, mode: .readOnly)
            defer { lock.withLock { idle.append(connection) } }
            do {
                return try connection.connection.withDeadline(deadline) { try body(connection) }
            } catch PlaceStoreError.sqlite(let code, _, _) where code & 0xFF == SQLITE_INTERRUPT {
                throw PlaceQueryError.deadlineExceeded
            }
        }
    }

    /// Runs `body` on a pool thread with the store's one read-write connection. Writes take
    /// their turn before they take a thread: SQLite has one writer at a time anyway, and two
    /// writes on two threads (one waiting for the other's lock) left no thread for reads, so
    /// every query waited for a large write's commit (a near query's p99 went from 1.5 to 14 ms
    /// while availability bodies were written).
    public func writing<T: Sendable>(_ body: @escaping @Sendable (SpatiaLitePlaceIndex) throws -> T) async throws -> T {
        await writeTurns.take()
        defer { writeTurns.give() }
        return try await pool.runIfActive { [self] in
            let connection = try lock.withLock {
                if let writer { return writer }
                let opened = try SpatiaLitePlaceIndex(path: path, mode: .readWrite)
                let checkpointer = BackgroundCheckpointer(path: path, pages: checkpointPages)
                // When a burst has grown the log and a restart checkpoint lets it start again,
                // the file is cut back to the checkpoint size (SQLite keeps it at its peak).
                let pageSize = try opened.connection.scalarInt("PRAGMA page_size") ?? 4096
                try opened.connection.execute("PRAGMA journal_size_limit = \(Int64(checkpointPages) * pageSize)")
                opened.connection.reportLogSize(to: checkpointer)
                writer = opened
                self.checkpointer = checkpointer
                return opened
            }
            return try body(connection)  // the index serialises its own calls
        }
    }

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await reading { try $0.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor) }
    }

    public func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await reading { try $0.within(box, filter: filter, limit: limit, cursor: cursor) }
    }

    public func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        try await reading { try $0.nearest(center, count: count, maxDistance: maxDistance, filter: filter) }
    }

    public func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await reading { try $0.ranked(filter: filter, limit: limit, cursor: cursor) }
    }

    public func place(_ id: PlaceID) async throws -> Place? {
        try await reading { try $0.place(id) }
    }

    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] {
        guard !ids.isEmpty else { return [:] }
        return try await reading { try $0.places(ids) }
    }

    @discardableResult
    public func upsert(_ places: [Place]) async throws -> Int {
        try await writing { try $0.upsert(places) }
    }

    @discardableResult
    public func delete(_ ids: [PlaceID]) async throws -> Int {
        try await writing { try $0.delete(ids) }
    }

    public func count(source: String?) async throws -> Int {
        try await reading { try $0.count(source: source) }
    }
}

/// One write at a time, in the order they came; the others wait suspended, holding no thread.
final class WriteTurns: @unchecked Sendable {
    // @unchecked Sendable: `busy` and `waiting` are read and written only under `lock`.
    private let lock = NSLock()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = lock.withLock { () -> Bool in
                if !busy {
                    busy = true
                    return true
                }
                waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func give() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            if waiting.isEmpty {
                busy = false
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
    }
}
