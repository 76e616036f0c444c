import Foundation
import PlaceModel
import PlaceQuery

/// The semantics every ``PopularityStore`` must have, on a scripted history checked against a
/// brute-force decayed sum: order, decay, the period's cut-off, paging, and concurrent actions
/// that all count.
public enum PopularityConformance {
    public static func check(_ store: any PopularityStore) async throws -> [String] {
        var failures = Disagreements()
        let day = 86_400.0
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func id(_ n: Int) -> PlaceID { PlaceID(trustedRawValue: "test:p\(n)") }
        // (place, activity, days ago): an old burst, a steady trickle, one recent favourite, ties.
        var history: [(Int, PlaceActivity, Double)] = []
        for ago in stride(from: 20.0, through: 24, by: 1) { history += [(1, .favorite, ago), (1, .favorite, ago + 0.3), (1, .favorite, ago + 0.6)] }
        for ago in stride(from: 0.5, through: 9.5, by: 1) { history.append((2, .shareView, ago)) }
        history.append((3, .favorite, 0.1))
        history += [(4, .rating, 3), (5, .rating, 3)]
        history.append((6, .planStop, 40))  // outside the month
        for (place, activity, ago) in history {
            try await store.recordActivity(
                activity, subjects: [(.place, id(place)), (.destination, id(100 + place % 2))],
                at: now.addingTimeInterval(-ago * day))
        }
        for period in [PopularityPeriod.week, .month] {
            // Brute force: every action's weight halved per half-life, places active in the period.
            var sums: [PlaceID: Double] = [:], last: [PlaceID: Double] = [:]
            for (place, activity, ago) in history {
                sums[id(place), default: 0] += activity.weight * exp2(-ago * day / period.halfLife)
                last[id(place)] = min(last[id(place)] ?? .infinity, ago)
            }
            let expected = sums.filter { last[$0.key]! * day <= period.seconds }
                .sorted { abs($0.value - $1.value) > 1e-9 ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }
            let since = now.addingTimeInterval(-period.seconds)
            let found = try await store.popular(.place, period: period, activeSince: since, after: nil, limit: 50)
            failures.expect(
                found.map(\.subject) == expected.map(\.key), "\(period): order \(found.map(\.subject.rawValue)) != \(expected.map(\.key.rawValue))")
            for (entry, truth) in zip(found, expected) {
                let value = PopularityMath.value(entry.key, at: now, period: period)
                failures.expect(
                    abs(value - truth.value) < 1e-6 * max(1, truth.value), "\(period): \(entry.subject) is worth \(value), brute force \(truth.value)"
                )
            }
            // Pages of two continue exactly.
            var paged: [PlaceID] = [], after: PopularEntry?
            while true {
                let page = try await store.popular(.place, period: period, activeSince: since, after: after, limit: 2)
                paged += page.map(\.subject)
                guard page.count == 2 else { break }
                after = page.last
            }
            failures.expect(paged == expected.map(\.key), "\(period): paging gives \(paged.map(\.rawValue))")
        }
        let week = try await store.popular(.place, period: .week, activeSince: now.addingTimeInterval(-7 * day), after: nil, limit: 50)
        failures.expect(!week.contains { $0.subject == id(1) }, "a burst three weeks ago is not popular this week")
        let month = try await store.popular(.place, period: .month, activeSince: now.addingTimeInterval(-30 * day), after: nil, limit: 50)
        failures.expect(
            month.first?.subject == id(1), "over the month the old burst (15 favourites) leads, got \(month.first?.subject.rawValue ?? "none")")
        failures.expect(month.first(where: { $0.subject == id(1) })?.events == 15, "events are counted")
        let destinations = try await store.popular(.destination, period: .month, activeSince: now.addingTimeInterval(-30 * day), after: nil, limit: 5)
        failures.expect(Set(destinations.map(\.subject)) == [id(100), id(101)], "destinations are counted apart from places")

        // Concurrent actions on one place all count.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { try await store.recordActivity(.favorite, subjects: [(.place, id(9))], at: now) } }
            try await group.waitForAll()
        }
        let busy = try await store.popular(.place, period: .week, activeSince: now.addingTimeInterval(-7 * day), after: nil, limit: 1)
        failures.expect(
            busy.first?.subject == id(9) && busy.first?.events == 16, "16 concurrent favourites all count, got \(busy.first?.events ?? 0)")
        if let key = busy.first?.key {
            failures.expect(abs(PopularityMath.value(key, at: now, period: .week) - 48) < 1e-6, "16 × 3 = 48")
        }
        return failures.list
    }
}
