import Foundation
import GeoCore
import PlaceModel
import Routing
import Trips

/// How full the days should be.
public enum Pace: String, Sendable, CaseIterable {
    case relaxed, normal, packed

    /// Visits take this much longer (or shorter) than a typical visit.
    public var durationFactor: Double {
        switch self {
        case .relaxed: 1.3
        case .normal: 1
        case .packed: 0.8
        }
    }

    /// Minutes of slack after each visit (a coffee, a wrong turn).
    public var bufferMinutes: Int {
        switch self {
        case .relaxed: 20
        case .normal: 10
        case .packed: 0
        }
    }
}

/// What a traveller asks for.
public struct ItineraryWish: Sendable, Hashable {
    /// Where each day starts and ends (a lodging, or the destination's centre).
    public var start: Coordinate
    public var days: Int
    /// The first day's date, which decides the weekday of each day's opening hours; nil when
    /// unknown (hours are then not applied, and the answer says so).
    public var startDate: LocalDate?
    /// Minutes after midnight the days begin and end.
    public var dayStartMinute: Int
    public var dayEndMinute: Int
    /// What the visits may cost in all, in the budget's currency; nil for no limit.
    public var budget: Double?
    public var preferred: [Category]
    public var pace: Pace
    public var mode: DayPlan.Mode

    public init(
        start: Coordinate, days: Int, startDate: LocalDate? = nil, dayStartMinute: Int = 9 * 60, dayEndMinute: Int = 18 * 60,
        budget: Double? = nil, preferred: [Category] = [], pace: Pace = .normal, mode: DayPlan.Mode = .walk
    ) {
        self.start = start
        self.days = days
        self.startDate = startDate
        self.dayStartMinute = dayStartMinute
        self.dayEndMinute = dayEndMinute
        self.budget = budget
        self.preferred = preferred
        self.pace = pace
        self.mode = mode
    }
}

/// One chosen stop and why.
public struct SuggestedStop: Sendable, Hashable {
    public var place: Place
    /// 1 is the first day.
    public var day: Int
    /// Minutes after midnight the visit begins.
    public var startMinute: Int
    public var durationMinutes: Int
    /// Estimated from the price level (see ``ItinerarySuggester/estimatedCost(of:)``); 0 when unknown.
    public var estimatedCost: Double
    public var costKnown: Bool
    public var score: Double
    /// Why it was chosen, in words.
    public var reasons: [String]
}

/// A suggested itinerary: days of ordered stops.
public struct SuggestedItinerary: Sendable, Hashable {
    public var days: [[SuggestedStop]]
    /// Minutes of travel per day (to the first stop, between stops, back to the start).
    public var travelMinutes: [Int]
    public var score: Double
    public var cost: Double
    /// Whether no other choice of stops from the candidates scores more.
    public var isProvenOptimal: Bool
    /// No choice can score more than this.
    public var upperBound: Double
    /// `exact` (all subsets, up to ``Orienteering/exactLimit`` candidates) or `heuristic`.
    public var method: String
    /// How many places were weighed.
    public var candidateCount: Int
}

/// Chooses and orders the stops of a suggested itinerary: scores each candidate place (its
/// rating, how many people rated it, and whether it is of a preferred category), gives each a
/// visit length by category and a cost by price level, and solves the orienteering problem
/// with time windows (``Orienteering``) under each day's hours and the money budget.
public enum ItinerarySuggester {
    /// Typical visit minutes by category (most specific first), before the pace.
    static let visitMinutes: [(String, Int)] = [
        ("culture.museum", 120), ("water.beach", 120), ("nature.park", 60), ("historic.castle", 90),
        ("culture", 90), ("historic", 60), ("landmark", 45), ("nature", 90), ("water", 60), ("activity", 120),
        ("food", 75), ("drink", 60), ("religious", 30), ("shopping", 60),
    ]

    /// The top-level categories worth a visit on an itinerary (not lodging, transport,
    /// services or the city itself).
    public static let visitable: [Category] = [
        "culture", "historic", "landmark", "nature", "water", "activity", "food", "drink",
        "religious", "shopping",
    ].map { Category(trustedIdentifier: $0) }

    /// Minutes a visit takes at `pace`, at least 15.
    public static func visitLength(of place: Place, pace: Pace) -> Int {
        let base =
            place.categories.lazy.compactMap { category in
                visitMinutes.first { category.identifier == $0.0 || category.identifier.hasPrefix($0.0 + ".") }?.1
            }.first ?? 45
        return max(15, Int((Double(base) * pace.durationFactor).rounded()))
    }

    /// What a visit costs one person, estimated from the price level (1–4): a meal or a drink
    /// 10, 25, 50 or 100; anything else (a ticket) 5, 15, 30 or 60, in the budget's currency.
    /// Nil when the place has no price level.
    public static func estimatedCost(of place: Place) -> Double? {
        guard let level = place.priceLevel?.level, (1...4).contains(level) else { return nil }
        let eating = place.categories.contains { $0.topLevel.identifier == "food" || $0.topLevel.identifier == "drink" }
        return (eating ? [10.0, 25, 50, 100] : [5.0, 15, 30, 60])[level - 1]
    }

