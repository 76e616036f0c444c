/// A place that could be visited, with what visiting it is worth and costs.
public struct OrienteeringCandidate: Sendable, Hashable {
    /// What the visit is worth (higher is better; not negative).
    public var score: Double
    /// What the visit costs in money (not negative).
    public var cost: Double
    /// The visit on each day of the trip: its duration and when it may begin that day (day 0
    /// first). `visits.count` is the number of days.
    public var visits: [TimedStop]

    public init(score: Double, cost: Double, visits: [TimedStop]) {
        self.score = score
        self.cost = cost
        self.visits = visits
    }
}

/// The chosen visits: an ordered day per day of the trip.
public struct OrienteeringPlan: Sendable, Hashable {
    /// Per day, the candidates visited in order (indexes into the candidates) with their times.
    public var days: [DaySchedule]
    public var score: Double
    public var cost: Double
    /// Whether no other choice scores more (exact search).
    public var isProvenOptimal: Bool
    /// No choice can score more than this (the exact score when ``isProvenOptimal``; else a
    /// relaxation's bound).
    public var upperBound: Double
}

/// The orienteering problem with time windows over several days: choose the visits that
/// maximise the sum of their scores such that every day, starting at and returning to one
/// point (a lodging), keeps each visit inside its window and ends by the day's end, and the
/// chosen visits' costs stay within a money budget.
///
/// Exact up to ``exactLimit`` candidates: for each day, the earliest finish of every subset and
/// last visit (dynamic programming; waiting for a window to open is allowed, so the earliest
/// finish decides feasibility) gives the sets that fit that day; a second pass over subsets
/// partitions the chosen set into days; the best set within the budget wins; each day is then
/// ordered for the least travel by ``TimeWindowScheduler``.
///
/// Beyond it: greedy insertion by score per added minute (and per unit of budget when the
/// budget binds), then improvement: each day re-ordered to free time, further insertions, and
/// swaps of a visit for a better one. Not proven; the answer carries an upper bound from a
/// fractional knapsack over the trip's total time (each visit weighed by its duration plus the
/// least travel into it) and over the budget.
public enum Orienteering {
    /// Largest candidate set solved exactly.
    public static let exactLimit = 12

    /// - Parameters:
    ///   - travel: seconds between nodes; node 0 is the start and end of every day, nodes
    ///     `1...n` the candidates.
    ///   - budget: the money the visits may cost in all; nil for no limit.
    public static func plan(
        candidates: [OrienteeringCandidate], travel: [[Double]], dayStart: Double, dayEnd: Double,
        budget: Double?
    ) -> OrienteeringPlan {
        let n = candidates.count
        let days = candidates.first?.visits.count ?? 0
        precondition(travel.count == n + 1 && travel.allSatisfy { $0.count == n + 1 }, "travel must be (n + 1) × (n + 1)")
        precondition(candidates.allSatisfy { $0.visits.count == days }, "every candidate needs a visit per day")
        if n == 0 || days == 0 {
            return OrienteeringPlan(days: (0..<days).map { _ in empty(travel) }, score: 0, cost: 0, isProvenOptimal: true, upperBound: 0)
        }
        if n <= exactLimit { return exact(candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd, budget: budget) }
        return heuristic(candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd, budget: budget)
    }

    static func empty(_ travel: [[Double]]) -> DaySchedule {
        DaySchedule(order: [], starts: [], travelSeconds: 0, finish: 0, unplaced: [], isProvenOptimal: true)
    }

    /// The day's stops (day `day` of each candidate) and the travel matrix the scheduler takes
    /// (start and end both node 0), for a subset given by candidate indexes.
    static func schedule(
        _ chosen: [Int], day: Int, candidates: [OrienteeringCandidate], travel: [[Double]],
        dayStart: Double, dayEnd: Double
    ) -> DaySchedule {
        let nodes = [0] + chosen.map { $0 + 1 } + [0]
        let matrix = nodes.map { a in nodes.map { b in travel[a][b] } }
        var schedule = TimeWindowScheduler.schedule(
            travel: matrix, stops: chosen.map { candidates[$0].visits[day] },
            dayStart: dayStart, dayEnd: dayEnd)
        schedule.order = schedule.order.map { chosen[$0] }
        schedule.unplaced = schedule.unplaced.map { (chosen[$0.stop], $0.reason) }
        return schedule
    }

