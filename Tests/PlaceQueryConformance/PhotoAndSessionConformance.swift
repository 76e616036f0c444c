import Foundation
import PlaceModel
import PlaceQuery

/// An account's photo storage limit, the sweep of expired sessions and the retention of
/// notifications, as every
/// ``UserDataStore`` must keep them: a store's tests call ``check(_:)`` on an empty store and
/// expect no disagreement.
public enum PhotoAndSessionConformance {
    /// Every disagreement with the protocols' documented behaviour (empty when the store conforms).
    public static func check(_ store: any UserDataStore) async throws -> [String] {
        var failures = Disagreements()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for name in ["ann", "bob"] {
            try await store.createUser(UserAccount(username: name, email: "\(name)@example.org", passwordHash: "x", createdAt: now))
        }
        func photo(_ number: Int, owner: String, bytes: Int = 100) -> PhotoRecord {
            PhotoRecord(id: String(format: "%064x", number), contentType: "image/png", byteCount: bytes, owner: owner, createdAt: now)
        }

        // Photos within the limit are recorded; one past it is refused and not recorded.
        try await store.savePhoto(photo(1, owner: "ann"), storageLimit: 250)
        try await store.savePhoto(photo(2, owner: "ann"), storageLimit: 250)
        failures.expect(try await store.photoBytes(ownedBy: "ann") == 200, "ann's two photos take 200 bytes")
        do {
            try await store.savePhoto(photo(3, owner: "ann"), storageLimit: 250)
            failures.append("a photo past the limit was recorded")
        } catch let error as UserDataError {
            failures.expect(error == .storageFull(owner: "ann", used: 200, adding: 100, limit: 250), "the refusal says what is used: \(error)")
        }
        failures.expect(try await store.photo(id: photo(3, owner: "ann").id) == nil, "the refused photo is not recorded")
        failures.expect(try await store.photoBytes(ownedBy: "ann") == 200, "a refusal takes nothing")
        // A photo someone stored and shows costs nothing, even for someone at the limit.
        try await store.savePhoto(photo(4, owner: "bob"), storageLimit: 250)
        if var bob = try await store.user(named: "bob") {
            bob.profile.avatarPhoto = photo(4, owner: "bob").id
            try await store.updateUser(bob)
        }
        try await store.savePhoto(photo(4, owner: "ann"), storageLimit: 150)
        failures.expect(try await store.photo(id: photo(4, owner: "bob").id)?.owner == "bob", "a stored photo keeps its first uploader")
        let annBytes = try await store.photoBytes(ownedBy: "ann"), bobBytes = try await store.photoBytes(ownedBy: "bob")
        failures.expect(annBytes == 200 && bobBytes == 100, "each account counts the photos it uploaded first, got \(annBytes) and \(bobBytes)")
        // No limit: anything goes.
        try await store.savePhoto(photo(5, owner: "ann", bytes: 1_000_000))
        failures.expect(try await store.photoBytes(ownedBy: "ann") == 1_000_200, "without a limit the photo is recorded")
        // Unused photos leave, and their bytes with them.
        _ = try await store.removeUnusedPhotos([photo(5, owner: "ann").id])
        failures.expect(try await store.photoBytes(ownedBy: "ann") == 200, "a removed photo no longer counts")

        // Twelve uploads at once, each 100 bytes, against 250 bytes with 200 used by ann and 100 by bob:
        // bob has room for exactly one more.
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for number in 10..<22 {
                group.addTask {
                    do {
                        try await store.savePhoto(photo(number, owner: "bob"), storageLimit: 250)
                        return true
                    } catch UserDataError.storageFull {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        failures.expect(
            outcomes.filter { $0 }.count == 1,
            "one of twelve concurrent uploads fits bob's 150 free bytes, \(outcomes.filter { $0 }.count) were recorded")
        failures.expect(try await store.photoBytes(ownedBy: "bob") == 200, "bob ends at 200 bytes")

        // A deleted account's photos count for no one: not for a later account of the same name.
        _ = try await store.deleteUser(named: "bob")
        try await store.createUser(UserAccount(username: "bob", email: "bob@example.org", passwordHash: "x", createdAt: now))
        failures.expect(try await store.photoBytes(ownedBy: "bob") == 0, "a new account named bob starts with no photos")
        failures.expect(try await store.photos(ownedBy: "bob", after: nil, limit: 10).isEmpty, "and exports none of the old bob's")

        // Expired sessions of every account go; open ones stay.
        let sessions = [("a1", "ann", -10.0), ("a2", "ann", 3_600.0), ("b1", "bob", -1.0), ("b2", "bob", 0.0)]
        for (hash, name, offset) in sessions {
            try await store.createSession(
                SessionRecord(
                    tokenHash: hash, username: name, createdAt: now.addingTimeInterval(-86_400),
                    expiresAt: now.addingTimeInterval(offset)))
        }
        failures.expect(try await store.deleteExpiredSessions(asOf: now) == 3, "three sessions had expired by now (one exactly at it)")
        failures.expect(try await store.session(tokenHash: "a2") != nil, "an open session stays")
        for hash in ["a1", "b1", "b2"] {
            failures.expect(try await store.session(tokenHash: hash) == nil, "expired session \(hash) is gone")
        }
        failures.expect(try await store.deleteExpiredSessions(asOf: now) == 0, "a second sweep finds nothing")

        // Notifications past the retention go, read or not, whoever they are for; younger ones stay.
        for (id, name, daysAgo) in [("n1", "ann", 100.0), ("n2", "bob", 91.0), ("n3", "ann", 89.0), ("n4", "ann", 90.0)] {
            try await store.addNotification(
                UserNotification(
                    id: id, username: name, kind: "friend_request", data: ["from": "cat"],
                    createdAt: now.addingTimeInterval(-daysAgo * 86_400)))
        }
        _ = try await store.markNotificationsRead(of: "ann", ids: ["n1"], at: now)
        failures.expect(
            try await store.deleteNotifications(createdBefore: now.addingTimeInterval(-90 * 86_400)) == 2,
            "two notifications are older than 90 days (one exactly 90 days old stays)")
        let kept = try await store.notifications(of: "ann", unreadOnly: false, after: nil, limit: 10).map(\.id)
        failures.expect(kept == ["n3", "n4"], "ann keeps the younger two: \(kept)")
        failures.expect(try await store.notifications(of: "bob", unreadOnly: false, after: nil, limit: 10).isEmpty, "bob's old one went")
        return failures.list
    }
}
