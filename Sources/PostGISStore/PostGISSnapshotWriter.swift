import Foundation
import PlaceModel
import PlaceQuery
import PostgresNIO

/// The write side of one PostGIS snapshot import (``PostGISPlaceIndex/importSnapshot(_:)``).
/// Not for use after the import ends.
///
/// An import works on two connections:
/// - the **transaction** holds the import lock and the place table's locks, and makes every
///   change readers can see: a merge in place, the swap of a rebuilt table, the import time.
///   Readers see the old snapshot until it commits; a kill rolls it back.
/// - the **work** connection commits as it goes, in tables no query reads: the staged rows
///   (`<table>_import`, unlogged) and the new table a rebuild fills (`<table>_next`). Because
///   they are committed, the new table's indexes are built on several connections at once.
///   An import drops them when its transaction has ended; a killed one leaves them behind,
///   and the next import drops them before it starts.
///
/// ``finishSnapshot()`` writes the snapshot in one of two ways:
/// - **Rebuild**, when the snapshot is at least as large as every other source together (a
///   nightly dump of the main source): a new table is filled beside the place table (the other
///   sources' rows as they are, the source's unchanged places as they were, its new and changed
///   ones from the snapshot), its indexes are built once over the filled table, and it replaces
///   the old table at the commit. Keeping two GiST, a GIN and several B-tree indexes up row by
///   row is what made the import slow; readers keep the old table until the commit, and wait
///   only for the commit itself.
/// - **Merge in place**, for a snapshot smaller than the rest: one upsert of the new and
///   changed places, one delete of the places the snapshot no longer names.
///
/// A **first fill** (the place table holds nothing when the import begins) skips the staging:
/// the batches stream straight into the new table, so each row is written once, and the
/// indexes are built at the end as in a rebuild. Once a batch may repeat an id seen before
/// (the batches carry their ids' hashes), the rest is staged, and at the end its rows replace
/// those of the same ids, the last row winning as always.
///
/// Writers of single places wait from the beginning of a first fill, or of a rebuild's
/// filling, to the commit (the transaction holds the place table in SHARE mode), so the new
/// table misses none of their writes. Either way an unchanged place keeps its row and its import
/// time, and the last of two rows with one id wins. Imports run one at a time (a
/// session-level advisory lock on the work connection): a rebuild copies the other sources' rows, which a
/// concurrent import would be changing, and the work tables have one name per place table.
public final class PostGISSnapshotWriter: SnapshotWriter {
    public typealias Batch = PostGISBatch

    /// The import's transaction (its statements fail, not wait, once the server ends it).
    let connection: ClosedConnectionWatch
    /// The import's work connection, committing as it goes.
    let work: ClosedConnectionWatch
    let configuration: PostgresConnection.Configuration
    let location: PostGISLocation
    let logger: Logger
    let table: String
    private var source: String?
    /// Whether the work connection holds the import lock (from ``beginSnapshot(source:)`` on).
    private var holdsImportLock = false
    private var staged = 0
    /// Whether this is a first fill, streamed into the new table (``nextTable``) directly.
    private var fillsNext = false
    /// How many rows went straight into the new table.
    private var copiedIntoNext = 0
    /// The hashes of the ids staged so far, while fewer than ``idHashLimit``.
    private var idHashes = Set<Int>()
    /// Whether two staged ids may be one (their hashes met, or too many to keep track of).
    private var mayRepeatIDs = false
    /// Past this many ids the writer stops hashing and lets the engine look for repeats.
    static let idHashLimit = 20_000_000
    /// How many connections fill a new table, and build its indexes, at once.
    static let bulkConnections = 2

    /// An arbitrary constant naming GeoQuery's import lock.
    static let importLock: Int64 = 0x6771_696d_706f_7274

    /// The new table a rebuild or a first fill fills beside the place table.
    var nextTable: String { table + "_next" }
    /// Where the snapshot's rows are staged.
    var importTable: String { table + "_import" }