    // MARK: Exact

    static func exact(
        _ candidates: [OrienteeringCandidate], travel: [[Double]], dayStart: Double, dayEnd: Double,
        budget: Double?
    ) -> OrienteeringPlan {
        let n = candidates.count, days = candidates[0].visits.count
        let full = 1 << n
        // fits[day][subset]: the subset can be visited on that day.
        var fits = [[Bool]](repeating: [Bool](repeating: false, count: full), count: days)
        var finish = [Double](repeating: .infinity, count: full * n)
        for day in 0..<days {
            for index in finish.indices { finish[index] = .infinity }
            fits[day][0] = true
            for i in 0..<n {
                guard let begin = candidates[i].visits[day].earliestStart(arriving: dayStart + travel[0][i + 1]) else { continue }
                finish[(1 << i) * n + i] = begin + candidates[i].visits[day].serviceSeconds
            }
            for subset in 1..<full {
                var fitsHere = false
                for last in 0..<n where subset & (1 << last) != 0 {
                    let time = finish[subset * n + last]
                    guard time.isFinite, time + travel[last + 1][0] <= dayEnd else { continue }
                    fitsHere = true
                    for next in 0..<n where subset & (1 << next) == 0 {
                        let visit = candidates[next].visits[day]
                        guard let begin = visit.earliestStart(arriving: time + travel[last + 1][next + 1]) else { continue }
                        let done = begin + visit.serviceSeconds
                        let key = (subset | (1 << next)) * n + next
                        if done < finish[key] { finish[key] = done }
                    }
                }
                fits[day][subset] = fitsHere
            }
        }
        // reach[d][set]: the set splits into d sets, the k-th fitting day k. Submasks of each set,
        // smallest first: a day takes as little as the days before it leave over, so a plan with
        // fewer visits than days fills the first days and leaves the last ones free (largest
        // first had put a lone visit on the last day and left day 1 empty).
        var reach = [Bool](repeating: false, count: full)
        reach[0] = true
        var split: [[Int32]] = []  // split[d][set]: the part on day d
        for day in 0..<days {
            var next = [Bool](repeating: false, count: full)
            var part = [Int32](repeating: -1, count: full)
            for set in 0..<full {
                var sub = 0
                while true {
                    if fits[day][sub], reach[set ^ sub] {
                        next[set] = true
                        part[set] = Int32(sub)
                        break
                    }
                    if sub == set { break }
                    sub = (sub &- set) & set
                }
            }
            reach = next
            split.append(part)
        }
        var scores = [Double](repeating: 0, count: full), costs = [Double](repeating: 0, count: full)
        for set in 1..<full {
            let low = set.trailingZeroBitCount
            scores[set] = scores[set & (set - 1)] + candidates[low].score
            costs[set] = costs[set & (set - 1)] + candidates[low].cost
        }
        var best = 0
        for set in 1..<full where reach[set] && costs[set] <= (budget ?? .infinity) + 1e-9 {
            // Ties: the cheaper set, then the one with fewer visits.
            if scores[set] > scores[best] + 1e-12
                || (abs(scores[set] - scores[best]) <= 1e-12 && (costs[set], set.nonzeroBitCount) < (costs[best], best.nonzeroBitCount))
            {
                best = set
            }
        }
        var parts = [Int](repeating: 0, count: days)
        var rest = best
        for day in stride(from: days - 1, through: 0, by: -1) {
            parts[day] = Int(split[day][rest])
            rest ^= parts[day]
        }
        let schedules = (0..<days).map { day in
            schedule(
                (0..<n).filter { parts[day] & (1 << $0) != 0 }, day: day, candidates: candidates, travel: travel,
                dayStart: dayStart, dayEnd: dayEnd)
        }
        return OrienteeringPlan(days: schedules, score: scores[best], cost: costs[best], isProvenOptimal: true, upperBound: scores[best])
    }
}
