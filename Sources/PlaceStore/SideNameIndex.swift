import Foundation
import PlaceQuery

/// The name index (`places_fts`) of a bulk load, built on a thread of its own while the rows go
/// in, then copied into the index before the commit.
///
/// Tokenising a million names is about a third of a bulk load's SQLite work, and it needs only
/// the names and their pks. So the writer hands each written batch to this thread, which indexes
/// the names in a private in-memory database holding an FTS5 table defined exactly as the
/// index's; at the end the writer recreates `places_fts` and copies the two shadow tables that
/// hold the index (`_data` and `_idx`, a few thousand rows for a million names). The table is
/// `columnsize=0` and its content is `places` itself, so those two tables are all of it;
/// ``PlaceWriter`` checks the definition before choosing this path.
final class SideNameIndex: @unchecked Sendable {
    private struct Work: Sendable {
        var batch: EncodedBatch
        var rows: [(row: Int, pk: Int64)]
    }

    private let queue = BoundedQueue<Work>(capacity: 8)
    private let finished = DispatchSemaphore(value: 0)
    private let definition: String
    private let connection: SQLiteConnection
    /// What stopped the thread, if anything (read after `finished`).
    private var failure: (any Error)?

    /// Starts the thread. `definition` is the `CREATE VIRTUAL TABLE places_fts …` statement.
    init(definition: String) throws {
        self.definition = definition
        connection = try SQLiteConnection(path: ":memory:", readOnly: false, create: true)
        // One transaction: FTS5 writes its pending terms out as a new segment at every commit.
        try connection.execute("\(definition); BEGIN")
        let thread = Thread { [self] in
            defer { finished.signal() }
            // Lowest priority: the names can wait for a core the reader and writer leave idle
            // (while the writer waits for the reader, and while it builds the other indexes at
            // the end): Linux's SCHED_IDLE policy (5), for this thread only.
            #if os(Linux)
            var parameters = sched_param()
            _ = pthread_setschedparam(pthread_self(), 5, &parameters)
            #endif
            do {
                let insert = try connection.prepare("INSERT INTO places_fts (rowid, name) VALUES (?1, ?2)")
                defer { insert.reset() }
                while let work = try queue.pop() {
                    try work.batch.bytes.withUnsafeBufferPointer { bytes in
                        for (row, pk) in work.rows {
                            insert.reset()
                            insert.bind(pk, at: 1)
                            insert.bind(borrowedText: bytes.slice(work.batch.rows[row].name), at: 2)
                            try insert.run()
                        }
                    }
                }
                try connection.execute("COMMIT")
            } catch {
                failure = error
                queue.cancel()
            }
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Queues the names of rows just written (waits while the thread is far behind).
    func add(_ batch: EncodedBatch, rows: [(row: Int, pk: Int64)]) {
        _ = queue.push(Work(batch: batch, rows: rows))
    }

    /// Stops the thread without using its work.
    func abandon() {
        queue.finish(error: nil)
    }

    /// Waits for the thread, then replaces the index's `places_fts` with what it built. Call
    /// inside the bulk load's transaction, with the name-index triggers set aside.
    func copy(into index: SQLiteConnection) throws {
        queue.finish(error: nil)
        finished.wait()
        if let failure { throw failure }
        // A new table, so that no cached state of the old one outlives the copy.
        try index.execute("DROP TABLE places_fts; \(definition); DELETE FROM places_fts_data; DELETE FROM places_fts_idx;")
        for (table, columns) in [("places_fts_data", ["id", "block"]), ("places_fts_idx", ["segid", "term", "pgno"])] {
            let read = try connection.prepare("SELECT \(columns.joined(separator: ", ")) FROM \(table)")
            let write = try index.prepare(
                """
                INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))
                """)
            while try read.step() {
                write.reset()
                for column in columns.indices { write.bind(columnOf: read, Int32(column), at: Int32(column + 1)) }
                try write.run()
            }
        }
    }

    deinit { queue.finish(error: nil) }
}