    init(
        connection: PostgresConnection, work: PostgresConnection, configuration: PostgresConnection.Configuration,
        location: PostGISLocation, logger: Logger, table: String
    ) {
        self.connection = ClosedConnectionWatch(connection, location: location)
        self.work = ClosedConnectionWatch(work, location: location)
        self.configuration = configuration
        self.location = location
        self.logger = logger
        self.table = table
    }

    /// Runs a statement in the import's transaction.
    func run(_ sql: String) throws {
        _ = try rows(PostgresQuery(unsafeSQL: sql))
    }

    /// Runs a statement in the import's transaction and answers its rows.
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try rows(query, on: connection)
    }

    /// Runs a statement on the work connection (committed when it ends).
    func runWork(_ sql: String) throws {
        _ = try rows(PostgresQuery(unsafeSQL: sql), on: work)
    }

    func rows(_ query: PostgresQuery, on connection: ClosedConnectionWatch) throws -> [PostgresRow] {
        let logger = self.logger, location = self.location
        return try Blocking.run {
            try await PostGISDatabase.translatingErrors(location) {
                try await connection.run { try await $0.query(query, logger: logger).collect() }
            }
        }
    }

    /// The single bigint a statement answers (0 when it answers none).
    func count(_ query: PostgresQuery, on connection: ClosedConnectionWatch? = nil) throws -> Int {
        try rows(query, on: connection ?? self.connection).first?.decode(Int.self) ?? 0
    }

    /// The statistics target of the place table's `ANALYZE` after a rebuild (PostgreSQL's
    /// default is 100; ANALYZE samples 300 rows per unit).
    static let statisticsTarget = 25

    /// Settings of a connection that does an import's bulk work: no request's statement
    /// timeout, and memory to sort a million rows in.
    static let bulkSettings = ["SET statement_timeout = 0", "SET work_mem = '256MB'", "SET maintenance_work_mem = '512MB'"]

    public func beginSnapshot(source: String) throws {
        // The work connection's session holds the lock, past the transaction's end, until it
        // has dropped its work tables (``cleanUp()``) or its process is gone.
        try runWork("SELECT pg_advisory_lock(\(Self.importLock))")
        holdsImportLock = true
        // An import may rewrite every row: the statement timeout is for requests. And the
        // transaction waits, idle, while the work connection streams: a deployment's limit on
        // idle transactions must not end it.
        try run("SET LOCAL statement_timeout = 0")
        try run("SET LOCAL idle_in_transaction_session_timeout = 0")
        try run("SET LOCAL work_mem = '256MB'")
        for setting in Self.bulkSettings { try runWork(setting) }
        // What a killed import left behind (the lock is ours: no import is using them).
        try runWork("DROP TABLE IF EXISTS \(nextTable), \(importTable)")
        try runWork(PlaceRecord.importTable(importTable))
        self.source = source
        staged = 0
        copiedIntoNext = 0
        idHashes = []
        mayRepeatIDs = false
        fillsNext = false
        // A first fill (the table holds nothing) streams straight into the new table: the rows
        // are written once. Writers of single places wait from here to the commit.
        let isEmpty = PostgresQuery(unsafeSQL: "SELECT (NOT EXISTS (SELECT 1 FROM \(table)))::int::bigint")
        if try count(isEmpty) == 1 {
            try run("LOCK TABLE \(table) IN SHARE MODE")
            if try count(isEmpty) == 1 {
                try runWork("CREATE TABLE \(nextTable) (LIKE \(table) INCLUDING ALL EXCLUDING INDEXES)")
                fillsNext = true
            }
        }
    }

    /// Streams the batch into the staging table, or on a first fill into the new place table
    /// itself until an id may have come twice; its counts come from ``finishSnapshot()``.
    public func merge(_ batch: PostGISBatch) throws -> SnapshotCounts {
        guard source != nil else { throw PostGISError.server("merge needs beginSnapshot(source:) first") }
        guard batch.count > 0 else { return SnapshotCounts() }
        noteIDs(of: batch)
        // Nearby places on nearby pages of the table (the new table of a first fill, or the
        // staging table the new rows are inserted from).
        let batch = batch.spatiallyOrdered()
        // From the first batch that may repeat an id on, rows are staged: a later row must be
        // able to supersede an earlier one, which the staging table's order decides.
        let target = fillsNext && !mayRepeatIDs ? nextTable : importTable
        let connection = self.work, logger = self.logger, location = self.location
        try Blocking.run {
            try await PostGISDatabase.translatingErrors(location) {
                try await connection.run { try await PostGISPlaceIndex.copy(batch, into: target, on: $0, logger: logger) }
            }
        }
        staged += batch.count
        if target == nextTable { copiedIntoNext += batch.count }
        return SnapshotCounts()
    }

    /// Notes the batch's id hashes: whether an id may have come twice so far.
    private func noteIDs(of batch: PostGISBatch) {
        guard !mayRepeatIDs else { return }
        if staged + batch.count > Self.idHashLimit {
            mayRepeatIDs = true
            idHashes = []
            return
        }
        for hash in batch.idHashes where !idHashes.insert(hash).inserted {
            mayRepeatIDs = true
            return
        }
    }

    public func finishSnapshot() throws -> SnapshotFinish {
        guard let source else { throw PostGISError.server("finishSnapshot needs beginSnapshot(source:) first") }
        defer { self.source = nil }
        if fillsNext { return try finishFirstFill() }
        let distinct = staged - (try dropSupersededRows())
        var sql = SQLBuilder()
        let sourceParameter = sql.bind(source)
        let sizes = try rows(
            sql.query(
                """
                SELECT (count(*) FILTER (WHERE source = \(sourceParameter)))::bigint, (count(*) FILTER (WHERE source <> \(sourceParameter)))::bigint FROM \(table)
                """))
        let (previous, others) = try sizes.first?.decode((Int, Int).self) ?? (0, 0)
        var finish =
            distinct >= others
            ? try rebuild(source: source, previous: previous, others: others, distinct: distinct)
            : try mergeInPlace(source: source, distinct: distinct)
        // A row repeating an id of an earlier row is an update of it.
        finish.counts.updated += staged - distinct
        return finish
    }

    /// Ends a first fill: the rows staged after an id may have repeated replace the new table's
    /// rows of their ids, then the table gets its indexes and takes the place table's place.
    private func finishFirstFill() throws -> SnapshotFinish {
        var distinct = staged
        if staged > copiedIntoNext {
            distinct -= try dropSupersededRows()
            distinct -= try count(
                PostgresQuery(
                    unsafeSQL: """
                        WITH gone AS (DELETE FROM \(nextTable) n USING \(importTable) s WHERE s.id = n.id RETURNING 1)
                        SELECT count(*)::bigint FROM gone
                        """), on: work)
            try runWork("INSERT INTO \(nextTable) (\(PlaceRecord.tableColumns)) SELECT \(PlaceRecord.stagedValues) FROM \(importTable) s")
        }
        try indexAndSwapIn()
        var counts = SnapshotCounts()
        counts.added = distinct
        // A row repeating an id of an earlier row is an update of it.
        counts.updated = staged - distinct
        return SnapshotFinish(removed: 0, counts: counts)
    }

    /// Deletes every staged row that a later row of the same id supersedes.
    /// - Returns: how many were deleted.
    private func dropSupersededRows() throws -> Int {
        // No two ids hashed alike, so no id came twice: the engine's search (a second of a
        // million rows) is skipped.
        guard mayRepeatIDs else { return 0 }
        let repeated = try count(
            PostgresQuery(
                unsafeSQL: """
                    SELECT count(*)::bigint FROM (SELECT id FROM \(importTable) GROUP BY id HAVING count(*) > 1) r
                    """), on: work)
        guard repeated > 0 else { return 0 }
        return try count(
            PostgresQuery(
                unsafeSQL: """
                    WITH gone AS (DELETE FROM \(importTable) s USING \(importTable) l
                                  WHERE l.id = s.id AND l.seq > s.seq RETURNING 1)
                    SELECT count(*)::bigint FROM gone
                    """), on: work)
    }

    /// One upsert of the new and changed places, one delete of those the snapshot left out.
    private func mergeInPlace(source: String, distinct: Int) throws -> SnapshotFinish {
        let written = try rows(
            PostgresQuery(
                unsafeSQL: """
                    WITH written AS (INSERT INTO \(table) AS t (\(PlaceRecord.tableColumns)) SELECT \(PlaceRecord.stagedValues) FROM \(importTable) s
                                     ON CONFLICT (id) DO UPDATE SET \(PlaceRecord.updateAssignments)
                                     WHERE t.content_hash <> excluded.content_hash
                                     RETURNING (xmax = 0) AS inserted)
                    SELECT (count(*) FILTER (WHERE inserted))::bigint, (count(*) FILTER (WHERE NOT inserted))::bigint FROM written
                    """))
        let (inserted, rewritten) = try written.first?.decode((Int, Int).self) ?? (0, 0)
        var sql = SQLBuilder()
        let text = """
            WITH gone AS (DELETE FROM \(table) p WHERE p.source = \(sql.bind(source))
                          AND NOT EXISTS (SELECT 1 FROM \(importTable) s WHERE s.id = p.id) RETURNING 1)
            SELECT count(*)::bigint FROM gone
            """
        let removed = try count(sql.query(text))
        var counts = SnapshotCounts()
        counts.added = inserted
        counts.updated = rewritten
        counts.unchanged = max(0, distinct - inserted - rewritten)
        return SnapshotFinish(removed: removed, counts: counts)
    }

    /// Fills a new table beside the place table, builds its indexes and puts it in the old
    /// one's place (see the type's description).
    private func rebuild(source: String, previous: Int, others: Int, distinct: Int) throws -> SnapshotFinish {
        let next = nextTable
        // Writers of single places (not imports) wait for the commit; readers do not. From
        // here the place table holds still, so the work connection reads what the commit
        // replaces.
        try run("LOCK TABLE \(table) IN SHARE MODE")
        try runWork("CREATE TABLE \(next) (LIKE \(table) INCLUDING ALL EXCLUDING INDEXES)")
        // Disjoint sets of rows, written side by side: the other sources' rows, the unchanged
        // places (counted), the new and changed ones (counting those whose id was there).
        var fills: [PostgresQuery] = []
        if others > 0 {
            var sql = SQLBuilder()
            let text = "INSERT INTO \(next) SELECT * FROM \(table) WHERE source <> \(sql.bind(source))"
            fills.append(sql.query(text))
        }
        var matched = 0, unchanged = 0
        if previous > 0 {
            fills.insert(
                PostgresQuery(
                    unsafeSQL: """
                        WITH kept AS (INSERT INTO \(next) SELECT p.* FROM \(table) p JOIN \(importTable) s ON s.id = p.id AND s.content_hash = p.content_hash
                                      RETURNING 1)
                        SELECT count(*)::bigint FROM kept
                        """), at: 0)
            let changedAt = fills.count
            fills.append(
                PostgresQuery(
                    unsafeSQL: """
                        WITH written AS (INSERT INTO \(next) (\(PlaceRecord.tableColumns)) SELECT \(PlaceRecord.stagedValues) FROM \(importTable) s
                                         WHERE NOT EXISTS (SELECT 1 FROM \(table) p WHERE p.id = s.id AND p.content_hash = s.content_hash)
                                         RETURNING id)
                        SELECT (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM \(table) p WHERE p.id = written.id)))::bigint FROM written
                        """))
            let answers = try runConcurrently(fills)
            unchanged = answers[0]
            matched = unchanged + answers[changedAt]
        } else {
            fills.append(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO \(next) (\(PlaceRecord.tableColumns)) SELECT \(PlaceRecord.stagedValues) FROM \(importTable) s
                        """))
            _ = try runConcurrently(fills)
        }
        try indexAndSwapIn()
        var counts = SnapshotCounts()
        counts.added = distinct - matched
        counts.updated = matched - unchanged
        counts.unchanged = unchanged
        return SnapshotFinish(removed: previous - matched, counts: counts)
    }

    /// Builds the place table's indexes on the filled new table, once over all its rows and
    /// several at a time, and puts it in the place table's place (seen by others at the commit).
    private func indexAndSwapIn() throws {
        let next = nextTable
        let indexes = try PlaceTableIndexes.read(of: table, through: self)
        var statements = try indexes.all.map { try $0.definition(on: next) }
        // The slowest first, so the last to start is a short one.
        statements.sort { Self.buildCost($0) > Self.buildCost($1) }
        // CREATE INDEX lets builds on one table run side by side.
        _ = try runConcurrently(statements.map { PostgresQuery(unsafeSQL: $0) })
        if let primaryKey = indexes.primaryKey {
            try runWork("ALTER TABLE \(next) ADD CONSTRAINT \(primaryKey.name(on: next)) PRIMARY KEY USING INDEX \(primaryKey.name(on: next))")
        }
        // After the indexes: ANALYZE and CREATE INDEX lock each other out. It samples a quarter
        // of the rows PostgreSQL's default would (7 500): 0.15 s of a million-place load instead
        // of 0.6 s, and the plans of GeoQuery's statements came out the same (README).
        try runWork("SET default_statistics_target = \(Self.statisticsTarget)")
        try runWork("ANALYZE \(next)")
        try runWork("RESET default_statistics_target")
        try run("DROP TABLE \(table)")
        try run("ALTER TABLE \(next) RENAME TO \(table)")
        for index in indexes.all { try run("ALTER INDEX \(index.name(on: next)) RENAME TO \(index.name)") }
    }

    /// Drops the work tables, once the transaction has ended (it may hold them locked until
    /// then), while the work connection still holds the import lock; then releases the lock.
    ///
    /// The lock is released by name, not by closing the connection: a session can outlive its
    /// client's close (a pooler in session mode keeps it; a child process that inherited the
    /// socket keeps it open, as a test's replica server once did), and the next import would
    /// wait for it forever.
    func cleanUp() throws {
        guard holdsImportLock else { return }
        defer {
            _ = try? runWork("SELECT pg_advisory_unlock(\(Self.importLock))")
            holdsImportLock = false
        }
        try runWork("DROP TABLE IF EXISTS \(nextTable), \(importTable)")
    }

    /// A rough rank of how long an index takes to build: a GiST or a multi-column B-tree first.
    static func buildCost(_ definition: String) -> Int {
        if definition.contains("USING gist") { return 3 }
        if definition.contains(",") { return 2 }
        if definition.contains("UNIQUE") { return 1 }
        return 0
    }

    /// Runs `queries` on the work connection and up to ``bulkConnections`` − 1 more, each query
    /// committed on its own, each connection taking the next query when it is done.
    /// - Returns: the single bigint each query answers (0 for one that answers none), in order.
    private func runConcurrently(_ queries: [PostgresQuery]) throws -> [Int] {
        let configuration = self.configuration, location = self.location, logger = self.logger, work = self.work
        let connections = min(Self.bulkConnections, queries.count)
        return try Blocking.run {
            try await PostGISDatabase.translatingErrors(location) {
                let queue = QueryQueue(queries)
                return try await withThrowingTaskGroup(of: [(position: Int, answer: Int)].self) { group in
                    for builder in 0..<connections {
                        group.addTask {
                            let connection: ClosedConnectionWatch
                            if builder == 0 {
                                connection = work
                            } else {
                                // A database at its connection limit still takes the import:
                                // the work connection then runs every query itself.
                                do {
                                    connection = ClosedConnectionWatch(
                                        try await PostgresConnection.connect(configuration: configuration, id: 2 + builder, logger: logger),
                                        location: location)
                                } catch {
                                    logger.warning(
                                        "an import's extra connection could not be opened; its work runs on one", metadata: ["error": "\(error)"])
                                    return []
                                }
                            }
                            var answers: [(position: Int, answer: Int)] = []
                            do {
                                if builder > 0 {
                                    for setting in Self.bulkSettings {
                                        _ = try await connection.run {
                                            try await $0.query(PostgresQuery(unsafeSQL: setting), logger: logger).collect()
                                        }
                                    }
                                }
                                while let (position, query) = queue.next() {
                                    let rows = try await connection.run { try await $0.query(query, logger: logger).collect() }
                                    answers.append((position, try rows.first?.decode(Int.self) ?? 0))
                                }
                            } catch {
                                if builder > 0 { try? await connection.close() }
                                throw error
                            }
                            if builder > 0 { try await connection.close() }
                            return answers
                        }
                    }
                    var results = [Int](repeating: 0, count: queries.count)
                    for try await answers in group { for (position, answer) in answers { results[position] = answer } }
                    return results
                }
            }
        }
    }

    public func recordImport(of source: String, at time: Date) throws {
        var sql = SQLBuilder()
        let text =
            "INSERT INTO imports (source, imported_at) VALUES (\(sql.bind(source)), to_timestamp(\(sql.bind(time.timeIntervalSince1970)))) "
            + "ON CONFLICT (source) DO UPDATE SET imported_at = excluded.imported_at"
        _ = try rows(sql.query(text))
    }
}

/// The indexes of a place table as the database holds them (whatever the migrations made), to
/// build the same ones on a rebuilt table.
struct PlaceTableIndexes {
    struct Index {
        var name: String
        var definition: String

        /// The index's name on the rebuilt table until the swap.
        func name(on table: String) -> String { name + "_next" }

        /// The `CREATE INDEX` statement for the same index on `table`.
        func definition(on table: String) throws -> String {
            guard let on = definition.range(of: " ON "),
                let using = definition.range(of: " USING ", range: on.upperBound..<definition.endIndex),
                definition[..<on.lowerBound].hasSuffix(" " + name)
            else {
                throw PostGISError.server("the definition of index \(name) cannot be read: \(definition)")
            }
            return definition[..<on.lowerBound].dropLast(name.count) + name(on: table) + " ON " + table
                + definition[using.lowerBound...]
        }
    }

    var all: [Index]
    /// The index behind the table's primary key.
    var primaryKey: Index?

    static func read(of table: String, through writer: PostGISSnapshotWriter) throws -> PlaceTableIndexes {
        var sql = SQLBuilder()
        let tableParameter = sql.bind(table)
        let rows = try writer.rows(
            sql.query(
                """
                SELECT i.indexname::text, i.indexdef, EXISTS (SELECT 1 FROM pg_constraint c
                       WHERE c.conrelid = (quote_ident(current_schema()) || '.' || quote_ident(\(tableParameter)))::regclass
                       AND c.contype = 'p' AND c.conname = i.indexname)
                FROM pg_indexes i WHERE i.schemaname = current_schema() AND i.tablename = \(tableParameter) ORDER BY i.indexname
                """))
        var indexes = PlaceTableIndexes(all: [], primaryKey: nil)
        for row in rows {
            let (name, definition, isPrimaryKey) = try row.decode((String, String, Bool).self)
            let index = Index(name: name, definition: definition)
            indexes.all.append(index)
            if isPrimaryKey { indexes.primaryKey = index }
        }
        return indexes
    }
}

/// Queries handed out one at a time to several connections, each with its position.
private final class QueryQueue: @unchecked Sendable {
    // Safe to share: `remaining` is only touched under `lock`.
    private let lock = NSLock()
    private var remaining: ArraySlice<(Int, PostgresQuery)>

    init(_ queries: [PostgresQuery]) { remaining = Array(queries.enumerated().map { ($0.offset, $0.element) })[...] }

    func next() -> (Int, PostgresQuery)? {
        lock.withLock { remaining.popFirst() }
    }
}
