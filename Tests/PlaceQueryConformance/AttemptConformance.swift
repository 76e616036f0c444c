import Foundation
import PlaceQuery

/// How every ``AttemptStore`` counts attempts: a store's tests call ``check(_:)`` on an empty
/// store and expect no disagreement.
public enum AttemptConformance {
    /// Every disagreement with the protocol's documented behaviour (empty when the store conforms).
    public static func check(_ store: any AttemptStore) async throws -> [String] {
        var failures = Disagreements()
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
        failures.expect(all == [240, 180, 120, 60, 0].map(at), "every attempt of k1, newest first: \(all)")
        let newest = try await store.attempts(scope: "sign-in", key: "k1", since: at(-1), limit: 2)
        failures.expect(newest == [at(240), at(180)], "the newest two: \(newest)")
        let recent = try await store.attempts(scope: "sign-in", key: "k1", since: at(120), limit: 10)
        failures.expect(recent == [at(240), at(180), at(120)], "those at or after the start of the window: \(recent)")
        let other = try await store.attempts(scope: "sign-in", key: "k2", since: at(-1), limit: 10)
        failures.expect(other == [at(30)], "another key counts apart: \(other)")
        let scoped = try await store.attempts(scope: "sign-up", key: "k1", since: at(-1), limit: 10)
        failures.expect(scoped == [at(30)], "another scope counts apart: \(scoped)")

        // A success clears one key in one scope only.
        try await store.clearAttempts(scope: "sign-in", key: "k1")
        let cleared = try await store.attempts(scope: "sign-in", key: "k1", since: at(-1), limit: 10)
        failures.expect(cleared.isEmpty, "cleared: \(cleared)")
        let kept = try await store.attempts(scope: "sign-up", key: "k1", since: at(-1), limit: 10)
        let neighbour = try await store.attempts(scope: "sign-in", key: "k2", since: at(-1), limit: 10)
        failures.expect(kept.count == 1 && neighbour.count == 1, "clearing k1's sign-ins leaves its sign-ups and k2: \(kept), \(neighbour)")

        // The sweep forgets what was kept until before its time, and nothing else.
        let swept = try await store.deleteAttempts(expiredBy: at(1_000))
        failures.expect(swept == 1, "the sweep forgets k2's sign-in (kept until +630 s) only, forgot \(swept)")
        let left = try await store.attempts(scope: "sign-up", key: "k1", since: at(-1), limit: 10)
        failures.expect(left == [at(30)], "the sign-up kept an hour stays: \(left)")
        let again = try await store.deleteAttempts(expiredBy: at(1_000))
        failures.expect(again == 0, "a second sweep forgets nothing, forgot \(again)")
        return failures.list
    }
}

/// How every ``AttemptStore`` spends budgets.
public enum BudgetConformance {
    /// Every disagreement with the protocol's documented behaviour (empty when the store conforms).
    public static func check(_ store: any AttemptStore) async throws -> [String] {
        var failures = Disagreements()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func at(_ seconds: Double) -> Date { now.addingTimeInterval(seconds) }
        // Three units, one back every 20 minutes.
        func spend(_ key: String, _ seconds: Double, scope: String = "creations") async throws -> Double? {
            try await store.spendBudget(scope: scope, key: key, capacity: 3, refillPerSecond: 3.0 / 3_600, at: at(seconds))
        }

        for n in 0..<3 {
            let spent = try await spend("ann", 0)
            failures.expect(spent == nil, "a new budget spends its whole burst: unit \(n + 1) refused, wait \(String(describing: spent))")
        }
        let refused = try await spend("ann", 0)
        failures.expect(refused.map { abs($0 - 1_200) < 0.01 } == true, "empty: one unit back in 1 200 s, got \(String(describing: refused))")
        let bob = try await spend("bob", 0)
        let otherScope = try await spend("ann", 0, scope: "reports")
        failures.expect(bob == nil && otherScope == nil, "another key and another scope have budgets of their own")
        let early = try await spend("ann", 1_199)
        failures.expect(early.map { abs($0 - 1) < 0.01 } == true, "not before the unit is back: \(String(describing: early))")
        let back = try await spend("ann", 1_200)
        failures.expect(back == nil, "the unit is back after 1 200 s and spent: \(String(describing: back))")
        let again = try await spend("ann", 1_201)
        failures.expect(again != nil, "one came back, one was spent: \(String(describing: again))")

        // Spending at once from many callers (servers) spends each unit once.
        let results = try await withThrowingTaskGroup(of: Double?.self) { group in
            for _ in 0..<8 {
                group.addTask { try await store.spendBudget(scope: "creations", key: "cat", capacity: 3, refillPerSecond: 3.0 / 3_600, at: now) }
            }
            return try await group.reduce(into: [Double?]()) { $0.append($1) }
        }
        let granted = results.filter { $0 == nil }.count
        failures.expect(granted == 3, "eight spends at once from a budget of three: exactly three granted, got \(granted)")

        // A budget full again is forgotten by the sweep, and a forgotten budget is full.
        let notYet = try await store.deleteFullBudgets(asOf: at(1_000))
        failures.expect(notYet == 0, "no budget is full again at +1 000 s, forgot \(notYet)")
        let swept = try await store.deleteFullBudgets(asOf: at(10_000))
        failures.expect(swept == 4, "ann, bob, cat and ann's reports are full again by +10 000 s, forgot \(swept)")
        for n in 0..<3 {
            let spent = try await spend("ann", 10_000)
            failures.expect(spent == nil, "a forgotten budget is full: unit \(n + 1) refused")
        }
        return failures.list
    }
}
