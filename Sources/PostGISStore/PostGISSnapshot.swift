import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresNIO

extension PostGISPlaceIndex: SnapshotStore {
    /// Runs a nightly import in one transaction on a connection of its own, with a second
    /// connection for the bulk work beside it: every batch is streamed with COPY into a staging
    /// table (or on a first fill into the new table), and the snapshot is written from there at
    /// its end (``PostGISSnapshotWriter``). Readers see the previous snapshot until the commit;
    /// when `body` throws or the process dies, PostgreSQL rolls it back, and the next import
    /// drops the work tables left behind.
    ///
    /// Blocks the calling thread (the importer's own, never the cooperative pool) while the
    /// statements run on postgres-nio's event loops.
    public func importSnapshot<T>(_ body: (PostGISSnapshotWriter) throws -> T) throws -> T {
        let location = primary.location, logger = primary.logger
        let configuration = try location.connectionConfiguration()
        let (connection, work) = try Blocking.run {
            try await PostGISDatabase.translatingErrors(location) {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                do {
                    return (connection, try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger))
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
        }
        defer {
            // Each closed on its own: a connection the server already ended must not keep the
            // other (and the work connection's import lock) open.
            _ = try? Blocking.run { try await connection.close() }
            _ = try? Blocking.run { try await work.close() }
        }
        let writer = PostGISSnapshotWriter(
            connection: connection, work: work, configuration: configuration,
            location: location, logger: logger, table: table)
        try writer.run("BEGIN")
        do {
            let result = try body(writer)
            try writer.run("COMMIT")
            // The snapshot is in: tables left behind now only wait for the next import.
            try? writer.cleanUp()
            return result
        } catch {
            try? writer.run("ROLLBACK")
            try? writer.cleanUp()
            throw error
        }
    }

    /// Per-source counts, extents and last import times, for `geoquery stats`.
    public func statistics() async throws -> IndexStatistics {
        let rows = try await reader.rows(
            """
            SELECT p.source, count(*)::bigint, min(p.latitude), min(p.longitude), max(p.latitude), max(p.longitude),
                   (SELECT to_char(i.imported_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') FROM imports i WHERE i.source = p.source)
            FROM places p GROUP BY p.source ORDER BY p.source
            """)
        var sources: [IndexStatistics.Source] = []
        for row in rows {
            let (name, count, south, west, north, east, imported) = try row.decode((String, Int, Double, Double, Double, Double, String?).self)
            sources.append(
                IndexStatistics.Source(
                    name: name, count: count,
                    extent: BoundingBox(uncheckedWest: west, south: south, east: east, north: north),
                    lastImport: imported))
        }
        let version = try await reader.scalarInt("SELECT max(version) FROM geoquery_schema") ?? 0
        let size = try await reader.scalarInt("SELECT pg_database_size(current_database())") ?? 0
        return IndexStatistics(path: primary.location.description, schemaVersion: version, fileSize: size, sources: sources)
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
        PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database,
            tls: requiresTLS ? .require(try .init(configuration: .makeClientConfiguration())) : .disable)
    }
}
