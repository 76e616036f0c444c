import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresNIO

extension PostGISPlaceIndex: SnapshotStore {
    /// Runs a nightly import in one transaction on a connection of its own: every batch is
    /// streamed with COPY into a temporary staging table and merged from there, and the
    /// source's places no batch named are deleted at the end. Readers see the previous snapshot
    /// until the commit; when `body` throws or the process dies, PostgreSQL rolls it all back.
    ///
    /// Blocks the calling thread (the importer's own, never the cooperative pool) while the
    /// statements run on postgres-nio's event loops.
    public func importSnapshot<T>(_ body: (PostGISSnapshotWriter) throws -> T) throws -> T {
        let location = primary.location, logger = primary.logger
        let configuration = try location.connectionConfiguration()
        let connection = try Blocking.run {
            try await PostGISDatabase.translatingErrors(location) {
                try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            }
        }
        defer { _ = try? Blocking.run { try await connection.close() } }
        let writer = PostGISSnapshotWriter(connection: connection, location: location, logger: logger, table: table)
        try writer.run("BEGIN")
        do {
            let result = try body(writer)
            try writer.run("COMMIT")
            return result
        } catch {
            try? writer.run("ROLLBACK")
            throw error
        }
    }

    /// Per-source counts, extents and last import times, for `geoquery stats`.
    public func statistics() async throws -> IndexStatistics {
        let rows = try await reader.rows("""
            SELECT p.source, count(*)::bigint, min(p.latitude), min(p.longitude), max(p.latitude), max(p.longitude),
                   (SELECT to_char(i.imported_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') FROM imports i WHERE i.source = p.source)
            FROM places p GROUP BY p.source ORDER BY p.source
            """)
        var sources: [IndexStatistics.Source] = []
        for row in rows {
            let (name, count, south, west, north, east, imported) = try row.decode((String, Int, Double, Double, Double, Double, String?).self)
            sources.append(IndexStatistics.Source(name: name, count: count,
                                                  extent: BoundingBox(uncheckedWest: west, south: south, east: east, north: north),
                                                  lastImport: imported))
        }
        let version = try await reader.scalarInt("SELECT max(version) FROM geoquery_schema") ?? 0
        let size = try await reader.scalarInt("SELECT pg_database_size(current_database())") ?? 0
        return IndexStatistics(path: primary.location.description, schemaVersion: version, fileSize: size, sources: sources)
    }
}

/// The write side of one PostGIS snapshot import (``PostGISPlaceIndex/importSnapshot(_:)``),
/// on the import's own connection inside its transaction. Not for use after the import ends.
public final class PostGISSnapshotWriter: SnapshotWriter {
    public typealias Batch = PostGISBatch

    let connection: PostgresConnection
    let location: PostGISLocation
    let logger: Logger
    let table: String
    private var source: String?

    init(connection: PostgresConnection, location: PostGISLocation, logger: Logger, table: String) {
        self.connection = connection
        self.location = location
        self.logger = logger
        self.table = table
    }

    func run(_ sql: String) throws {
        _ = try rows(PostgresQuery(unsafeSQL: sql))
    }

    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        let connection = self.connection, logger = self.logger, location = self.location
        return try Blocking.run {
            try await PostGISDatabase.translatingErrors(location) { try await connection.query(query, logger: logger).collect() }
        }
    }

    public func beginSnapshot(source: String) throws {
        try run("CREATE TEMP TABLE IF NOT EXISTS snapshot_seen (id text COLLATE \"C\" PRIMARY KEY) ON COMMIT DROP")
        try run("TRUNCATE snapshot_seen")
        self.source = source
    }

    /// Copies the batch into the staging table, then in one statement remembers its ids and
    /// writes the places that are new or whose content differs (an unchanged place keeps its
    /// row and its import time). An id given twice counts once as added and then as updated.
    public func merge(_ batch: PostGISBatch) throws -> SnapshotCounts {
        guard source != nil else { throw PostGISError.server("merge needs beginSnapshot(source:) first") }
        var counts = SnapshotCounts()
        guard batch.count > 0 else { return counts }
        let connection = self.connection, logger = self.logger, location = self.location
        try Blocking.run {
            try await PostGISDatabase.translatingErrors(location) {
                try await PostGISPlaceIndex.stage(batch, on: connection, logger: logger)
            }
        }
        let result = try rows(PostgresQuery(unsafeSQL: """
            WITH batch AS (SELECT DISTINCT ON (id) * FROM staging ORDER BY id, seq DESC),
            seen AS (INSERT INTO snapshot_seen SELECT id FROM batch ON CONFLICT DO NOTHING),
            written AS (INSERT INTO \(table) AS t (\(PlaceRecord.tableColumns)) SELECT \(PlaceRecord.stagedValues) FROM batch s
                        ON CONFLICT (id) DO UPDATE SET \(PlaceRecord.updateAssignments)
                        WHERE t.content_hash <> excluded.content_hash
                        RETURNING (xmax = 0) AS inserted)
            SELECT (SELECT count(*) FROM batch)::bigint, (count(*) FILTER (WHERE inserted))::bigint, (count(*) FILTER (WHERE NOT inserted))::bigint FROM written
            """))
        guard let row = result.first else { return counts }
        let (distinct, inserted, rewritten) = try row.decode((Int, Int, Int).self)
        // A row repeating an id earlier in this batch is an update of it.
        counts.added = inserted
        counts.updated = rewritten + (batch.count - distinct)
        counts.unchanged = max(0, distinct - inserted - rewritten)
        return counts
    }

    public func finishSnapshot() throws -> Int {
        guard let source else { throw PostGISError.server("finishSnapshot needs beginSnapshot(source:) first") }
        var sql = SQLBuilder()
        let text = "WITH gone AS (DELETE FROM \(table) p WHERE p.source = \(sql.bind(source)) AND NOT EXISTS "
            + "(SELECT 1 FROM snapshot_seen s WHERE s.id = p.id) RETURNING 1) SELECT count(*)::bigint FROM gone"
        let removed = try rows(sql.query(text)).first?.decode(Int.self) ?? 0
        self.source = nil
        return removed
    }

    public func recordImport(of source: String, at time: Date) throws {
        var sql = SQLBuilder()
        let text = "INSERT INTO imports (source, imported_at) VALUES (\(sql.bind(source)), to_timestamp(\(sql.bind(time.timeIntervalSince1970)))) "
            + "ON CONFLICT (source) DO UPDATE SET imported_at = excluded.imported_at"
        _ = try rows(sql.query(text))
    }
}

/// Waits on the calling thread for async work. Only for threads of their own (an importer's,
/// the CLI's main thread), never the cooperative pool, which the work itself needs.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

/// Carries a result from the task to the waiting thread: written once before the semaphore is
/// signalled and read after the wait, which orders the two, hence `@unchecked Sendable`.
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

extension PostGISLocation {
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database,
                                         tls: requiresTLS ? .require(try .init(configuration: .makeClientConfiguration())) : .disable)
    }
}
