import CSpatiaLite
import Foundation
import NIOPosix

/// Copies a file's write-ahead log into the file on a thread of its own, so that no write waits
/// for a checkpoint.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log past 1 000 pages,
/// and a checkpoint syncs the log and then the file. While another process writes heavily to
/// the same disk (a nightly `geoquery import`), one sync can take hundreds of milliseconds, and
/// the write whose commit ran the checkpoint waited for both. Instead, the writer's connection
/// reports the log's size after each commit (``SQLiteConnection/reportLogSize(to:)``, which
/// replaces the automatic checkpoint) and, once the log holds ``pages`` pages, a connection of
/// the checkpointer's own runs a passive checkpoint: it waits for no reader or writer, and none
/// waits for it.
///
/// One sync stays on a writer's path: when the first write after a complete checkpoint starts
/// the log again, SQLite syncs the log's new header. That is once per ``pages`` pages written
/// rather than three syncs per 1 000. Durability is unchanged (`synchronous = NORMAL` in WAL
/// mode, as before).
final class BackgroundCheckpointer: @unchecked Sendable {
    // @unchecked Sendable: `isScheduled` and `isStopped` are read and written with `lock` held;
    // `connection` is used only by the one thread of `thread` (opened there on first use), and by
    // `stop()` only after that thread has finished.
    /// The file whose log is checkpointed.
    let path: String
    /// The log size, in pages, from which a checkpoint is due.
    let pages: Int
    private let thread = NIOThreadPool(numberOfThreads: 1)
    private let lock = NSLock()
    private var isScheduled = false
    private var isStopped = false
    private var connection: SQLiteConnection?

    init(path: String, pages: Int) {
        self.path = path
        self.pages = max(1, pages)
        thread.start()
    }

    /// Called after each commit with the log's size in pages (on the writer's thread, inside
    /// SQLite's commit: it only schedules, it never touches the database).
    func logGrew(to size: Int) {
        guard size >= pages else { return }
        let schedule = lock.withLock { () -> Bool in
            guard !isScheduled, !isStopped else { return false }
            isScheduled = true
            return true
        }
        guard schedule else { return }
        thread.submit { [self] state in
            defer { lock.withLock { isScheduled = false } }
            guard case .active = state else { return }
            checkpoint()
        }
    }

    /// One passive checkpoint. A failure (the file gone, the disk full) is left to the next
    /// commit's checkpoint: the log keeps every write meanwhile, it only grows.
    private func checkpoint() {
        if connection == nil {
            // A connection learns that the file is in WAL mode from its first read; until then it
            // has no log to checkpoint.
            let opened = try? SQLiteConnection(path: path, readOnly: false, create: false)
            guard (try? opened?.scalarText("PRAGMA journal_mode")) == "wal" else { return }
            connection = opened
        }
        guard let handle = connection?.handle else { return }
        sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Stops the thread after a checkpoint under way and closes the connection.
    func stop() async {
        lock.withLock { isStopped = true }
        try? await thread.shutdownGracefully()
        connection?.close()
        connection = nil
    }

    /// ``stop()`` for a store dropped without shutting down: the thread stops in the background.
    func stopWithoutWaiting() {
        lock.withLock { isStopped = true }
        thread.shutdownGracefully { _ in }
    }
}
