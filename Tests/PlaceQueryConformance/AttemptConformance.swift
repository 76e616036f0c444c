import Foundation
import PlaceQuery

/// How every ``AttemptStore`` counts attempts: a store's tests call ``check(_:)`` on an empty
/// store and expect no disagreement.
public enum AttemptConformance {
    /// Every disagreement with the protocol's documented behaviour (empty when the store conforms).
    public static func check(_ store: any AttemptStore) async throws -> [String] {
        var failures: [String] = []
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { failures.append(message()) }
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func at(_ seconds: Double) -> Date { now.addingTimeInterval(seconds) }

        // Five attempts of one key a minute apart, kept ten minutes each; one of another key,
        // and one of the same key under another scope.
        for minute in 0..<5 {
            try await store.recordAttempt(scope: "sign-in", key: "k1", at: at(Double(minute) * 60), keptUntil: at(Double(minute) * 60 + 600))
        }
        try await store.recordAttempt(scope: "sign-in", key: "k2", at: at(30), keptUntil: at(630))
        try await store.recordAttempt(scope: "sign-up", key: "k1", at: at(30), keptUntil: at(3_630))

        let all = try await store.attempts(scope: "sign-in", key: "k1", since: at(-1), limit: 10)
        expect(all == [240, 180, 120, 60, 0].map(at), "every attempt of k1, newest first: \(all)")
        let newest = try await store.attempts(scope: "sign-in", key: "k1", since: at(-1), limit: 2)
        expect(newest == [at(240), at(180)], "the newest two: \(newest)")
        let recent = try await store.attempts(scope: "sign-in", key: "k1", since: at(120), limit: 10)
        expect(recent == [at(240), at(180), at(120)], "those at or after the start of the window: \(recent)")
        let other = try await store.attempts(scope: "sign-in", key: "k2", since: at(-1), limit: 10)
        expect(other == [at(30)], "another key counts apart: \(other)")
        let scoped = try await store.attempts(scope: "sign-up", key: "k1", since: at(-1), limit: 10)
        expect(scoped == [at(30)], "another scope counts apart: \(scoped)")

        // A success clears one key in one scope only.
        try await store.clearAttempts(scope: "sign-in", key: "k1")
        let cleared = try await store.attempts(scope: "sign-in", key: "k1", since: at(-1), limit: 10)
        expect(cleared.isEmpty, "cleared: \(cleared)")
        let kept = try await store.attempts(scope: "sign-up", key: "k1", since: at(-1), limit: 10)
        let neighbour = try await store.attempts(scope: "sign-in", key: "k2", since: at(-1), limit: 10)
        expect(kept.count == 1 && neighbour.count == 1, "clearing k1's sign-ins leaves its sign-ups and k2: \(kept), \(neighbour)")

        // The sweep forgets what was kept until before its time, and nothing else.
        let swept = try await store.deleteAttempts(expiredBy: at(1_000))
        expect(swept == 1, "the sweep forgets k2's sign-in (kept until +630 s) only, forgot \(swept)")
        let left = try await store.attempts(scope: "sign-up", key: "k1", since: at(-1), limit: 10)
        expect(left == [at(30)], "the sign-up kept an hour stays: \(left)")
        let again = try await store.deleteAttempts(expiredBy: at(1_000))
        expect(again == 0, "a second sweep forgets nothing, forgot \(again)")
        return failures
    }
}
