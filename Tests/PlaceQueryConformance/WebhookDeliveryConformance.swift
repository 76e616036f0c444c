import Foundation
import PlaceQuery

/// How every ``WebhookDeliveryStore`` keeps deliveries: a store's tests call ``check(_:)`` on
/// an empty store and expect no disagreement.
public enum WebhookDeliveryConformance {
    /// Every disagreement with the protocol's documented behaviour (empty when the store conforms).
    public static func check(_ store: any WebhookDeliveryStore) async throws -> [String] {
        var failures = Disagreements()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func at(_ seconds: Double) -> Date { now.addingTimeInterval(seconds) }
        func delivery(_ n: Int, _ user: String = "ann") -> PendingDelivery {
            PendingDelivery(
                notificationID: "n_\(n)", username: user, body: #"{"id":"n_\#(n)","kind":"friend_request","text":"é \"q\""}"#,
                failedAttempts: 0)
        }

        // Three deliveries whose first attempts are under way (leased for a minute).
        for n in 1...3 { try await store.queueDelivery(delivery(n), leaseUntil: at(60)) }
        try await store.queueDelivery(PendingDelivery(notificationID: "n_1", username: "ann", body: "{}", failedAttempts: 5), leaseUntil: at(0))
        let underWay = try await store.claimDeliveries(dueBy: at(30), leaseUntil: at(90), only: nil, limit: 10)
        failures.expect(underWay.isEmpty, "deliveries under way are not taken before their lease ends: \(underWay.map(\.notificationID))")

        // Their server stopped: after the lease, a claim takes them, oldest due first, as queued.
        try await store.rescheduleDelivery(of: "n_2", failedAttempts: 1, dueAt: at(40))
        let taken = try await store.claimDeliveries(dueBy: at(61), leaseUntil: at(121), only: nil, limit: 2)
        failures.expect(taken.map(\.notificationID) == ["n_2", "n_1"], "the two longest due, in order: \(taken.map(\.notificationID))")
        failures.expect(taken.last == delivery(1), "queued once, body and attempts as first queued: \(String(describing: taken.last))")
        failures.expect(taken.first?.failedAttempts == 1, "the failed attempts counted: \(String(describing: taken.first))")
        let again = try await store.claimDeliveries(dueBy: at(61), leaseUntil: at(121), only: nil, limit: 10)
        failures.expect(again.map(\.notificationID) == ["n_3"], "what a claim took is not taken again: \(again.map(\.notificationID))")

        // One delivery by id; rescheduled, it is due again; finished, it is gone.
        try await store.rescheduleDelivery(of: "n_1", failedAttempts: 2, dueAt: at(70))
        let early = try await store.claimDeliveries(dueBy: at(65), leaseUntil: at(200), only: "n_1", limit: 1)
        failures.expect(early.isEmpty, "not due before its time: \(early.map(\.notificationID))")
        let byID = try await store.claimDeliveries(dueBy: at(70), leaseUntil: at(200), only: "n_1", limit: 1)
        failures.expect(byID.map(\.notificationID) == ["n_1"] && byID.first?.failedAttempts == 2, "taken by id when due: \(byID)")
        for n in 1...3 { try await store.finishDelivery(of: "n_\(n)") }
        let none = try await store.claimDeliveries(dueBy: at(10_000), leaseUntil: at(10_060), only: nil, limit: 10)
        failures.expect(none.isEmpty, "finished deliveries are gone: \(none.map(\.notificationID))")

        // Eight claims at once over twenty due deliveries take each exactly once.
        for n in 10..<30 { try await store.queueDelivery(delivery(n, "bob"), leaseUntil: at(100)) }
        let claims = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { try await store.claimDeliveries(dueBy: at(200), leaseUntil: at(300), only: nil, limit: 4).map(\.notificationID) }
            }
            var all: [String] = []
            for try await ids in group { all += ids }
            return all
        }
        failures.expect(
            claims.count == 20 && Set(claims).count == 20,
            "each of 20 deliveries taken once by 8 claims at once: \(claims.count) taken, \(Set(claims).count) distinct")
        for n in 10..<30 { try await store.finishDelivery(of: "n_\(n)") }
        return failures.list
    }
}
