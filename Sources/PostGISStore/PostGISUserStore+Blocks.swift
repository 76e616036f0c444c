import Foundation
import PlaceQuery
import PostgresNIO

// Blocks between users, on the primary.
extension PostGISUserStore {
    public func block(_ blocked: String, by blocker: String, at date: Date) async throws -> Bool {
        try await database.transaction { connection in
            let added = try await !connection.all(
                """
                INSERT INTO blocks VALUES (\(blocker), \(blocked), \(date.timeIntervalSince1970)) ON CONFLICT DO NOTHING RETURNING 1
                """
            ).isEmpty
            try await connection.all(
                """
                DELETE FROM friendships WHERE (requester = \(blocker) AND addressee = \(blocked)) OR (requester = \(blocked) AND addressee = \(blocker))
                """)
            try await connection.all(
                """
                DELETE FROM follows WHERE (follower = \(blocker) AND followee = \(blocked)) OR (follower = \(blocked) AND followee = \(blocker))
                """)
            return added
        }
    }

    public func unblock(_ blocked: String, by blocker: String) async throws -> Bool {
        try await !database.rows("DELETE FROM blocks WHERE blocker = \(blocker) AND blocked = \(blocked) RETURNING 1").isEmpty
    }

    public func blocks(by blocker: String) async throws -> [UserBlock] {
        try await database.rows(
            """
            SELECT blocked, created_at FROM blocks WHERE blocker = \(blocker) ORDER BY created_at DESC, blocked COLLATE "C"
            """
        ).map { row in
            let (blocked, created) = try row.decode((String, Double).self)
            return UserBlock(blocker: blocker, blocked: blocked, createdAt: Date(timeIntervalSince1970: created))
        }
    }

    public func isBlocked(between username: String, and other: String) async throws -> Bool {
        try await !database.rows(
            """
            SELECT 1 FROM blocks WHERE (blocker = \(username) AND blocked = \(other)) OR (blocker = \(other) AND blocked = \(username)) LIMIT 1
            """
        ).isEmpty
    }
}
