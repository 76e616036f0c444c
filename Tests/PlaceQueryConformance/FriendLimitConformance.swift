import Foundation
import PlaceQuery

/// The most friends an account may have, as every ``UserDataStore`` must keep it: an
/// acceptance that would pass it, on either side, is refused and changes nothing, however many
/// come at once. A store's tests call ``check(_:)`` on an empty store and expect no disagreement.
public enum FriendLimitConformance {
    /// Every disagreement with the protocols' documented behaviour (empty when the store conforms).
    public static func check(_ store: any UserDataStore) async throws -> [String] {
        var failures = Disagreements()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func refused(_ attempt: () async throws -> Void, _ username: String, _ what: String) async throws {
            do {
                try await attempt()
                failures.append("\(what) was accepted past the limit")
            } catch let error as UserDataError {
                failures.expect(error == .friendLimit(username: username, limit: 2), "\(what) is refused naming \(username): \(error)")
            }
        }
        func accepted(_ username: String) async throws -> [String] {
            try await store.friendships(of: username).filter { $0.state == .accepted }.map(\.username)
        }
        // Ann has two friends, the limit.
        for name in ["bob", "cat"] {
            _ = try await store.requestFriendship(from: name, to: "ann", at: now, friendLimit: 2)
            _ = try await store.requestFriendship(from: "ann", to: name, at: now, friendLimit: 2)
        }
        failures.expect(try await accepted("ann") == ["bob", "cat"], "two friendships within the limit")
        // A third, accepted either way, is refused, and the request stays unanswered.
        _ = try await store.requestFriendship(from: "dan", to: "ann", at: now, friendLimit: 2)
        try await refused({ _ = try await store.requestFriendship(from: "ann", to: "dan", at: now, friendLimit: 2) }, "ann", "asking back")
        try await refused(
            { _ = try await store.answerFriendship(of: "ann", from: "dan", accept: true, at: now, friendLimit: 2) },
            "ann", "accepting")
        let waiting = try await store.friendships(of: "ann").first { $0.username == "dan" }
        failures.expect(waiting?.state == .incoming, "dan's request still waits: \(String(describing: waiting))")
        // Someone with room cannot accept a request from someone without.
        _ = try await store.requestFriendship(from: "ann", to: "eve", at: now, friendLimit: 2)
        try await refused(
            { _ = try await store.answerFriendship(of: "eve", from: "ann", accept: true, at: now, friendLimit: 2) },
            "ann", "eve accepting ann's request")
        // Accepting a request that does not exist finds nothing, whoever is full.
        let none = try await store.answerFriendship(of: "ann", from: "zoe", accept: true, at: now, friendLimit: 2)
        failures.expect(!none, "no request from zoe: nothing to accept")
        // Declining needs no room; ending a friendship makes room.
        failures.expect(try await store.answerFriendship(of: "ann", from: "dan", accept: false, at: now, friendLimit: 2), "a decline goes through")
        failures.expect(try await store.removeFriendship(between: "ann", and: "bob"), "a friendship ends")
        failures.expect(try await store.answerFriendship(of: "eve", from: "ann", accept: true, at: now, friendLimit: 2), "with room, eve accepts")
        let back = try await accepted("ann")
        failures.expect(back == ["cat", "eve"], "ann is back at two: \(back)")

        // Six acceptances of kim's friendship at once, with room for two.
        let askers = (1...6).map { "kin\($0)" }
        for name in askers { _ = try await store.requestFriendship(from: "kim", to: name, at: now, friendLimit: 2) }
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for name in askers {
                group.addTask {
                    do {
                        _ = try await store.requestFriendship(from: name, to: "kim", at: now, friendLimit: 2)
                        return true
                    } catch UserDataError.friendLimit {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        let kims = try await accepted("kim")
        failures.expect(outcomes.filter { $0 }.count == 2 && kims.count == 2, "two of six acceptances at once land, got \(outcomes) and \(kims)")
        return failures.list
    }
}
