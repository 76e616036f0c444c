import Foundation
import PlaceQuery
import PlaceStore
import Social
import Testing

/// What ``FriendService`` does, on a real SpatiaLite user store and with no HTTP: who is told
/// what, what a block hides, and how its lists page.
@Suite struct FriendServiceTests {
    /// The notifications a use case sent, in order; as ``Notifier`` promises, a second one of
    /// the same id is not made.
    final class Inbox: Notifier, @unchecked Sendable {
        // @unchecked Sendable: `sent` is touched only under `lock`.
        private let lock = NSLock()
        private var sent: [(username: String, kind: String, data: [String: String], id: String?)] = []

        func notify(_ username: String, kind: String, data: [String: String], id: String?) async -> Bool {
            lock.withLock {
                guard id == nil || !sent.contains(where: { $0.id == id }) else { return false }
                sent.append((username, kind, data, id))
                return true
            }
        }

        var kinds: [String] { lock.withLock { sent.map { "\($0.username) \($0.kind) from \($0.data["from"] ?? "?")" } } }
    }

    struct Setup {
        let directory: URL
        let store: SQLiteUserStore
        let inbox = Inbox()
        let friends: FriendService

        init(friendLimit: Int? = nil, users: [String]) async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-social-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try SQLiteUserStore(path: directory.appendingPathComponent("users.sqlite").path, threads: 1)
            friends = FriendService(store: store, notifier: inbox, friendLimit: friendLimit)
            for name in users {
                try await store.createUser(
                    UserAccount(
                        username: name, email: "\(name)@example.org", passwordHash: "$2b$11$" + String(repeating: "a", count: 53), createdAt: Date()))
            }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test func askingTellsTheOtherOnceAndAskingBackAccepts() async throws {
        let setup = try await Setup(users: ["ann", "bob"])
        defer { setup.remove() }
        let now = Date()
        let asked = try await setup.friends.befriend("Bob", by: "ann", at: now)
        #expect(asked.isNew && asked.friendship == Friendship(username: "bob", state: .requested, since: asked.friendship.since))
        // Asking again, withdrawing and asking again: bob is told once.
        _ = try await setup.friends.befriend("bob", by: "ann", at: now)
        try await setup.friends.unfriend("bob", by: "ann")
        _ = try await setup.friends.befriend("bob", by: "ann", at: now)
        #expect(setup.inbox.kinds == ["bob friend_request from ann"])
        let accepted = try await setup.friends.befriend("ann", by: "bob", at: now)
        #expect(!accepted.isNew && accepted.friendship.state == .accepted)
        #expect(setup.inbox.kinds == ["bob friend_request from ann", "ann friend_accepted from bob"])
        #expect(try await setup.store.areFriends("ann", "bob"))
    }

    @Test func noOneBefriendsThemselvesOrSomeoneUnknown() async throws {
        let setup = try await Setup(users: ["ann"])
        defer { setup.remove() }
        await #expect(throws: SocialError.cannotBefriendYourself) { try await setup.friends.befriend("ANN", by: "ann", at: Date()) }
        await #expect(throws: SocialError.noSuchUser("nobody")) { try await setup.friends.befriend("nobody", by: "ann", at: Date()) }
        await #expect(throws: SocialError.noFriendship(with: "nobody")) { try await setup.friends.unfriend("nobody", by: "ann") }
        #expect(SocialError.noSuchUser("nobody").kind == .notFound && SocialError.cannotBefriendYourself.kind == .invalidInput)
        #expect(setup.inbox.kinds.isEmpty)
    }

