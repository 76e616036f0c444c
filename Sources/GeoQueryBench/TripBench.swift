import Discovery
import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Routing
import Trips

/// The trips rows of `make bench`: meeting times for 20 people × 500 busy periods each over
/// 30 days (the sweep, beside checking every candidate start against every busy period), and
/// ordering a day of 12 stops with time windows (exact, beside insertion on the same day).
enum TripBench {
    static func run(repetitions: Int = 200) {
        print("\ntrips rows (\(repetitions) runs each; p50 / p99)")
        print("| row | p50 | p99 | baseline p50 | note |")
        print("|---|---:|---:|---:|---|")
        var random = SplitMix64(seed: 2027)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }

        // Meeting times.
        let zone = TimeZone(identifier: "Europe/Paris")!
        let from = LocalDate("2027-03-15")!.instant(minute: 0, in: zone)!
        let to = from.addingTimeInterval(30 * 86_400)
        let people = (0..<20).map { "p\($0)" }
        var busy: [String: [BusyInterval]] = [:]
        for person in people {
            busy[person] = (0..<500).map { _ in
                let start = from.addingTimeInterval((unit() * 30 * 1_440).rounded() * 60)
                return BusyInterval(start: start, end: start.addingTimeInterval(Double(15 + Int(unit() * 105)) * 60))
            }
        }
        let windows = DailyHours("09:00-22:00")!.windows(from: from, to: to, in: zone)
        var sweep: [Double] = [], naive: [Double] = []
        var found = 0
        for _ in 0..<repetitions {
            var t0 = now()
            let slots = MeetingTimes.find(members: people, busy: busy, duration: 7_200, windows: windows, limit: 10)
            sweep.append(Double(now() - t0))
            found = slots.first?.free.count ?? 0
            t0 = now()
            _ = naiveMeetingTimes(people: people, busy: busy, duration: 7_200, windows: windows)
            naive.append(Double(now() - t0))
        }
        print(
            "| meeting times, 20 × 500 busy, 30 days | \(micros(percentile(sweep, 0.5))) | \(micros(percentile(sweep, 0.99))) | "
                + "\(micros(percentile(naive, 0.5))) | best slot: \(found) of 20 free; baseline: every candidate × every period |")

