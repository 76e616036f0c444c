import Foundation
import PlaceQuery

// Who follows whom: each call one transaction; lists and counts walk an index.
extension SQLiteUserStore {
    public func follow(_ followee: String, by follower: String, at date: Date) async throws -> (follow: Follow, isNew: Bool)? {
        try await writing { connection in
            // Not while either blocked the other: decided in this transaction, so a block made
            // meanwhile is never followed by a follow it should have ended.
            try connection.run(
                """
                INSERT OR IGNORE INTO follows SELECT ?1, ?2, ?3
                WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE (blocker = ?1 AND blocked = ?2) OR (blocker = ?2 AND blocked = ?1))
                """, [.text(follower), .text(followee), .double(date.timeIntervalSince1970)])
            let isNew = connection.changes == 1
            var created: Double?
            try connection.each(
                "SELECT created_at FROM follows WHERE follower = ?1 AND followee = ?2", [.text(follower), .text(followee)]
            ) { created = $0.double(0) }
            return created.map { (Follow(follower: follower, followee: followee, createdAt: Date(timeIntervalSince1970: $0)), isNew) }
        }
    }

    public func unfollow(_ followee: String, by follower: String) async throws -> Bool {
        try await writing { connection in
            try connection.run("DELETE FROM follows WHERE follower = ?1 AND followee = ?2", [.text(follower), .text(followee)])
            return connection.changes == 1
        }
    }

    public func following(of follower: String, after position: FollowPosition?, limit: Int) async throws -> [Follow] {
        try await follows(of: follower, column: "follower", other: "followee", after: position, limit: limit) { other, created in
            Follow(follower: follower, followee: other, createdAt: created)
        }
    }

    public func followers(of followee: String, after position: FollowPosition?, limit: Int) async throws -> [Follow] {
        try await follows(of: followee, column: "followee", other: "follower", after: position, limit: limit) { other, created in
            Follow(follower: other, followee: followee, createdAt: created)
        }
    }

    public func followCounts(of username: String) async throws -> (following: Int, followers: Int) {
        try await reading { connection in
            let following = try connection.scalarInt("SELECT count(*) FROM follows WHERE follower = ?1", [.text(username)]) ?? 0
            let followers = try connection.scalarInt("SELECT count(*) FROM follows WHERE followee = ?1", [.text(username)]) ?? 0
            return (Int(following), Int(followers))
        }
    }

    /// A page of one side's follows, newest first then by the other's username: a range of
    /// the side's index (`follows_by_follower` or `follows_by_followee`).
    private func follows(
        of username: String, column: String, other: String, after position: FollowPosition?, limit: Int,
        _ make: @escaping @Sendable (String, Date) -> Follow
    ) async throws -> [Follow] {
        try await reading { connection in
            var found: [Follow] = []
            let resume = position == nil ? "" : " AND (created_at < ?2 OR (created_at = ?2 AND \(other) > ?3))"
            var bindings: [SQLiteValue] = [.text(username)]
            if let position { bindings += [.double(position.createdAt.timeIntervalSince1970), .text(position.username)] }
            bindings.append(.int(Int64(max(0, limit))))
            try connection.each(
                """
                SELECT \(other), created_at FROM follows WHERE \(column) = ?1\(resume)
                ORDER BY created_at DESC, \(other) LIMIT ?\(bindings.count)
                """, bindings
            ) { row in
                found.append(make(row.text(0) ?? "", Date(timeIntervalSince1970: row.double(1))))
            }
            return found
        }
    }
}
