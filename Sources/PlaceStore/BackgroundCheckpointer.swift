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
///
/// ## A log that cannot start again
/// SQLite starts the log from its beginning only when a write begins after a checkpoint that
/// copied every page in it. A passive checkpoint runs beside the writer, so under writes that
/// never pause (a seeding of gems, a burst of single-place writes) each checkpoint ends with
/// newer pages already appended: the log never starts again and grows by every page written
/// (2.9 GB for 100 000 gems in transactions of 100 in the bench). So the commit that takes the
/// log to ``ceiling`` pages (or the first commit after the passive checkpoint then under way)
/// runs a *restart* checkpoint itself, on the writer's connection: it copies the pages the
/// passive ones left and waits up to 200 ms for readers to move off the log, and the next write
/// starts the log again (when readers stay longer, it tries again ``pages`` pages later). A
/// background thread could not do it: it would have to win the write lock from a writer that
/// never lets go. Only that one write pays the pause, once per ``ceiling`` pages; the writer's
/// `journal_size_limit` then cuts the file back to ``pages`` pages.
final class BackgroundCheckpointer: @unchecked Sendable {
    // @unchecked Sendable: `isScheduled`, `isStopped`, `restartsDone` and `nextRestart` are read
    // and written with `lock` held; `connection` is used only by the one thread of `thread`
    // (opened there on first use), and by `stop()` only after that thread has finished.
    /// The file whose log is checkpointed.
    let path: String
    /// The log size, in pages, from which a checkpoint is due.
    let pages: Int
    /// The log size, in pages, from which the writer's commit runs a restart checkpoint (see
    /// "A log that cannot start again").
    let ceiling: Int
    /// How many checkpoints restarted the log (the tests read it).
    var restarts: Int { lock.withLock { restartsDone } }
    private var restartsDone = 0
    /// The log size from which the next commit tries a restart checkpoint: ``ceiling``, or
    /// further after one that readers held off.
    private var nextRestart: Int
    /// How long, in milliseconds, a restart checkpoint waits for readers to move off the log.
    static let readerWaitMilliseconds: Int32 = 200
    private let thread = NIOThreadPool(numberOfThreads: 1)
    private let lock = NSLock()
    private var isScheduled = false
    private var isStopped = false
    private var connection: SQLiteConnection?

    /// - Parameter ceiling: the log size from which the writer restarts the log; at least
    ///   `pages` (default: four times `pages`).
    init(path: String, pages: Int, ceiling: Int? = nil) {
        self.path = path
        self.pages = max(1, pages)
        self.ceiling = max(self.pages, ceiling ?? 4 * self.pages)
        nextRestart = self.ceiling
        thread.start()
    }

    /// Called after each commit with the log's size in pages, on the writer's thread inside
    /// SQLite's commit (as SQLite's own automatic checkpoint is): schedules a passive
    /// checkpoint, or from ``ceiling`` pages runs a restart one on `writer` at once.
    func logGrew(to size: Int, writer: OpaquePointer?) {
        guard size >= pages else { return }
        let (isDue, passivePending) = lock.withLock { (size >= nextRestart, isScheduled) }
        if let writer, isDue {
            // A passive checkpoint under way holds the checkpoint lock: rather than wait for it,
            // the writer starts no other and tries at its next commit, when little is left to copy.
            if passivePending { return }
            // Readers get a moment, not the connection's ten seconds, to move off the log: a long
            // read (a world bounding box) must not hold a gem write. When they do not, the
            // passive checkpoints go on and the writer tries again ``pages`` pages later.
            sqlite3_busy_timeout(writer, Self.readerWaitMilliseconds)
            let rc = sqlite3_wal_checkpoint_v2(writer, "main", SQLITE_CHECKPOINT_RESTART, nil, nil)
            sqlite3_busy_timeout(writer, SQLiteConnection.busyTimeoutMilliseconds)
            let restarted = rc == SQLITE_OK
            lock.withLock {
                if restarted { restartsDone += 1 }
                nextRestart = restarted ? ceiling : size + pages
            }
            if restarted { return }
        }
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
