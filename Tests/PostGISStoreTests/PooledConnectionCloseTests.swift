import Foundation
import PlaceQuery
import PostgresNIO
import PostgresTestSupport
import Testing

@testable import PostGISStore

/// A statement whose pooled connection the server closed under it fails as unavailable instead
/// of waiting forever (postgres-nio 1.33.2 hands it to the closed channel with no promise), and
/// the pool goes on with new connections.
@Suite(.waitsOnProcesses, .enabled(if: TestCluster.isAvailable, "PostgreSQL is not installed"))
struct PooledConnectionCloseTests {
    @Test func aStatementOnAConnectionClosedUnderItFails() async throws {
        let cluster = try TestCluster.shared!.get()
        let url = try cluster.createDatabase("pooledclose")
        let name = String(url.split(separator: "/").last!)
        let database = try await PostGISDatabase.connect(url, maximumConnections: 1, timeout: .seconds(60))
        let statement = Task {
            try await database.withConnection { connection in
                let backend = try await connection.query("SELECT pg_backend_pid()", logger: database.logger).collect()
                let pid = try backend.first!.decode(Int.self)
                _ = try cluster.psql(database: name, "SELECT pg_terminate_backend(\(pid))")
                try await connection.closeFuture.get()
                // Sent after the close, as a statement leased in the instant of closing would be.
                return try await connection.query("SELECT 1", logger: database.logger).collect().count
            }
        }
        // Without the watch the statement waits forever: give it 30 s (the pool's own timeout is
        // 60 s so that a loaded machine's slow reconnect is not mistaken for the fault), then fail (and leave the
        // pool, which still lends that connection, unclosed).
        let outcome = OneShot<Int>()
        Task { outcome.complete(await statement.result) }
        Task {
            try? await Task.sleep(for: .seconds(30))
            outcome.complete(.failure(StillWaiting()))
        }
        let result = await outcome.value
        if case .failure(let error) = result, error is StillWaiting {
            Issue.record("the statement still waited 30 s after its connection closed")
            return
        }
        switch result {
        case .success(let count): Issue.record("a statement on a closed connection answered \(count) rows")
        case .failure(let error):
            guard case PlaceQueryError.storeUnavailable(let message) = error else {
                Issue.record("expected storeUnavailable, got \(error)")
                break
            }
            #expect(message.contains("the server closed the connection"))
        }
        // The pool (of one connection) goes on beside the abandoned statement, and forgets the
        // closed connection's watch.
        #expect(try await database.scalarInt("SELECT 2") == 2)
        #expect(database.closeWatches.count == 1)
        await database.close()
    }
}

/// What the test's timer sets when the statement has not ended.
private struct StillWaiting: Error {}
