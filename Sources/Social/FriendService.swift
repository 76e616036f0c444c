import Foundation
import PlaceQuery

/// Friends and blocks: asking, accepting, ending, blocking — with who is told what.
///
/// A friendship is one request, accepted or not. Asking someone who asked you accepts their
/// request. Blocking ends any friendship or request between the two; afterwards neither can
/// ask the other to be a friend (nor invite them to a plan): the other is answered as an
/// unknown user, so a blocked person learns nothing they could not learn without an account.
public struct FriendService: Sendable {
    /// What the service reads and writes: friendships, blocks, and whether an account exists.
    public typealias Store = FriendStore & BlockStore & AccountStore

    let store: any Store
    let notifier: any Notifier
    /// The most accepted friends an account may have (nil: no limit).
    let friendLimit: Int?

    public init(store: any Store, notifier: any Notifier, friendLimit: Int?) {
        self.store = store
        self.notifier = notifier
        self.friendLimit = friendLimit
    }

    // MARK: - Friends

    /// The asker's friendships in `states` (all when nil), by the other's username, after the
    /// position `after` (a username). The whole list is read (at most the friend limit), so
    /// the total costs nothing.
    public func friends(
        of username: String, states: Set<Friendship.State>?, after: String?, limit: Int
    ) async throws -> ListPage<Friendship> {
        if let after, after.isEmpty || after.utf8.count > 200 { throw SocialError.invalidCursor(after) }
        let listed = try await store.friendships(of: username).filter { states?.contains($0.state) ?? true }
        let matching = listed.filter { friendship in after.map { friendship.username > $0 } ?? true }
        return ListPage(matching, limit: limit, total: listed.count) { $0.username }
    }

    /// The states a `state` filter names: `accepted`, `requested`, `incoming`, comma-separated.
    public static func states(_ text: String) throws -> Set<Friendship.State> {
        var states: Set<Friendship.State> = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let state = Friendship.State(rawValue: String(name)) else { throw SocialError.invalidState(text) }
            states.insert(state)
        }
        return states
    }

    /// `asker` asks `name` to be friends, or accepts the request `name` made. `name` is told
    /// once per asker, whatever the asker does: asking again after a decline, or asking and
    /// withdrawing in a loop, tells them once.
    /// - Returns: the friendship as the asker sees it, and whether it is new.
    /// - Throws: ``SocialError/noSuchUser(_:)`` for an unknown or blocked name;
    ///   `UserDataError.friendLimit` when either has the most friends an account may have.
    public func befriend(_ name: String, by asker: String, at now: Date) async throws -> (friendship: Friendship, isNew: Bool) {
        let other = try await existingUser(name, reachableBy: asker)
        guard other != asker else { throw SocialError.cannotBefriendYourself }
        let before = try await store.friendships(of: asker).first { $0.username == other }
        let friendship = try await store.requestFriendship(from: asker, to: other, at: now, friendLimit: friendLimit)
        if before == nil {
            await notifier.notify(other, kind: "friend_request", data: ["from": asker], id: "friend_request:" + asker)
        } else if before?.state == .incoming && friendship.state == .accepted {
            await notifier.notify(other, kind: "friend_accepted", data: ["from": asker], id: "friend_accepted:" + asker)
        }
        return (friendship, before == nil)
    }

    /// Declines a request made to `username`, withdraws theirs, or ends a friendship.
    /// - Throws: ``SocialError/noFriendship(with:)`` when there is none.
    public func unfriend(_ other: String, by username: String) async throws {
        let other = other.lowercased()
        guard try await store.removeFriendship(between: username, and: other) else { throw SocialError.noFriendship(with: other) }
    }

    /// The username of an account `asker` may reach (by any case of it): not one that either
    /// blocked the other.
    /// - Throws: ``SocialError/noSuchUser(_:)`` otherwise, the same whether the account is
    ///   missing or blocked.
    public func existingUser(_ name: String, reachableBy asker: String) async throws -> String {
        try await Reachability.user(name, reachableBy: asker, in: store)
    }

    // MARK: - Blocks

    /// The people `blocker` blocked, newest first, after the position `after` (a block's time
    /// and username, as ``ListPage/nextPosition`` gave it).
    public func blocks(by blocker: String, after: String?, limit: Int) async throws -> ListPage<UserBlock> {
        let resume = try after.map(TimeAndName.position)
        let listed = try await store.blocks(by: blocker)
        let matching = listed.filter { block in
            guard let resume else { return true }
            return block.createdAt < resume.createdAt || (block.createdAt == resume.createdAt && block.blocked > resume.username)
        }
        return ListPage(matching, limit: limit, total: listed.count) { TimeAndName.text($0.createdAt, $0.blocked) }
    }

    /// `blocker` blocks `name`, ending any friendship or request between them. Blocking
    /// someone who blocked you first is allowed: only existence is checked.
    /// - Returns: the block, and whether it is new (blocking twice keeps the first).
    public func block(_ name: String, by blocker: String, at now: Date) async throws -> (block: UserBlock, isNew: Bool) {
        let name = name.lowercased()
        guard name != blocker else { throw SocialError.cannotBlockYourself }
        guard try await store.user(named: name) != nil else { throw SocialError.noSuchUser(name) }
        let added = try await store.block(name, by: blocker, at: now)
        let block =
            try await store.blocks(by: blocker).first { $0.blocked == name }
            ?? UserBlock(blocker: blocker, blocked: name, createdAt: now)
        return (block, added)
    }

    /// Lifts `blocker`'s block of `name`.
    /// - Throws: ``SocialError/notBlocked(_:)`` when there is none.
    public func unblock(_ name: String, by blocker: String) async throws {
        let name = name.lowercased()
        guard try await store.unblock(name, by: blocker) else { throw SocialError.notBlocked(name) }
    }
}
