import Foundation
import PlaceQuery

// Blocks between users: each call one transaction.
extension SQLiteUserStore {
    public func block(_ blocked: String, by blocker: String, at date: Date) async throws -> Bool {
        try await writing { connection in
            try connection.run(
                "INSERT OR IGNORE INTO blocks VALUES (?1, ?2, ?3)", [.text(blocker), .text(blocked), .double(date.timeIntervalSince1970)])
            let added = connection.changes == 1
            try connection.run(
                """
                DELETE FROM friendships WHERE (requester = ?1 AND addressee = ?2) OR (requester = ?2 AND addressee = ?1)
                """, [.text(blocker), .text(blocked)])
            try connection.run(
                "DELETE FROM follows WHERE (follower = ?1 AND followee = ?2) OR (follower = ?2 AND followee = ?1)",
                [.text(blocker), .text(blocked)])
            return added
        }
    }

    public func unblock(_ blocked: String, by blocker: String) async throws -> Bool {
        try await writing { connection in
            try connection.run("DELETE FROM blocks WHERE blocker = ?1 AND blocked = ?2", [.text(blocker), .text(blocked)])
            return connection.changes == 1
        }
    }

    public func blocks(by blocker: String) async throws -> [UserBlock] {
        try await reading { connection in
            var found: [UserBlock] = []
            try connection.each(
                "SELECT blocked, created_at FROM blocks WHERE blocker = ?1 ORDER BY created_at DESC, blocked",
                [.text(blocker)]
            ) { row in
                found.append(UserBlock(blocker: blocker, blocked: row.text(0) ?? "", createdAt: Date(timeIntervalSince1970: row.double(1))))
            }
            return found
        }
    }

    public func isBlocked(between username: String, and other: String) async throws -> Bool {
        try await reading { connection in
            try connection.scalarInt(
                """
                SELECT 1 FROM blocks WHERE (blocker = ?1 AND blocked = ?2) OR (blocker = ?2 AND blocked = ?1) LIMIT 1
                """, [.text(username), .text(other)]) != nil
        }
    }
}
