import Foundation
import GeoCore
import PlaceModel
import Routing
import Testing
import Trips

@testable import Discovery

/// Suggested itineraries on real-looking places: the optimal score on small sets (brute force
/// written here from the opening hours, independently of the solver), budgets never exceeded,
/// opening hours kept.
@Suite struct ItinerarySuggesterTests {
    static let centre = Coordinate(uncheckedLatitude: 38.7100, longitude: -9.1400)

    /// `count` places within about 2 km of the centre, some priced, some with hours (weekday-specific).
    static func places(_ count: Int, seed: UInt64) -> [Place] {
        var random = SplitMix64(seed: seed)
        let kinds = ["culture.museum", "historic", "food", "landmark", "nature.park", "drink", "religious", "shopping"]
        return (0..<count).map { index in
            let point = Coordinate(
                uncheckedLatitude: centre.latitude + (random.unit() - 0.5) * 0.03,
                longitude: centre.longitude + (random.unit() - 0.5) * 0.04)
            let kind = kinds[Int(random.unit() * Double(kinds.count))]
            let rating =
                random.unit() < 0.8 ? try! Rating(normalizedValue: 3 + random.unit() * 2, count: Int(random.unit() * 3_000), originalScale: 5) : nil
            let price = random.unit() < 0.6 ? try! PriceLevel(1 + Int(random.unit() * 4)) : nil
            var hours: OpeningHours?
            switch Int(random.unit() * 3) {
            case 0:  // Tuesday to Sunday, 10:00–17:00 (closed Mondays)
                hours = OpeningHours(
                    text: "Tu-Su 10:00-17:00", periods: (2...7).map { .init(openDay: $0, openMinute: 600, closeDay: $0, closeMinute: 1_020) })
            case 1:  // every day, 12:00–15:00 and 19:00–23:00
                hours = OpeningHours(
                    text: "12:00-15:00,19:00-23:00",
                    periods: (1...7).flatMap {
                        [
                            OpeningHours.Period(openDay: $0, openMinute: 720, closeDay: $0, closeMinute: 900),
                            .init(openDay: $0, openMinute: 1_140, closeDay: $0, closeMinute: 1_380),
                        ]
                    })
            default: hours = nil
            }
            return Place(
                id: PlaceID(trustedRawValue: "osm-test:n\(index)"), name: "Place \(index)", coordinate: point,
                categories: [Category(trustedIdentifier: kind)], rating: rating, priceLevel: price, openingHours: hours)
        }
    }

    /// Monday 2027-05-03 and the next day.
    static let wish = ItineraryWish(
        start: centre, days: 2, startDate: LocalDate("2027-05-03"), dayStartMinute: 9 * 60,
        dayEndMinute: 18 * 60, budget: 40, preferred: [Category(trustedIdentifier: "culture")],
        pace: .normal, mode: .walk)

    static func travelSeconds(_ a: Coordinate, _ b: Coordinate, _ wish: ItineraryWish) -> Double {
        Geodesic.distance(a, b) * DayPlan.detour / wish.mode.metersPerSecond
    }

    /// Whether visiting `places` in this order on day `day` (0-based) keeps every place's hours
    /// (the visit itself inside one opening period of that weekday) and ends back at the start by
    /// the day's end; waiting for an opening is allowed. Each visit also takes the pace's buffer.
    static func keepsHours(_ places: [Place], day: Int, _ wish: ItineraryWish) -> Bool {
        let weekday = DayPlan.isoWeekday(wish.startDate!.adding(days: day))!
        var time = Double(wish.dayStartMinute * 60), here = wish.start
        for place in places {
            let visit = Double(ItinerarySuggester.visitLength(of: place, pace: wish.pace) * 60)
            var begin = time + travelSeconds(here, place.coordinate, wish)
            if let periods = place.openingHours?.periods {
                let today = periods.filter { $0.openDay == weekday }.sorted { $0.openMinute < $1.openMinute }
                guard
                    let period = today.first(where: {
                        begin + visit <= Double($0.closeMinute * 60) && Double($0.openMinute * 60) + visit <= Double($0.closeMinute * 60)
                    })
                else { return false }
                begin = max(begin, Double(period.openMinute * 60))
            }
            time = begin + visit + Double(wish.pace.bufferMinutes * 60)
            here = place.coordinate
        }
        return time + travelSeconds(here, wish.start, wish) <= Double(wish.dayEndMinute * 60)
    }

