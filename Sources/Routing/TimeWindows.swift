/// A stop of a day with a time window: when it may be visited and for how long.
///
/// Times are seconds from the day's local midnight.
public struct TimedStop: Sendable, Hashable {
    /// How long the visit takes.
    public var serviceSeconds: Double
    /// When a visit may begin: within one of these (sorted, non-overlapping). Empty: any time.
    /// A fixed time is a window of one instant.
    public var windows: [ClosedRange<Double>]

    public init(serviceSeconds: Double, windows: [ClosedRange<Double>] = []) {
        self.serviceSeconds = serviceSeconds
        self.windows = windows.sorted { $0.lowerBound < $1.lowerBound }
    }

    /// The earliest time at or after `arrival` a visit may begin, nil when every window has closed.
    func earliestStart(arriving arrival: Double) -> Double? {
        guard !windows.isEmpty else { return arrival }
        for window in windows where arrival <= window.upperBound { return max(arrival, window.lowerBound) }
        return nil
    }
}

/// A day's visiting order with its times.
public struct DaySchedule: Sendable, Hashable {
    /// Stop indexes in visiting order (those that fit).
    public var order: [Int]
    /// When each visit in ``order`` begins.
    public var starts: [Double]
    /// Travel time of the whole day: from the start, through every stop, to the end.
    public var travelSeconds: Double
    /// When the day ends at the end point.
    public var finish: Double
    /// Stops that cannot fit, each with why.
    public var unplaced: [(stop: Int, reason: TimeWindowScheduler.Reason)]
    /// Whether no order with every fitting stop travels less (exact search).
    public var isProvenOptimal: Bool

    public static func == (lhs: DaySchedule, rhs: DaySchedule) -> Bool {
        lhs.order == rhs.order && lhs.starts == rhs.starts && lhs.travelSeconds == rhs.travelSeconds
            && lhs.finish == rhs.finish && lhs.unplaced.map(\.stop) == rhs.unplaced.map(\.stop)
            && lhs.isProvenOptimal == rhs.isProvenOptimal
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(order) }
}

/// Orders a day's stops between a start and an end (a lodging and the same or the next one)
/// so that each visit begins inside its time window and the day ends by its end, with the
/// least travel (ties: the earliest finish).
///
/// Exact up to ``exactLimit`` stops: dynamic programming over subsets, each state keeping the
/// labels (travel, time) no other label beats in both; waiting for a window to open is
/// allowed. When not every stop fits, the largest set that does is scheduled and the rest are
/// named with a reason. Beyond the limit: insertion, stops taken by the closing of their
/// windows, each put where it adds the least travel and keeps every window (not proven).
public enum TimeWindowScheduler {
    /// Largest day solved exactly.
    public static let exactLimit = 13

    /// Why a stop is left out.
    public enum Reason: Sendable, Hashable {
        /// Even visited alone, straight from the start and back to the end, it does not fit.
        case unreachableAlone
        /// It fits alone but not in any order with the stops that were kept.
        case conflictsWithOthers
    }

    /// - Parameters:
    ///   - travel: seconds from node to node; node 0 is the start, nodes `1...n` the stops,
    ///     node `n + 1` the end. A start that is also the end still has two nodes.
    ///   - dayStart: when the day may begin at the start point; `dayEnd`: when it must end at the end point.
    public static func schedule(travel: [[Double]], stops: [TimedStop], dayStart: Double, dayEnd: Double) -> DaySchedule {
        let n = stops.count
        precondition(travel.count == n + 2 && travel.allSatisfy { $0.count == n + 2 }, "travel must be (n + 2) × (n + 2)")
        if n <= exactLimit { return exact(travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd) }
        return insertion(travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd)
    }

    /// Whether stop `i` alone fits the day.
    static func fitsAlone(_ i: Int, travel: [[Double]], stops: [TimedStop], dayStart: Double, dayEnd: Double) -> Bool {
        guard let start = stops[i].earliestStart(arriving: dayStart + travel[0][i + 1]) else { return false }
        return start + stops[i].serviceSeconds + travel[i + 1][stops.count + 1] <= dayEnd
    }

    struct Label {
        var travel: Double
        /// When the last stop's visit ends.
        var time: Double
        /// Index of the label this one extends (in `labels`), -1 at the start.
        var parent: Int32
        var stop: Int32
        var begin: Double
    }

