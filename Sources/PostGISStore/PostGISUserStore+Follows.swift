import Foundation
import PlaceQuery
import PostgresNIO

// Who follows whom, on the primary; lists and counts walk an index.
extension PostGISUserStore {
    public func follow(_ followee: String, by follower: String, at date: Date) async throws -> (follow: Follow, isNew: Bool)? {
        try await database.transaction { connection in
            // Not while either blocked the other (see the SQLite store). A block's transaction
            // that commits first is seen by this insert's check; one that commits after deletes it.
            let inserted = try await connection.all(
                """
                INSERT INTO follows SELECT \(follower), \(followee), \(date.timeIntervalSince1970)
                WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE (blocker = \(follower) AND blocked = \(followee))
                                                        OR (blocker = \(followee) AND blocked = \(follower)))
                ON CONFLICT DO NOTHING RETURNING 1
                """)
            let created = try await connection.all(
                "SELECT created_at FROM follows WHERE follower = \(follower) AND followee = \(followee)"
            ).first.map { try $0.decode(Double.self) }
            return created.map { (Follow(follower: follower, followee: followee, createdAt: Date(timeIntervalSince1970: $0)), !inserted.isEmpty) }
        }
    }

    public func unfollow(_ followee: String, by follower: String) async throws -> Bool {
        try await !database.rows("DELETE FROM follows WHERE follower = \(follower) AND followee = \(followee) RETURNING 1").isEmpty
    }

    public func following(of follower: String, after position: FollowPosition?, limit: Int) async throws -> [Follow] {
        try await follows(of: follower, column: "follower", other: "followee", after: position, limit: limit).map { other, created in
            Follow(follower: follower, followee: other, createdAt: created)
        }
    }

    public func followers(of followee: String, after position: FollowPosition?, limit: Int) async throws -> [Follow] {
        try await follows(of: followee, column: "followee", other: "follower", after: position, limit: limit).map { other, created in
            Follow(follower: other, followee: followee, createdAt: created)
        }
    }

    public func followCounts(of username: String) async throws -> (following: Int, followers: Int) {
        let following = try await database.scalarInt("SELECT count(*)::bigint FROM follows WHERE follower = \(username)") ?? 0
        let followers = try await database.scalarInt("SELECT count(*)::bigint FROM follows WHERE followee = \(username)") ?? 0
        return (following, followers)
    }

    /// A page of one side's follows (the other account and when), newest first then by the
    /// other's username: a range of the side's index. `column` and `other` are this file's
    /// constants, never input.
    private func follows(
        of username: String, column: String, other: String, after position: FollowPosition?, limit: Int
    ) async throws -> [(String, Date)] {
        let time = position?.createdAt.timeIntervalSince1970 ?? .infinity
        let rows = try await database.rows(
            """
            SELECT \(unescaped: other), created_at FROM follows WHERE \(unescaped: column) = \(username)
            AND (created_at < \(time) OR (created_at = \(time) AND \(unescaped: other) > \(position?.username ?? "")))
            ORDER BY created_at DESC, \(unescaped: other) LIMIT \(max(0, limit))
            """)
        return try rows.map { row in
            let (name, created) = try row.decode((String, Double).self)
            return (name, Date(timeIntervalSince1970: created))
        }
    }
}
