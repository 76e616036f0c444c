import Foundation
import PlaceQuery

/// Follows as every ``UserDataStore`` must keep them: one per pair, lists newest first that
/// page without a gap or a repeat, counts, and blocks and deleted accounts that end them. A
/// store's tests call ``check(_:)`` on an empty store and expect no disagreement.
public enum FollowConformance {
    /// Every disagreement with the protocols' documented behaviour (empty when the store conforms).
    public static func check(_ store: any UserDataStore) async throws -> [String] {
        var failures = Disagreements()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for name in ["ann", "bob", "cat", "dan", "eve", "fay"] {
            try await store.createUser(
                UserAccount(username: name, email: "\(name)@example.org", passwordHash: "x", createdAt: start))
        }
        // Five follow ann, two of them at the same instant (ordered by name then).
        let times: [(String, Double)] = [("bob", 10), ("cat", 30), ("dan", 20), ("eve", 30), ("fay", 5)]
        for (name, offset) in times {
            let made = try await store.follow("ann", by: name, at: start.addingTimeInterval(offset))
            failures.expect(made?.isNew == true && made?.follow.followee == "ann", "\(name) follows ann: \(String(describing: made))")
        }
        let again = try await store.follow("ann", by: "bob", at: start.addingTimeInterval(99))
        failures.expect(
            again?.isNew == false && again?.follow.createdAt == start.addingTimeInterval(10),
            "following twice keeps the first follow: \(String(describing: again))")
        _ = try await store.follow("bob", by: "ann", at: start.addingTimeInterval(40))
        _ = try await store.follow("cat", by: "ann", at: start.addingTimeInterval(41))

        // Paged two at a time, newest first, then by name.
        var seen: [String] = []
        var position: FollowPosition?
        for _ in 0..<5 {
            let page = try await store.followers(of: "ann", after: position, limit: 2)
            seen += page.map(\.follower)
            guard page.count == 2, let last = page.last else { break }
            position = FollowPosition(createdAt: last.createdAt, username: last.follower)
        }
        failures.expect(seen == ["cat", "eve", "dan", "bob", "fay"], "ann's followers newest first, then by name: \(seen)")
        let following = try await store.following(of: "ann", after: nil, limit: 10)
        failures.expect(
            following.map(\.followee) == ["cat", "bob"] && following.allSatisfy { $0.follower == "ann" }, "whom ann follows: \(following)")
        let counts = try await store.followCounts(of: "ann")
        failures.expect(counts.following == 2 && counts.followers == 5, "ann follows 2 and has 5 followers: \(counts)")

        // A block ends the follows both ways and prevents new ones, either way round.
        _ = try await store.block("ann", by: "cat", at: start.addingTimeInterval(50))
        let followersAfterBlock = try await store.followers(of: "ann", after: nil, limit: 10).map(\.follower)
        let followingAfterBlock = try await store.following(of: "ann", after: nil, limit: 10).map(\.followee)
        failures.expect(
            followersAfterBlock == ["eve", "dan", "bob", "fay"] && followingAfterBlock == ["bob"],
            "cat's block ended cat's follow of ann and ann's of cat: \(followersAfterBlock), \(followingAfterBlock)")
        let blocked = try await store.follow("cat", by: "ann", at: start.addingTimeInterval(51))
        let blockedBack = try await store.follow("ann", by: "cat", at: start.addingTimeInterval(51))
        failures.expect(blocked == nil && blockedBack == nil, "no follow while a block stands: \(String(describing: blocked))")
        _ = try await store.unblock("ann", by: "cat")
        failures.expect(try await store.follow("cat", by: "ann", at: start.addingTimeInterval(52))?.isNew == true, "after the block, a follow again")

        // Unfollowing, and deleting an account, end follows.
        failures.expect(try await store.unfollow("ann", by: "bob"), "bob unfollows ann")
        failures.expect(try await !store.unfollow("ann", by: "bob"), "unfollowing twice finds nothing")
        _ = try await store.deleteUser(named: "ann")
        let left = try await store.followCounts(of: "ann")
        let bobs = try await store.followCounts(of: "bob")
        failures.expect(left.following == 0 && left.followers == 0 && bobs.followers == 0, "a deleted account's follows are gone: \(left), \(bobs)")
        return failures.list
    }
}