    static func exact(travel: [[Double]], stops: [TimedStop], dayStart: Double, dayEnd: Double) -> DaySchedule {
        let n = stops.count
        let end = n + 1
        // When insertion fits every stop, its travel bounds the optimum (which also keeps every
        // stop): a label that must travel more to finish is dropped. With distances that obey
        // the triangle inequality, finishing costs at least the way straight back to the end (a
        // tighter bound through the furthest unvisited stop pruned little and cost more).
        let heuristic = insertion(travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd)
        let bound = heuristic.unplaced.isEmpty ? heuristic.travelSeconds * (1 + 1e-12) + 1e-9 : .infinity
        var labels: [Label] = []
        // Per (subset, last stop): indexes into `labels`, a Pareto front on (travel, time).
        var fronts = [[Int32]](repeating: [], count: (1 << n) * max(n, 1))
        func slot(_ subset: Int, _ last: Int) -> Int { subset * n + last }
        func insert(_ label: Label, subset: Int, last: Int) {
            let key = slot(subset, last)
            // In place: a copy of the front per insertion would dominate the run time.
            for index in fronts[key] {
                let other = labels[Int(index)]
                if other.travel <= label.travel && other.time <= label.time { return }
            }
            fronts[key].removeAll { labels[Int($0)].travel >= label.travel && labels[Int($0)].time >= label.time }
            labels.append(label)
            fronts[key].append(Int32(labels.count - 1))
        }
        for i in 0..<n {
            guard let begin = stops[i].earliestStart(arriving: dayStart + travel[0][i + 1]) else { continue }
            insert(
                Label(travel: travel[0][i + 1], time: begin + stops[i].serviceSeconds, parent: -1, stop: Int32(i), begin: begin),
                subset: 1 << i, last: i)
        }
        // Subsets in increasing order: every extension goes to a larger number.
        var best: (size: Int, travel: Double, finish: Double, label: Int32)?
        for subset in 1..<(1 << n) {
            for last in 0..<n where subset & (1 << last) != 0 {
                for index in fronts[slot(subset, last)] {
                    let label = labels[Int(index)]
                    // Ends the day here?
                    let finish = label.time + travel[last + 1][end]
                    if finish <= dayEnd {
                        let size = subset.nonzeroBitCount
                        if best == nil || size > best!.size
                            || (size == best!.size && (label.travel + travel[last + 1][end], finish) < (best!.travel, best!.finish))
                        {
                            best = (size, label.travel + travel[last + 1][end], finish, index)
                        }
                    }
                    for next in 0..<n where subset & (1 << next) == 0 {
                        let arrival = label.time + travel[last + 1][next + 1]
                        guard let begin = stops[next].earliestStart(arriving: arrival) else { continue }
                        let done = begin + stops[next].serviceSeconds
                        // A label that cannot get back to the end in time is dead; so is one
                        // that cannot match the heuristic's travel.
                        guard done + travel[next + 1][end] <= dayEnd else { continue }
                        let travelled = label.travel + travel[last + 1][next + 1]
                        guard travelled + travel[next + 1][end] <= bound else { continue }
                        insert(
                            Label(
                                travel: label.travel + travel[last + 1][next + 1], time: done, parent: index,
                                stop: Int32(next), begin: begin), subset: subset | (1 << next), last: next)
                    }
                }
            }
        }
        var order: [Int] = [], starts: [Double] = []
        var cursor = best?.label ?? -1
        while cursor >= 0 {
            let label = labels[Int(cursor)]
            order.append(Int(label.stop))
            starts.append(label.begin)
            cursor = label.parent
        }
        order.reverse()
        starts.reverse()
        let kept = Set(order)
        let unplaced = (0..<n).filter { !kept.contains($0) }.map { stop in
            (
                stop,
                fitsAlone(stop, travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd)
                    ? Reason.conflictsWithOthers : Reason.unreachableAlone
            )
        }
        let travelled = best?.travel ?? travel[0][end]
        return DaySchedule(
            order: order, starts: starts, travelSeconds: travelled, finish: best?.finish ?? dayStart + travel[0][end],
            unplaced: unplaced, isProvenOptimal: true)
    }

    /// Times of a route through `order`, nil when a window or the day's end is missed.
    static func timing(
        _ order: [Int], travel: [[Double]], stops: [TimedStop], dayStart: Double, dayEnd: Double
    )
        -> (starts: [Double], travel: Double, finish: Double)?
    {
        var time = dayStart, node = 0, travelled = 0.0
        var starts: [Double] = []
        for stop in order {
            travelled += travel[node][stop + 1]
            guard let begin = stops[stop].earliestStart(arriving: time + travel[node][stop + 1]) else { return nil }
            starts.append(begin)
            time = begin + stops[stop].serviceSeconds
            node = stop + 1
        }
        travelled += travel[node][stops.count + 1]
        let finish = time + travel[node][stops.count + 1]
        return finish <= dayEnd ? (starts, travelled, finish) : nil
    }

    /// The heuristic alone, whatever the number of stops (the bench compares it with the exact search).
    public static func insertion(travel: [[Double]], stops: [TimedStop], dayStart: Double, dayEnd: Double) -> DaySchedule {
        let n = stops.count
        // Tightest first: the stops whose windows close earliest.
        let byClosing = (0..<n).sorted {
            (stops[$0].windows.last?.upperBound ?? .infinity, $0) < (stops[$1].windows.last?.upperBound ?? .infinity, $1)
        }
        var order: [Int] = []
        var unplaced: [(Int, Reason)] = []
        for stop in byClosing {
            var bestOrder: [Int]?
            var bestCost = Double.infinity
            for position in 0...order.count {
                var candidate = order
                candidate.insert(stop, at: position)
                if let timed = timing(candidate, travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd),
                    (timed.travel, timed.finish) < (bestCost, .infinity)
                {
                    bestCost = timed.travel
                    bestOrder = candidate
                }
            }
            if let bestOrder {
                order = bestOrder
            } else {
                unplaced.append(
                    (
                        stop,
                        fitsAlone(stop, travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd)
                            ? .conflictsWithOthers : .unreachableAlone
                    ))
            }
        }
        // Or-opt repair: move single stops while that shortens the day and keeps every window.
        var improved = true
        while improved {
            improved = false
            let current = timing(order, travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd)?.travel ?? .infinity
            search: for from in order.indices {
                for to in order.indices where to != from {
                    var candidate = order
                    let stop = candidate.remove(at: from)
                    candidate.insert(stop, at: to)
                    if let timed = timing(candidate, travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd),
                        timed.travel < current - 1e-9
                    {
                        order = candidate
                        improved = true
                        break search
                    }
                }
            }
        }
        let timed = timing(order, travel: travel, stops: stops, dayStart: dayStart, dayEnd: dayEnd)
        return DaySchedule(
            order: order, starts: timed?.starts ?? [], travelSeconds: timed?.travel ?? 0, finish: timed?.finish ?? dayStart,
            unplaced: unplaced.sorted { $0.0 < $1.0 }.map { (stop: $0.0, reason: $0.1) }, isProvenOptimal: false)
    }
}
