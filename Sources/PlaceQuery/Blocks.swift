import Foundation

/// One user blocking another.
public struct UserBlock: Sendable, Hashable {
    public var blocker: String
    public var blocked: String
    public var createdAt: Date

    public init(blocker: String, blocked: String, createdAt: Date) {
        self.blocker = blocker
        self.blocked = blocked
        self.createdAt = createdAt
    }
}

/// Who blocked whom. Two people one of whom blocked the other are strangers to each other:
/// no friendship or request between them, and neither can ask the other to be a friend, invite
/// them to a trip or add them to an itinerary. Deleting an account deletes its blocks both ways.
public protocol BlockStore: Sendable {
    /// Records the block and ends any friendship, request or follow between the two, in one
    /// transaction.
    /// - Returns: true when `blocked` was not blocked by `blocker` before.
    func block(_ blocked: String, by blocker: String, at: Date) async throws -> Bool
    /// - Returns: false when there was no such block.
    func unblock(_ blocked: String, by blocker: String) async throws -> Bool
    /// The users `blocker` blocked, the newest first.
    func blocks(by blocker: String) async throws -> [UserBlock]
    /// Whether either of the two blocked the other.
    func isBlocked(between username: String, and other: String) async throws -> Bool
}