        // A day of 12 stops with windows.
        var exact: [Double] = [], insertion: [Double] = []
        var travelExact = 0.0, travelInsertion = 0.0, kept = 0
        for run in 0..<repetitions {
            let (travel, stops) = day(seed: UInt64(run), count: 12)
            var t0 = now()
            let best = TimeWindowScheduler.schedule(travel: travel, stops: stops, dayStart: 9 * 3_600, dayEnd: 21 * 3_600)
            exact.append(Double(now() - t0))
            t0 = now()
            let quick = TimeWindowScheduler.insertion(travel: travel, stops: stops, dayStart: 9 * 3_600, dayEnd: 21 * 3_600)
            insertion.append(Double(now() - t0))
            if best.unplaced.isEmpty && quick.unplaced.isEmpty {
                travelExact += best.travelSeconds
                travelInsertion += quick.travelSeconds
                kept += 1
            }
        }
        print(
            "| day of 12 stops with windows, exact | \(micros(percentile(exact, 0.5))) | \(micros(percentile(exact, 0.99))) | "
                + "\(micros(percentile(insertion, 0.5))) | baseline: insertion; on \(kept) days both fit, insertion travels "
                + String(format: "%.1f %% more", (travelInsertion / max(travelExact, 1) - 1) * 100) + " |")
        suggestedItineraries(repetitions: max(10, repetitions / 4))
    }

    /// A suggested itinerary from 200 candidate places over 3 days with opening hours and a
    /// budget (target ≤ 200 ms), beside the exact search on 12 candidates; the note gives how
    /// close the 200-candidate answers come to their upper bound.
    static func suggestedItineraries(repetitions: Int) {
        var large: [Double] = [], small: [Double] = []
        var gaps: [Double] = []
        for run in 0..<repetitions {
            let places = candidatePlaces(seed: UInt64(run), count: 200)
            let wish = ItineraryWish(
                start: Coordinate(uncheckedLatitude: 38.71, longitude: -9.14), days: 3, startDate: LocalDate("2027-05-03"),
                budget: 120, preferred: [Category(trustedIdentifier: "culture")])
            var t0 = now()
            let plan = ItinerarySuggester.suggest(candidates: places, wish: wish)
            large.append(Double(now() - t0))
            gaps.append(plan.upperBound > 0 ? plan.score / plan.upperBound : 1)
            t0 = now()
            _ = ItinerarySuggester.suggest(candidates: Array(places.prefix(12)), wish: wish)
            small.append(Double(now() - t0))
        }
        print(
            "| suggested itinerary, 200 candidates, 3 days | \(micros(percentile(large, 0.5))) | \(micros(percentile(large, 0.99))) | "
                + "\(micros(percentile(small, 0.5))) | baseline: exact on 12 candidates; heuristic reaches "
                + String(format: "%.0f %% of its upper bound (median)", percentile(gaps, 0.5) * 100) + " |")
    }

    /// Places in a 4 km square in Lisbon: ratings, price levels, a third with hours closed on Mondays.
    static func candidatePlaces(seed: UInt64, count: Int) -> [Place] {
        var random = SplitMix64(seed: seed &+ 4_242)
        let kinds = ["culture.museum", "historic", "food", "landmark", "nature.park", "drink", "religious", "shopping"]
        return (0..<count).map { index in
            let point = Coordinate(uncheckedLatitude: 38.71 + (random.unit() - 0.5) * 0.036, longitude: -9.14 + (random.unit() - 0.5) * 0.046)
            let hours =
                index % 3 == 0
                ? OpeningHours(
                    text: "Tu-Su 10:00-18:00", periods: (2...7).map { .init(openDay: $0, openMinute: 600, closeDay: $0, closeMinute: 1_080) })
                : nil
            return Place(
                id: PlaceID(trustedRawValue: "bench:\(index)"), name: "Place \(index)", coordinate: point,
                categories: [Category(trustedIdentifier: kinds[index % kinds.count])],
                rating: try? Rating(normalizedValue: 3 + random.unit() * 2, count: Int(random.unit() * 4_000), originalScale: 5),
                priceLevel: index % 2 == 0 ? try? PriceLevel(1 + index % 4) : nil, openingHours: hours)
        }
    }

    /// Every candidate start checked against every busy period of every person.
    static func naiveMeetingTimes(
        people: [String], busy: [String: [BusyInterval]], duration: TimeInterval,
        windows: [BusyInterval]
    ) -> Int {
        var starts = windows.map(\.start)
        for list in busy.values { starts += list.map(\.end) }
        var best = 0
        for start in starts {
            let end = start.addingTimeInterval(duration)
            guard windows.contains(where: { $0.start <= start && end <= $0.end }) else { continue }
            let free = people.filter { person in !(busy[person] ?? []).contains { $0.start < end && start < $0.end } }.count
            best = max(best, free)
        }
        return best
    }

    /// Twelve stops around a lodging in a 3 km square, a third with opening windows, two fixed.
    static func day(seed: UInt64, count: Int) -> ([[Double]], [TimedStop]) {
        var random = SplitMix64(seed: seed &+ 77)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        let points = [(1_500.0, 1_500.0)] + (0..<count).map { _ in (unit() * 3_000, unit() * 3_000) } + [(1_500.0, 1_500.0)]
        let travel = points.map { a in
            points.map { b in ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot() * 1.3 / (5_000 / 3_600) }
        }
        let stops = (0..<count).map { index -> TimedStop in
            let service = Double(15 + Int(unit() * 30)) * 60
            switch index % 6 {
            case 0:
                let fixed = (10 + unit() * 8).rounded() * 3_600
                return TimedStop(serviceSeconds: service, windows: [fixed...fixed])
            case 1, 2:
                let open = (9 + unit() * 6) * 3_600
                return TimedStop(serviceSeconds: service, windows: [open...(open + (2 + unit() * 4) * 3_600)])
            default:
                return TimedStop(serviceSeconds: service)
            }
        }
        return (travel, stops)
    }
}