    static func permutations(_ items: [Place]) -> [[Place]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { i -> [[Place]] in
            var rest = items
            let first = rest.remove(at: i)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// The best total score over every assignment of places to days (or to none) that fits.
    static func bruteForce(_ places: [Place], _ wish: ItineraryWish) -> Double {
        let scores = places.map { ItinerarySuggester.score($0, preferred: wish.preferred).score }
        let costs = places.map { ItinerarySuggester.estimatedCost(of: $0) ?? 0 }
        var best = 0.0
        var assignment = [Int](repeating: 0, count: places.count)
        func walk(_ i: Int) {
            if i == places.count {
                let chosen = places.indices.filter { assignment[$0] > 0 }
                guard chosen.reduce(0, { $0 + costs[$1] }) <= wish.budget ?? .infinity else { return }
                let score = chosen.reduce(0) { $0 + scores[$1] }
                guard score > best + 1e-9 else { return }
                let fits = (0..<wish.days).allSatisfy { day in
                    let today = places.indices.filter { assignment[$0] == day + 1 }.map { places[$0] }
                    return today.isEmpty || permutations(today).contains { keepsHours($0, day: day, wish) }
                }
                if fits { best = score }
                return
            }
            for value in 0...wish.days {
                assignment[i] = value
                walk(i + 1)
            }
        }
        walk(0)
        return best
    }

    static func check(_ itinerary: SuggestedItinerary, _ wish: ItineraryWish) {
        #expect(itinerary.days.count == wish.days)
        for (day, stops) in itinerary.days.enumerated() {
            #expect(keepsHours(stops.map(\.place), day: day, wish), "day \(day + 1) breaks opening hours or the day's end")
            #expect(stops.allSatisfy { $0.day == day + 1 })
            #expect(stops.map(\.startMinute) == stops.map(\.startMinute).sorted())
        }
        let cost = itinerary.days.joined().reduce(0) { $0 + $1.estimatedCost }
        #expect(cost <= (wish.budget ?? .infinity) + 1e-9 && abs(cost - itinerary.cost) < 1e-9, "the budget is never exceeded")
        #expect(Set(itinerary.days.joined().map(\.place.id)).count == itinerary.days.joined().count, "no place twice")
    }

    @Test(arguments: [11, 12, 13, 14, 15] as [UInt64])
    func smallSetsAreOptimal(seed: UInt64) {
        let places = Self.places(7, seed: seed)
        let itinerary = ItinerarySuggester.suggest(candidates: places, wish: Self.wish)
        Self.check(itinerary, Self.wish)
        #expect(itinerary.method == "exact" && itinerary.isProvenOptimal)
        #expect(abs(itinerary.score - Self.bruteForce(places, Self.wish)) < 1e-9, "seed \(seed)")
    }

    @Test func twoHundredCandidatesKeepEveryRule() {
        var wish = Self.wish
        wish.days = 3
        wish.budget = 60
        let itinerary = ItinerarySuggester.suggest(candidates: Self.places(260, seed: 5), wish: wish)
        Self.check(itinerary, wish)
        #expect(itinerary.candidateCount == 200 && itinerary.method == "heuristic")
        #expect(itinerary.days.allSatisfy { !$0.isEmpty } && itinerary.score <= itinerary.upperBound + 1e-9)
        // The museum closed on Mondays is never on day 1 (Monday 3 May 2027).
        let mondays = itinerary.days[0].filter { $0.place.openingHours?.text == "Tu-Su 10:00-17:00" }
        #expect(mondays.isEmpty)
    }

    @Test func scoresReadAsReasons() {
        let museum = Place(
            id: PlaceID(trustedRawValue: "osm-test:m"), name: "Museu", coordinate: Self.centre,
            categories: [Category(trustedIdentifier: "culture.museum")],
            rating: try! Rating(normalizedValue: 4.7, count: 2_000, originalScale: 5), priceLevel: try! PriceLevel(2))
        let (score, reasons) = ItinerarySuggester.score(museum, preferred: [Category(trustedIdentifier: "culture")])
        #expect(score > 8 && reasons.contains("rated 4.7 from 2000 reviews") && reasons.contains("matches your preference for culture"))
        #expect(ItinerarySuggester.estimatedCost(of: museum) == 15 && ItinerarySuggester.visitLength(of: museum, pace: .relaxed) == 156)
        let unrated = Place(id: PlaceID(trustedRawValue: "osm-test:u"), name: "Bench", coordinate: Self.centre, categories: [.water])
        #expect(ItinerarySuggester.score(unrated, preferred: [Category(trustedIdentifier: "culture")]).score < score)
    }
}
