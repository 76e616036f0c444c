import Foundation
import GeoCore
import Testing

@testable import Routing

/// Time-window day ordering against brute force (every subset and order) for up to 8 stops.
@Suite struct DayScheduleTests {
    struct Instance {
        var travel: [[Double]]
        var stops: [TimedStop]
        var dayStart: Double
        var dayEnd: Double
    }

    static func instance(seed: Int, stops n: Int) -> Instance {
        var random = SplitMix64(seed: UInt64(seed) &* 7919 &+ 13)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        // Points in a 6 km square; travel at 15 km/h; the lodging is node 0 and n + 1.
        var points = (0..<n).map { _ in (unit() * 6_000, unit() * 6_000) }
        let lodging = (3_000.0, 3_000.0)
        points = [lodging] + points + [lodging]
        let travel = points.map { a in points.map { b in ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot() / (15_000 / 3_600) } }
        let stops = (0..<n).map { _ -> TimedStop in
            let service = Double(20 + Int(unit() * 70)) * 60
            switch Int(unit() * 4) {
            case 0: return TimedStop(serviceSeconds: service)
            case 1:
                let fixed = (9 + unit() * 9) * 3_600
                return TimedStop(serviceSeconds: service, windows: [fixed...fixed])
            default:
                let open = (8 + unit() * 8) * 3_600
                let close = open + (1 + unit() * 5) * 3_600
                return TimedStop(serviceSeconds: service, windows: unit() < 0.3 ? [open...close, (close + 3_600)...(close + 7_200)] : [open...close])
            }
        }
        return Instance(travel: travel, stops: stops, dayStart: 8.5 * 3_600, dayEnd: (18 + unit() * 5) * 3_600)
    }

    /// Every subset in every order: the most stops, then the least travel.
    static func bruteForce(_ instance: Instance) -> (size: Int, travel: Double) {
        let n = instance.stops.count
        var best = (size: 0, travel: instance.travel[0][n + 1])
        func permute(_ prefix: [Int], _ rest: Set<Int>) {
            if let timed = TimeWindowScheduler.timing(
                prefix, travel: instance.travel, stops: instance.stops,
                dayStart: instance.dayStart, dayEnd: instance.dayEnd)
            {
                if prefix.count > best.size || (prefix.count == best.size && timed.travel < best.travel - 1e-9) {
                    best = (prefix.count, timed.travel)
                }
            } else if !prefix.isEmpty {
                // A prefix that misses a window or the end: only its extensions through the end
                // could still... no, arriving later never helps, so prune.
                if TimeWindowScheduler.timing(
                    prefix, travel: instance.travel, stops: instance.stops,
                    dayStart: instance.dayStart, dayEnd: .infinity) == nil
                {
                    return
                }
            }
            for next in rest { permute(prefix + [next], rest.subtracting([next])) }
        }
        permute([], Set(0..<n))
        return best
    }

    @Test(arguments: 0..<60)
    func exactAgreesWithBruteForce(seed: Int) {
        let instance = Self.instance(seed: seed, stops: 1 + seed % 8)
        let schedule = TimeWindowScheduler.schedule(
            travel: instance.travel, stops: instance.stops,
            dayStart: instance.dayStart, dayEnd: instance.dayEnd)
        let brute = Self.bruteForce(instance)
        #expect(schedule.order.count == brute.size, "seed \(seed): kept \(schedule.order.count), brute force \(brute.size)")
        #expect(abs(schedule.travelSeconds - brute.travel) < 1e-6, "seed \(seed): travel \(schedule.travelSeconds) vs \(brute.travel)")
        #expect(schedule.isProvenOptimal)
        // The times are real: each visit begins in a window, after the travel to it.
        let timed = TimeWindowScheduler.timing(
            schedule.order, travel: instance.travel, stops: instance.stops,
            dayStart: instance.dayStart, dayEnd: instance.dayEnd)
        #expect(timed?.starts == schedule.starts)
        #expect(Set(schedule.order + schedule.unplaced.map(\.stop)) == Set(0..<instance.stops.count))
    }

    @Test func aStopThatCannotFitIsNamedWithItsReason() {
        // The lodging and two stops 15 minutes apart; one opens after the day ends.
        let travel = [[0, 900, 900, 0], [900, 0, 900, 900], [900, 900, 0, 900], [0, 900, 900, 0.0]]
        let stops = [
            TimedStop(serviceSeconds: 3_600, windows: [(10 * 3_600)...(12 * 3_600)]),
            TimedStop(serviceSeconds: 3_600, windows: [(21 * 3_600)...(22 * 3_600)]),
        ]
        let schedule = TimeWindowScheduler.schedule(travel: travel, stops: stops, dayStart: 9 * 3_600, dayEnd: 20 * 3_600)
        #expect(schedule.order == [0] && schedule.starts == [10 * 3_600])
        #expect(schedule.unplaced.map(\.stop) == [1] && schedule.unplaced.first?.reason == .unreachableAlone)
    }

    @Test func largeDaysUseInsertionAndKeepEveryWindow() {
        for seed in 0..<10 {
            let instance = Self.instance(seed: seed, stops: 20)
            let schedule = TimeWindowScheduler.schedule(
                travel: instance.travel, stops: instance.stops,
                dayStart: instance.dayStart, dayEnd: instance.dayEnd)
            #expect(!schedule.isProvenOptimal)
            let timed = TimeWindowScheduler.timing(
                schedule.order, travel: instance.travel, stops: instance.stops,
                dayStart: instance.dayStart, dayEnd: instance.dayEnd)
            #expect(timed != nil && timed?.starts == schedule.starts, "seed \(seed)")
            #expect(Set(schedule.order + schedule.unplaced.map(\.stop)) == Set(0..<20))
        }
    }
}
