import GeoCore
import Testing

@testable import Routing

/// The orienteering solver against brute force on small random instances, and its heuristic
/// on large ones (budgets, windows and the day's end always kept; never above the bound).
@Suite struct OrienteeringTests {
    struct Instance {
        var candidates: [OrienteeringCandidate]
        var travel: [[Double]]
        var dayStart = 9.0 * 3600, dayEnd = 18.0 * 3600
        var budget: Double?
    }

    /// Points in a 6 km square around the start, walking at 1.2 m/s; visits of 30–150 minutes;
    /// some with a window that differs by day (a museum closed on day 1).
    static func instance(size: Int, days: Int, seed: UInt64, budget: Double?) -> Instance {
        var random = SplitMix64(seed: seed)
        let points = [(0.0, 0.0)] + (0..<size).map { _ in (random.unit() * 6_000 - 3_000, random.unit() * 6_000 - 3_000) }
        let travel = points.map { a in points.map { b in ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot() / 1.2 } }
        let candidates = (0..<size).map { _ -> OrienteeringCandidate in
            let service = Double(30 + Int(random.unit() * 120)) * 60
            let kind = Int(random.unit() * 4)
            let visits = (0..<days).map { day -> TimedStop in
                switch kind {
                case 0: return TimedStop(serviceSeconds: service)
                case 1: return TimedStop(serviceSeconds: service, windows: [10 * 3600...16 * 3600 - service])
                case 2: return TimedStop(serviceSeconds: service, windows: day == 1 ? [-1 ... -1] : [9 * 3600...13 * 3600])
                default: return TimedStop(serviceSeconds: service, windows: [12 * 3600...12 * 3600, 15 * 3600...15 * 3600])
                }
            }
            return OrienteeringCandidate(score: Double(1 + Int(random.unit() * 9)), cost: Double(Int(random.unit() * 4) * 10), visits: visits)
        }
        return Instance(candidates: candidates, travel: travel, budget: budget)
    }

    /// Whether `order` on `day` keeps every window and ends by the day's end.
    static func feasible(_ order: [Int], day: Int, _ instance: Instance) -> Bool {
        Orienteering.finish(
            order, day: day, candidates: instance.candidates, travel: instance.travel, dayStart: instance.dayStart,
            dayEnd: instance.dayEnd) != nil
    }

    /// Brute force: every assignment of each candidate to no day or one day, each day's set
    /// feasible in some order (all permutations tried), within the budget; the best score.
    static func bruteForce(_ instance: Instance) -> Double {
        let n = instance.candidates.count, days = instance.candidates[0].visits.count
        func permutations(_ items: [Int]) -> [[Int]] {
            guard items.count > 1 else { return [items] }
            return items.indices.flatMap { i -> [[Int]] in
                var rest = items
                let first = rest.remove(at: i)
                return permutations(rest).map { [first] + $0 }
            }
        }
        var memo: [String: Bool] = [:]
        func fits(_ set: [Int], _ day: Int) -> Bool {
            let key = "\(day):\(set)"
            if let known = memo[key] { return known }
            let answer = set.isEmpty || permutations(set).contains { feasible($0, day: day, instance) }
            memo[key] = answer
            return answer
        }
        var best = 0.0
        var assignment = [Int](repeating: 0, count: n)  // 0: not chosen, d + 1: day d
        func walk(_ i: Int) {
            if i == n {
                let chosen = (0..<n).filter { assignment[$0] > 0 }
                let cost = chosen.reduce(0) { $0 + instance.candidates[$1].cost }
                guard cost <= (instance.budget ?? .infinity) else { return }
                let score = chosen.reduce(0) { $0 + instance.candidates[$1].score }
                guard score > best else { return }
                if (0..<days).allSatisfy({ day in fits((0..<n).filter { assignment[$0] == day + 1 }, day) }) { best = score }
                return
            }
            for value in 0...days {
                assignment[i] = value
                walk(i + 1)
            }
        }
        walk(0)
        return best
    }

