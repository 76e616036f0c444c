import Foundation
import PlaceQuery

/// How every ``RandomCityMemory`` remembers: a store's tests call ``check(_:)`` on an empty
/// store and expect no disagreement.
public enum RandomCityMemoryConformance {
    /// Every disagreement with the protocol's documented behaviour (empty when the store conforms).
    public static func check(_ store: any RandomCityMemory) async throws -> [String] {
        var failures: [String] = []
        if let none = try await store.lastRandomCity(of: "ann") { failures.append("a user never shown a city has none: \(none)") }
        try await store.rememberRandomCity("geonames:2988507", for: "ann")
        try await store.rememberRandomCity("geonames:2643743", for: "bob")
        try await store.rememberRandomCity("geonames:3117735", for: "ann")
        let ann = try await store.lastRandomCity(of: "ann"), bob = try await store.lastRandomCity(of: "bob")
        if ann != "geonames:3117735" { failures.append("the last city shown replaces the one before: \(ann ?? "none")") }
        if bob != "geonames:2643743" { failures.append("each user has their own: \(bob ?? "none")") }
        return failures
    }

    /// ``check(_:)``, then: deleting an account forgets its city and its webhook deliveries
    /// (and nobody else's).
    public static func checkWithAccountDeletion(_ store: any UserDataStore) async throws -> [String] {
        var failures = try await check(store)
        let lease = Date(timeIntervalSince1970: 0)
        for user in ["ann", "bob"] {
            try await store.queueDelivery(
                PendingDelivery(notificationID: "n_\(user)", username: user, body: "{}", failedAttempts: 0), leaseUntil: lease)
        }
        _ = try await store.deleteUser(named: "ann")
        if let left = try await store.lastRandomCity(of: "ann") { failures.append("a deleted account's city is forgotten: \(left)") }
        if try await store.lastRandomCity(of: "bob") == nil { failures.append("another account's city stays") }
        let due = try await store.claimDeliveries(dueBy: Date(), leaseUntil: Date(), only: nil, limit: 10).map(\.notificationID)
        if due != ["n_bob"] { failures.append("a deleted account's deliveries go, others' stay: \(due)") }
        return failures
    }
}
