extension Orienteering {
    /// The working state of the heuristic: each day's route and what is chosen.
    struct Routes {
        var days: [[Int]]
        var chosen: [Bool]
        var score = 0.0
        var cost = 0.0
    }

    /// Times of `route` on `day`, nil when it breaks a window or the day's end.
    static func finish(
        _ route: [Int], day: Int, candidates: [OrienteeringCandidate], travel: [[Double]], dayStart: Double,
        dayEnd: Double
    ) -> (finish: Double, travel: Double, starts: [Double])? {
        var time = dayStart, node = 0, travelled = 0.0
        var starts: [Double] = []
        starts.reserveCapacity(route.count)
        for stop in route {
            let visit = candidates[stop].visits[day]
            travelled += travel[node][stop + 1]
            guard let begin = visit.earliestStart(arriving: time + travel[node][stop + 1]) else { return nil }
            starts.append(begin)
            time = begin + visit.serviceSeconds
            node = stop + 1
        }
        travelled += travel[node][0]
        time += travel[node][0]
        return time <= dayEnd ? (time, travelled, starts) : nil
    }

    /// The best place to insert `candidate` into `route` on `day`: the position and the time it
    /// adds (travel and visit, as the day's finish moves), nil when it fits nowhere.
    static func bestInsertion(
        of candidate: Int, into route: [Int], day: Int, candidates: [OrienteeringCandidate],
        travel: [[Double]], dayStart: Double, dayEnd: Double, currentFinish: Double
    ) -> (position: Int, added: Double)? {
        let visit = candidates[candidate].visits[day]
        var best: (Int, Double)?
        // Prefix: when each visit of the route ends, walking the route once.
        var time = dayStart, node = 0
        for position in 0...route.count {
            // Try `candidate` here, then the rest of the route from its new times.
            if let begin = visit.earliestStart(arriving: time + travel[node][candidate + 1]) {
                var t = begin + visit.serviceSeconds, n = candidate + 1
                var feasible = true
                for stop in route[position...] {
                    guard let b = candidates[stop].visits[day].earliestStart(arriving: t + travel[n][stop + 1]) else {
                        feasible = false
                        break
                    }
                    t = b + candidates[stop].visits[day].serviceSeconds
                    n = stop + 1
                }
                if feasible {
                    t += travel[n][0]
                    if t <= dayEnd {
                        let added = t - currentFinish
                        if best == nil || added < best!.1 { best = (position, added) }
                    }
                }
            }
            guard position < route.count else { break }
            let stop = route[position]
            guard let begin = candidates[stop].visits[day].earliestStart(arriving: time + travel[node][stop + 1]) else { break }
            time = begin + candidates[stop].visits[day].serviceSeconds
            node = stop + 1
        }
        return best
    }