    static func check(_ plan: OrienteeringPlan, _ instance: Instance) {
        var seen = Set<Int>()
        for (day, schedule) in plan.days.enumerated() {
            #expect(feasible(schedule.order, day: day, instance), "day \(day) breaks a window or the day's end")
            for stop in schedule.order { #expect(seen.insert(stop).inserted, "a candidate is visited twice") }
            // The times it reports are the times of that order.
            let times = Orienteering.finish(
                schedule.order, day: day, candidates: instance.candidates, travel: instance.travel,
                dayStart: instance.dayStart, dayEnd: instance.dayEnd)
            #expect(times?.starts == schedule.starts)
        }
        let cost = seen.reduce(0) { $0 + instance.candidates[$1].cost }
        let score = seen.reduce(0) { $0 + instance.candidates[$1].score }
        #expect(abs(cost - plan.cost) < 1e-9 && abs(score - plan.score) < 1e-9)
        #expect(cost <= (instance.budget ?? .infinity) + 1e-9, "the budget is never exceeded")
        #expect(plan.score <= plan.upperBound + 1e-9)
    }

    @Test(arguments: 0..<12)
    func exactEqualsBruteForce(seed: UInt64) {
        let budget: Double? = seed % 3 == 0 ? nil : Double(20 + seed % 4 * 15)
        let instance = Self.instance(size: 6, days: 2, seed: 1_000 + seed, budget: budget)
        let plan = Orienteering.plan(
            candidates: instance.candidates, travel: instance.travel, dayStart: instance.dayStart,
            dayEnd: instance.dayEnd, budget: instance.budget)
        Self.check(plan, instance)
        #expect(plan.isProvenOptimal)
        #expect(plan.score == Self.bruteForce(instance), "seed \(seed)")
        // The heuristic on the same instance: feasible, within budget, never better than the optimum.
        let heuristic = Orienteering.heuristic(
            instance.candidates, travel: instance.travel, dayStart: instance.dayStart,
            dayEnd: instance.dayEnd, budget: instance.budget)
        Self.check(heuristic, instance)
        #expect(heuristic.score <= plan.score + 1e-9)
        #expect(
            Orienteering.upperBound(
                instance.candidates, travel: instance.travel, dayStart: instance.dayStart,
                dayEnd: instance.dayEnd, budget: instance.budget) >= plan.score - 1e-9, "the bound holds")
    }

    @Test func heuristicOnTwoHundredCandidatesKeepsEveryRule() {
        for (seed, budget) in [(7 as UInt64, nil as Double?), (8, 120)] {
            let instance = Self.instance(size: 200, days: 3, seed: seed, budget: budget)
            let plan = Orienteering.plan(
                candidates: instance.candidates, travel: instance.travel, dayStart: instance.dayStart,
                dayEnd: instance.dayEnd, budget: instance.budget)
            Self.check(plan, instance)
            #expect(!plan.isProvenOptimal && plan.days.count == 3)
            #expect(plan.days.allSatisfy { !$0.order.isEmpty }, "every day has visits")
            #expect(plan.score >= 0.5 * plan.upperBound, "score \(plan.score) against bound \(plan.upperBound)")
        }
    }

    @Test func fewerVisitsThanDaysFillTheFirstDays() {
        // One visit open every day of three goes on the first; two that fit in a day, both there.
        let travel = [[0.0, 600, 600], [600, 0, 600], [600, 600, 0]]
        let open = OrienteeringCandidate(score: 5, cost: 0, visits: Array(repeating: TimedStop(serviceSeconds: 3_600), count: 3))
        let lone = Orienteering.plan(candidates: [open], travel: [[0, 600], [600, 0]], dayStart: 9 * 3600, dayEnd: 18 * 3600, budget: nil)
        #expect(lone.days.map(\.order) == [[0], [], []])
        let pair = Orienteering.plan(candidates: [open, open], travel: travel, dayStart: 9 * 3600, dayEnd: 18 * 3600, budget: nil)
        #expect(pair.days.map { $0.order.sorted() } == [[0, 1], [], []])
    }

    @Test func aClosedDayAndNothingThatFits() {
        // One candidate closed on day 0 goes on day 1; one that takes 10 hours goes nowhere.
        let travel = [[0.0, 600, 600], [600, 0, 600], [600, 600, 0]]
        let closedFirstDay = OrienteeringCandidate(
            score: 5, cost: 0,
            visits: [
                TimedStop(serviceSeconds: 3_600, windows: [-1 ... -1]),
                TimedStop(serviceSeconds: 3_600),
            ])
        let tooLong = OrienteeringCandidate(score: 50, cost: 0, visits: [TimedStop(serviceSeconds: 36_000), TimedStop(serviceSeconds: 36_000)])
        let plan = Orienteering.plan(candidates: [closedFirstDay, tooLong], travel: travel, dayStart: 9 * 3600, dayEnd: 18 * 3600, budget: nil)
        #expect(plan.days.map(\.order) == [[], [0]] && plan.score == 5 && plan.isProvenOptimal)
        let none = Orienteering.plan(candidates: [], travel: [[0]], dayStart: 0, dayEnd: 1, budget: 0)
        #expect(none.days.isEmpty && none.score == 0)
    }
}
