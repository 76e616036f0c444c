import Foundation

/// One account following another: the follower sees what the followee posts. A follow needs
/// no acceptance; a block between the two ends it and prevents it.
public struct Follow: Sendable, Hashable {
    public var follower: String
    public var followee: String
    public var createdAt: Date

    public init(follower: String, followee: String, createdAt: Date) {
        self.follower = follower
        self.followee = followee
        self.createdAt = createdAt
    }
}

/// Where a page of follows resumes: after the follow made at `createdAt` of `username` (the
/// other side of the follow), in the list's order (newest first, then by username).
public struct FollowPosition: Sendable, Hashable {
    public var createdAt: Date
    public var username: String

    public init(createdAt: Date, username: String) {
        self.createdAt = createdAt
        self.username = username
    }
}

/// Who follows whom. Lists are read a page at a time (an account may have a hundred thousand
/// followers), newest first; counts are an index's range. Blocking ends the follows between
/// the two (``BlockStore/block(_:by:at:)``, in its transaction) and deleting an account
/// deletes its follows both ways.
public protocol FollowStore: Sendable {
    /// Makes `follower` follow `followee`, unless either blocked the other (decided in the
    /// write's transaction).
    /// - Returns: the follow (the first one when it existed), or nil when a block stands.
    func follow(_ followee: String, by follower: String, at: Date) async throws -> (follow: Follow, isNew: Bool)?
    /// - Returns: false when `follower` did not follow `followee`.
    func unfollow(_ followee: String, by follower: String) async throws -> Bool
    /// Whom `follower` follows, newest first, after `position` (whose `username` is a followee).
    func following(of follower: String, after position: FollowPosition?, limit: Int) async throws -> [Follow]
    /// Who follows `followee`, newest first, after `position` (whose `username` is a follower).
    func followers(of followee: String, after position: FollowPosition?, limit: Int) async throws -> [Follow]
    /// How many accounts `username` follows, and how many follow it.
    func followCounts(of username: String) async throws -> (following: Int, followers: Int)
}
