import Foundation
import PlaceQuery

/// Following: an account follows another to see what it posts. A follow needs no acceptance;
/// the followed account is told once per follower. A block between the two ends the follows
/// and prevents new ones (the other is answered as an unknown user).
public struct FollowService: Sendable {
    /// What the service reads and writes: follows, blocks, and whether an account exists.
    public typealias Store = FollowStore & BlockStore & AccountStore

    let store: any Store
    let notifier: any Notifier

    public init(store: any Store, notifier: any Notifier) {
        self.store = store
        self.notifier = notifier
    }

    /// `follower` follows `name` (any case of it).
    /// - Returns: the follow (the first one when it existed), and whether it is new.
    /// - Throws: ``SocialError/noSuchUser(_:)`` for an unknown name or one either blocked;
    ///   ``SocialError/cannotFollowYourself``.
    public func follow(_ name: String, by follower: String, at now: Date) async throws -> (follow: Follow, isNew: Bool) {
        let followee = try await Reachability.user(name, reachableBy: follower, in: store)
        guard followee != follower else { throw SocialError.cannotFollowYourself }
        // Nil when a block landed between the check and the write: the same answer.
        guard let made = try await store.follow(followee, by: follower, at: now) else { throw SocialError.noSuchUser(name) }
        if made.isNew {
            await notifier.notify(followee, kind: "new_follower", data: ["from": follower], id: "new_follower:" + follower)
        }
        return made
    }

    /// `follower` stops following `name`.
    /// - Throws: ``SocialError/notFollowing(_:)`` when they did not follow them.
    public func unfollow(_ name: String, by follower: String) async throws {
        let followee = name.lowercased()
        guard try await store.unfollow(followee, by: follower) else { throw SocialError.notFollowing(followee) }
    }

    /// Whom `username` follows, newest first, after `after` (a ``ListPage/nextPosition``),
    /// with the total.
    public func following(of username: String, after: String?, limit: Int) async throws -> ListPage<Follow> {
        let found = try await store.following(of: username, after: try after.map(TimeAndName.position), limit: limit + 1)
        let total = try await store.followCounts(of: username).following
        return ListPage(found, limit: limit, total: total) { TimeAndName.text($0.createdAt, $0.followee) }
    }

    /// Who follows `name`, newest first, as `viewer` (nil: anonymous) may see it: a viewer
    /// and an account that blocked one another are unknown to each other.
    /// - Throws: ``SocialError/noSuchUser(_:)``.
    public func followers(of name: String, viewer: String?, after: String?, limit: Int) async throws -> ListPage<Follow> {
        let followee: String
        if let viewer {
            followee = try await Reachability.user(name, reachableBy: viewer, in: store)
        } else {
            followee = name.lowercased()
            guard try await store.user(named: followee) != nil else { throw SocialError.noSuchUser(name) }
        }
        let found = try await store.followers(of: followee, after: try after.map(TimeAndName.position), limit: limit + 1)
        let total = try await store.followCounts(of: followee).followers
        return ListPage(found, limit: limit, total: total) { TimeAndName.text($0.createdAt, $0.follower) }
    }

    /// The account `name` names as `viewer` (nil: anonymous) may see it, with how many it
    /// follows and how many follow it.
    /// - Throws: ``SocialError/noSuchUser(_:)`` for an unknown name, or one that blocked the
    ///   viewer or that the viewer blocked.
    public func profile(of name: String, viewer: String?) async throws -> (account: UserAccount, following: Int, followers: Int) {
        var username = name.lowercased()
        if let viewer { username = try await Reachability.user(name, reachableBy: viewer, in: store) }
        guard let account = try await store.user(named: username) else { throw SocialError.noSuchUser(name) }
        let counts = try await store.followCounts(of: username)
        return (account, counts.following, counts.followers)
    }
}
