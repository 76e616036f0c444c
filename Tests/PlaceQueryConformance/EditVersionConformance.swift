import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// Writes over the version they read, as every ``UserDataStore`` must keep them: a gem's
/// version is its `updatedAt` and every write is a new one; an account's is the account as
/// read. A write over a version no longer stored is refused. A store's tests call ``check(_:)``
/// on an empty store and expect no disagreement.
public enum EditVersionConformance {
    /// Every disagreement with the protocols' documented behaviour (empty when the store conforms).
    public static func check(_ store: any UserDataStore) async throws -> [String] {
        var failures = Disagreements()
        let created = Date(timeIntervalSince1970: 1_800_000_000.123_456)
        let id = try PlaceID(source: "gem", localID: "versioned")
        let gem = Place(
            id: id, name: "First", coordinate: try Coordinate(latitude: 43.7, longitude: 7.4),
            provenance: Provenance(source: "gem", sourceID: id.localID),
            gem: HiddenGem(owner: "ann", visibility: .public, createdAt: created, updatedAt: created))
        try await store.createGem(gem)
        let read = try await store.place(id)
        failures.expect(read?.gem?.updatedAt == created, "the version reads back exactly: \(String(describing: read?.gem?.updatedAt))")

        // Two edits from the same version: the first lands, the second is refused and changes nothing.
        var first = gem, second = gem
        first.name = "Edited by the phone"
        first.gem?.updatedAt = created.addingTimeInterval(10)
        second.name = "Edited by the laptop"
        second.gem?.updatedAt = created.addingTimeInterval(11)
        try await store.updateGem(first, expectedUpdatedAt: created)
        do {
            try await store.updateGem(second, expectedUpdatedAt: created)
            failures.append("an edit over a version that is no longer stored was written")
        } catch let error as UserDataError {
            if case .conflict = error {} else { failures.append("a stale edit is refused as a conflict, got \(error)") }
        }
        let now = try await store.place(id)
        failures.expect(
            now?.name == "Edited by the phone" && now?.gem?.updatedAt == created.addingTimeInterval(10),
            "the first edit stays: \(String(describing: now?.name)) at \(String(describing: now?.gem?.updatedAt))")

        // A clock that went back still makes a new version, past the stored one.
        var skewed = try Self.require(now)
        skewed.name = "From a slow clock"
        skewed.gem?.updatedAt = created
        try await store.updateGem(skewed, expectedUpdatedAt: created.addingTimeInterval(10))
        let after = try await store.place(id)
        failures.expect(
            (after?.gem?.updatedAt).map { $0 > created.addingTimeInterval(10) } == true,
            "a write's version moves forward: \(String(describing: after?.gem?.updatedAt))")
        // Without an expected version, whatever is stored is replaced.
        var blind = gem
        blind.name = "Unconditional"
        try await store.updateGem(blind)
        failures.expect(try await store.place(id)?.name == "Unconditional", "an unconditional write replaces what is stored")
        let missing = try PlaceID(source: "gem", localID: "missing")
        do {
            let absent = Place(
                id: missing, name: "Nowhere", coordinate: try Coordinate(latitude: 1, longitude: 1),
                provenance: Provenance(source: "gem", sourceID: missing.localID),
                gem: HiddenGem(owner: "ann", visibility: .public, createdAt: created, updatedAt: created))
            try await store.updateGem(absent, expectedUpdatedAt: created)
            failures.append("an update of a gem that does not exist was accepted")
        } catch let error as UserDataError {
            if case .notFound = error {} else { failures.append("a missing gem is not found, got \(error)") }
        }

        // An account changed over the account as read: the first change lands, a second from
        // the same read is refused, and one from a fresh read lands beside the first.
        let account = UserAccount(username: "ann", email: "ann@example.org", passwordHash: "x", createdAt: created)
        try await store.createUser(account)
        let read1 = try Self.require(try await store.user(named: "ann"))
        var phone = read1, laptop = read1
        phone.profile.displayName = "Ann"
        laptop.profile.bio = "walks"
        try await store.updateUser(phone, expected: read1)
        do {
            try await store.updateUser(laptop, expected: read1)
            failures.append("an account change over a stale read was written")
        } catch let error as UserDataError {
            if case .conflict = error {} else { failures.append("a stale account change is refused as a conflict, got \(error)") }
        }
        var fresh = try Self.require(try await store.user(named: "ann"))
        let expected = fresh
        fresh.profile.bio = "walks"
        try await store.updateUser(fresh, expected: expected)
        let both = try await store.user(named: "ann")
        failures.expect(both?.profile.displayName == "Ann" && both?.profile.bio == "walks", "both changes stay: \(String(describing: both?.profile))")
        return failures.list
    }

    struct Missing: Error {}

    static func require<T>(_ value: T?) throws -> T {
        guard let value else { throw Missing() }
        return value
    }
}