    @Test func aBlockEndsTheFriendshipAndHidesEachFromTheOther() async throws {
        let setup = try await Setup(users: ["ann", "bob", "eve"])
        defer { setup.remove() }
        let now = Date()
        _ = try await setup.friends.befriend("bob", by: "ann", at: now)
        _ = try await setup.friends.befriend("ann", by: "bob", at: now)
        let blocked = try await setup.friends.block("Bob", by: "ann", at: now)
        #expect(blocked.isNew && blocked.block.blocked == "bob")
        #expect(try await !setup.friends.block("bob", by: "ann", at: now.addingTimeInterval(5)).isNew, "blocking twice keeps the first")
        #expect(try await !setup.store.areFriends("ann", "bob"))
        // Either way round, the other is an unknown user; a stranger is not.
        await #expect(throws: SocialError.noSuchUser("ann")) { try await setup.friends.befriend("ann", by: "bob", at: now) }
        await #expect(throws: SocialError.noSuchUser("bob")) { try await setup.friends.existingUser("bob", reachableBy: "ann") }
        #expect(try await setup.friends.existingUser("EVE", reachableBy: "ann") == "eve")
        // Blocking someone who blocked you first is allowed; yourself or nobody is not.
        #expect(try await setup.friends.block("ann", by: "bob", at: now).isNew)
        await #expect(throws: SocialError.cannotBlockYourself) { try await setup.friends.block("ann", by: "ann", at: now) }
        await #expect(throws: SocialError.noSuchUser("nobody")) { try await setup.friends.block("nobody", by: "ann", at: now) }
        try await setup.friends.unblock("BOB", by: "ann")
        await #expect(throws: SocialError.notBlocked("bob")) { try await setup.friends.unblock("bob", by: "ann") }
        await #expect(throws: SocialError.noSuchUser("bob"), "bob's own block still stands") {
            try await setup.friends.befriend("bob", by: "ann", at: now)
        }
    }

    @Test func listsPageByTheirPositionsWithATotal() async throws {
        let names = (0..<7).map { "user\($0)" }
        let setup = try await Setup(users: ["ann"] + names)
        defer { setup.remove() }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (number, name) in names.enumerated() {
            _ = try await setup.friends.befriend(name, by: "ann", at: start)
            if number % 2 == 0 { _ = try await setup.friends.befriend("ann", by: name, at: start) }
        }
        var seen: [String] = []
        var after: String?
        repeat {
            let page = try await setup.friends.friends(of: "ann", states: nil, after: after, limit: 3)
            #expect(page.total == 7 && page.items.count <= 3)
            seen += page.items.map(\.username)
            after = page.nextPosition
        } while after != nil
        #expect(seen == names, "every friend once, by username")
        let accepted = try await setup.friends.friends(of: "ann", states: try FriendService.states("accepted"), after: nil, limit: 10)
        #expect(accepted.items.map(\.username) == ["user0", "user2", "user4", "user6"] && accepted.nextPosition == nil)
        #expect(throws: SocialError.invalidState("friends")) { try FriendService.states("friends") }

        for (number, name) in names.enumerated() {
            _ = try await setup.friends.block(name, by: "ann", at: start.addingTimeInterval(Double(number % 3)))
        }
        var blocks: [UserBlock] = []
        after = nil
        repeat {
            let page = try await setup.friends.blocks(by: "ann", after: after, limit: 2)
            blocks += page.items
            after = page.nextPosition
        } while after != nil
        #expect(blocks.count == 7 && Set(blocks.map(\.blocked)).count == 7, "every block once")
        #expect(
            zip(blocks, blocks.dropFirst()).allSatisfy { $0.createdAt > $1.createdAt || ($0.createdAt == $1.createdAt && $0.blocked < $1.blocked) },
            "newest first")
        await #expect(throws: SocialError.invalidCursor("garbage")) { try await setup.friends.blocks(by: "ann", after: "garbage", limit: 2) }
    }

    @Test func aFollowTellsTheFollowedOnceAndABlockEndsIt() async throws {
        let setup = try await Setup(users: ["ann", "bob"])
        defer { setup.remove() }
        let follows = FollowService(store: setup.store, notifier: setup.inbox)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await follows.follow("BOB", by: "ann", at: now).isNew)
        try await follows.unfollow("bob", by: "ann")
        #expect(try await follows.follow("bob", by: "ann", at: now.addingTimeInterval(1)).isNew)
        #expect(setup.inbox.kinds == ["bob new_follower from ann"])
        await #expect(throws: SocialError.cannotFollowYourself) { try await follows.follow("ann", by: "ann", at: now) }
        let page = try await follows.followers(of: "bob", viewer: nil, after: nil, limit: 5)
        #expect(page.items.map(\.follower) == ["ann"] && page.total == 1 && page.nextPosition == nil)
        _ = try await setup.friends.block("ann", by: "bob", at: now)
        #expect(try await follows.following(of: "ann", after: nil, limit: 5).total == 0)
        await #expect(throws: SocialError.noSuchUser("bob")) { try await follows.follow("bob", by: "ann", at: now) }
        await #expect(throws: SocialError.noSuchUser("bob")) { try await follows.followers(of: "bob", viewer: "ann", after: nil, limit: 5) }
        await #expect(throws: SocialError.notFollowing("bob")) { try await follows.unfollow("bob", by: "ann") }
    }
}