    static func heuristic(
        _ candidates: [OrienteeringCandidate], travel: [[Double]], dayStart: Double, dayEnd: Double,
        budget: Double?
    ) -> OrienteeringPlan {
        let n = candidates.count, dayCount = candidates[0].visits.count
        let dayLength = max(1, dayEnd - dayStart)
        var routes = Routes(days: [[Int]](repeating: [], count: dayCount), chosen: [Bool](repeating: false, count: n))
        let limit = budget ?? .infinity

        /// Greedy insertion until nothing more fits: best score per share of the day and of the budget.
        func insertAll() {
            while true {
                var finishes = routes.days.indices.map { day in
                    finish(routes.days[day], day: day, candidates: candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd)?.finish ?? dayStart
                }
                var best: (candidate: Int, day: Int, position: Int, value: Double)?
                for candidate in 0..<n where !routes.chosen[candidate] && routes.cost + candidates[candidate].cost <= limit + 1e-9 {
                    let spend = budget.map { $0 > 0 ? candidates[candidate].cost / $0 : 0 } ?? 0
                    for day in 0..<dayCount {
                        guard
                            let (position, added) = bestInsertion(
                                of: candidate, into: routes.days[day], day: day, candidates: candidates,
                                travel: travel, dayStart: dayStart, dayEnd: dayEnd,
                                currentFinish: finishes[day])
                        else { continue }
                        let value = candidates[candidate].score / (max(added, 60) / dayLength + spend)
                        if best == nil || value > best!.value { best = (candidate, day, position, value) }
                    }
                }
                guard let best else { return }
                routes.days[best.day].insert(best.candidate, at: best.position)
                routes.chosen[best.candidate] = true
                routes.score += candidates[best.candidate].score
                routes.cost += candidates[best.candidate].cost
                finishes[best.day] =
                    finish(
                        routes.days[best.day], day: best.day, candidates: candidates, travel: travel,
                        dayStart: dayStart, dayEnd: dayEnd)?.finish ?? dayStart
            }
        }

        /// Each day in its least-travel order (frees time for more visits).
        func reorder() {
            for day in 0..<dayCount where routes.days[day].count > 2 {
                let ordered = schedule(routes.days[day], day: day, candidates: candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd)
                if ordered.unplaced.isEmpty { routes.days[day] = ordered.order }
            }
        }

        /// One improving swap of a visit for a better unchosen one (on any day), if there is one.
        func swapOnce(byScore order: [Int]) -> Bool {
            for day in 0..<dayCount {
                for (position, out) in routes.days[day].enumerated() {
                    var without = routes.days[day]
                    without.remove(at: position)
                    guard let base = finish(without, day: day, candidates: candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd) else {
                        continue
                    }
                    for candidate in order where !routes.chosen[candidate] {
                        guard candidates[candidate].score > candidates[out].score + 1e-12 else { break }
                        guard routes.cost - candidates[out].cost + candidates[candidate].cost <= limit + 1e-9 else { continue }
                        guard
                            let (at, _) = bestInsertion(
                                of: candidate, into: without, day: day, candidates: candidates, travel: travel,
                                dayStart: dayStart, dayEnd: dayEnd, currentFinish: base.finish)
                        else { continue }
                        without.insert(candidate, at: at)
                        routes.days[day] = without
                        routes.chosen[out] = false
                        routes.chosen[candidate] = true
                        routes.score += candidates[candidate].score - candidates[out].score
                        routes.cost += candidates[candidate].cost - candidates[out].cost
                        return true
                    }
                }
            }
            return false
        }

        insertAll()
        let byScore = (0..<n).sorted { candidates[$0].score > candidates[$1].score }
        var rounds = 0
        while rounds < 4 * n {
            rounds += 1
            let before = routes.score
            reorder()
            insertAll()
            if routes.score > before + 1e-12 { continue }
            if !swapOnce(byScore: byScore) { break }
        }
        let schedules = (0..<dayCount).map { day -> DaySchedule in
            let ordered = schedule(routes.days[day], day: day, candidates: candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd)
            if ordered.unplaced.isEmpty { return ordered }
            let times = finish(routes.days[day], day: day, candidates: candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd)!
            return DaySchedule(
                order: routes.days[day], starts: times.starts, travelSeconds: times.travel, finish: times.finish,
                unplaced: [], isProvenOptimal: false)
        }
        return OrienteeringPlan(
            days: schedules, score: routes.score, cost: routes.cost, isProvenOptimal: false,
            upperBound: upperBound(candidates, travel: travel, dayStart: dayStart, dayEnd: dayEnd, budget: budget))
    }

    /// A bound no plan beats: the better of two fractional knapsacks over the candidates that fit
    /// a day alone — one over the trip's time (a visit weighs its shortest duration plus the least
    /// travel into it from anywhere, which every route pays), one over the budget.
    public static func upperBound(
        _ candidates: [OrienteeringCandidate], travel: [[Double]], dayStart: Double, dayEnd: Double,
        budget: Double?
    ) -> Double {
        let n = candidates.count
        guard n > 0 else { return 0 }
        let days = candidates[0].visits.count
        var items: [(score: Double, time: Double, cost: Double)] = []
        for i in 0..<n {
            let fitsSomeDay = (0..<days).contains { day in
                let visit = candidates[i].visits[day]
                guard let begin = visit.earliestStart(arriving: dayStart + travel[0][i + 1]) else { return false }
                return begin + visit.serviceSeconds + travel[i + 1][0] <= dayEnd
            }
            guard fitsSomeDay else { continue }
            var into = travel[0][i + 1]
            for j in 0..<n where j != i { into = min(into, travel[j + 1][i + 1]) }
            let service = candidates[i].visits.map(\.serviceSeconds).min() ?? 0
            items.append((candidates[i].score, service + into, candidates[i].cost))
        }
        func knapsack(capacity: Double, weight: ((score: Double, time: Double, cost: Double)) -> Double) -> Double {
            // Weightless items go in whole; the rest by score per unit of weight.
            var total = items.filter { weight($0) <= 0 }.reduce(0) { $0 + $1.score }, left = capacity
            for item in items.filter({ weight($0) > 0 }).sorted(by: { $0.score / weight($0) > $1.score / weight($1) }) {
                let w = weight(item)
                if w <= left {
                    total += item.score
                    left -= w
                } else {
                    total += item.score * max(0, left) / w
                    break
                }
            }
            return total
        }
        var bound = knapsack(capacity: Double(days) * max(0, dayEnd - dayStart)) { $0.time }
        if let budget { bound = min(bound, knapsack(capacity: budget) { $0.cost }) }
        return bound
    }
}