    /// A place's score, 0–10, and the reasons: 45 % quality (the rating, pulled towards 3.5 by
    /// a prior of 10 ratings so that one 5-star review does not beat a thousand 4.7s; 3 when
    /// unrated), 25 % popularity (how many ratings, on a log scale that saturates at 5 000, plus
    /// `boost`, 0–1, from what the service's users do), 30 % preference (a preferred category
    /// matches; half marks when no preference is given).
    public static func score(_ place: Place, preferred: [Category], boost: Double = 0) -> (score: Double, reasons: [String]) {
        var reasons: [String] = []
        let quality: Double
        if let rating = place.rating {
            let count = Double(rating.count ?? 5)
            quality = (rating.value * count + 3.5 * 10) / (count + 10) / 5
            reasons.append(String(format: "rated %.1f", rating.value) + (rating.count.map { " from \($0) reviews" } ?? ""))
        } else {
            quality = 0.6
        }
        let count = Double(place.rating?.count ?? 0)
        let popularity = min(1, log1p(count) / log1p(5_000) + boost)
        if popularity >= 0.6 { reasons.append("popular") }
        let preference: Double
        if preferred.isEmpty {
            preference = 0.5
        } else if let match = preferred.first(where: { wanted in place.categories.contains { $0.isWithin(wanted) } }) {
            preference = 1
            reasons.append("matches your preference for \(match.identifier)")
        } else {
            preference = 0
        }
        if let first = place.categories.first { reasons.append(first.identifier) }
        let score = 10 * (0.45 * quality + 0.25 * popularity + 0.30 * preference)
        return ((score * 100).rounded() / 100, reasons)
    }

    /// The itinerary from `candidates` (any number; the best `limit` by score are weighed).
    /// `boosts` adds popularity from the service's own counts, by place id.
    public static func suggest(
        candidates: [Place], wish: ItineraryWish, limit: Int = 200,
        boosts: [PlaceID: Double] = [:]
    ) -> SuggestedItinerary {
        let scored = candidates.map { place -> (place: Place, score: Double, reasons: [String]) in
            let (score, reasons) = score(place, preferred: wish.preferred, boost: boosts[place.id] ?? 0)
            return (place, score, reasons)
        }
        .sorted { ($0.score, $1.place.id.rawValue) > ($1.score, $0.place.id.rawValue) }
        .prefix(limit)
        let places = Array(scored)
        let speed = wish.mode.metersPerSecond
        let points = [wish.start] + places.map(\.place.coordinate)
        var travel = [[Double]](repeating: [Double](repeating: 0, count: points.count), count: points.count)
        for i in points.indices {
            for j in points.indices where j > i {
                let seconds = Geodesic.distance(points[i], points[j]) * DayPlan.detour / speed
                travel[i][j] = seconds
                travel[j][i] = seconds
            }
        }
        let weekdays = (0..<wish.days).map { day in DayPlan.isoWeekday(wish.startDate?.adding(days: day)) }
        let lengths = places.map { visitLength(of: $0.place, pace: wish.pace) }
        let costs = places.map { estimatedCost(of: $0.place) }
        let orienteering = places.indices.map { index -> OrienteeringCandidate in
            let service = Double((lengths[index] + wish.pace.bufferMinutes) * 60)
            let visits = weekdays.map { weekday -> TimedStop in
                // Hours are kept for the visit itself; the buffer may run past closing.
                guard
                    let windows = DayPlan.visitWindows(
                        places[index].place.openingHours, weekday: weekday,
                        serviceSeconds: Double(lengths[index] * 60))
                else {
                    return TimedStop(serviceSeconds: service)
                }
                return TimedStop(serviceSeconds: service, windows: windows.isEmpty ? [-1 ... -1] : windows)
            }
            return OrienteeringCandidate(score: places[index].score, cost: costs[index] ?? 0, visits: visits)
        }
        let plan = Orienteering.plan(
            candidates: orienteering, travel: travel, dayStart: Double(wish.dayStartMinute * 60),
            dayEnd: Double(wish.dayEndMinute * 60), budget: wish.budget)
        let days = plan.days.enumerated().map { day, schedule in
            zip(schedule.order, schedule.starts).map { index, start in
                SuggestedStop(
                    place: places[index].place, day: day + 1, startMinute: Int((start / 60).rounded()),
                    durationMinutes: lengths[index], estimatedCost: costs[index] ?? 0, costKnown: costs[index] != nil,
                    score: places[index].score, reasons: places[index].reasons)
            }
        }
        return SuggestedItinerary(
            days: days, travelMinutes: plan.days.map { Int(($0.travelSeconds / 60).rounded()) },
            score: plan.score, cost: plan.cost, isProvenOptimal: plan.isProvenOptimal,
            upperBound: plan.upperBound, method: places.count <= Orienteering.exactLimit ? "exact" : "heuristic",
            candidateCount: places.count)
    }
}
