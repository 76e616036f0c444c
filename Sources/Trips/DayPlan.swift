import Foundation
import GeoCore
import PlaceModel
import Routing

/// The order of one itinerary day: from the night's lodging through the day's stops and back
/// (or on to the next night's lodging), each stop begun inside its opening hours or at its
/// fixed time, with the least travel (`Routing.TimeWindowScheduler`).
public enum DayPlan {
    /// How travellers get between stops, and how fast (straight-line distance × ``detour``).
    public enum Mode: String, Sendable, CaseIterable {
        case walk, bike, car

        public var metersPerSecond: Double {
            switch self {
            case .walk: 5_000 / 3_600.0
            case .bike: 15_000 / 3_600.0
            case .car: 30_000 / 3_600.0
            }
        }
    }

    /// Streets are not straight: travel is the ellipsoidal distance times this.
    public static let detour = 1.3

    /// A stop that cannot fit the day, and why, in words.
    public struct Unplaced: Sendable, Hashable {
        public var stop: ItineraryStop
        public var reason: String
    }

    public struct Result: Sendable, Hashable {
        /// The day's stops in visiting order (those that fit).
        public var order: [ItineraryStop]
        /// When each visit of ``order`` begins, minutes after the day's local midnight.
        public var startMinutes: [Int]
        public var travelMinutes: Int
        public var unplaced: [Unplaced]
        public var isProvenOptimal: Bool
        public var startLodging: Lodging?
        public var endLodging: Lodging?
    }

    /// Why a day cannot be planned at all.
    public enum PlanError: Error, Sendable, Equatable, CustomStringConvertible {
        case dayOutOfRange(day: Int, days: Int)
        case noStops(day: Int)
        case stopWithoutPoint(String)

        public var description: String {
            switch self {
            case .dayOutOfRange(let day, let days): "day \(day) is not in the itinerary: it has days 1 to \(days)"
            case .noStops(let day): "day \(day) has no stops to order"
            case .stopWithoutPoint(let id): "stop \(id) has no coordinates: give its location a lat and lon"
            }
        }
    }

    /// The lodging of the night that begins on the itinerary's day `night + 1` (night 0 is the first day's).
    public static func lodging(_ document: ItineraryDocument, night: Int) -> Lodging? {
        guard night >= 0, let start = LocalDate(document.startDate) else { return nil }
        let date = start.adding(days: night)
        return document.lodging.first { stay in
            guard let checkIn = LocalDate(stay.checkIn), let checkOut = LocalDate(stay.checkOut) else { return false }
            return checkIn <= date && date < checkOut
        }
    }

    /// Where day `day` (1-based) begins: last night's lodging, else tonight's.
    public static func startLodging(_ document: ItineraryDocument, day: Int) -> Lodging? {
        lodging(document, night: day - 2) ?? lodging(document, night: day - 1)
    }

    /// Where day `day` ends: tonight's lodging, else where it began.
    public static func endLodging(_ document: ItineraryDocument, day: Int) -> Lodging? {
        lodging(document, night: day - 1) ?? startLodging(document, day: day)
    }

    static let weekdays = ["", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// Orders day `day`'s stops. `hours` gives the opening hours of stops that are places with
    /// known hours (by stop id); a fixed start time wins over them.
    public static func optimize(
        _ document: ItineraryDocument, day: Int, hours: [String: OpeningHours], mode: Mode,
        dayStartMinute: Int, dayEndMinute: Int
    ) throws -> Result {
        guard (1...document.dayCount).contains(day) else { throw PlanError.dayOutOfRange(day: day, days: document.dayCount) }
        let stops = document.stops.filter { $0.day == day }
        guard !stops.isEmpty else { throw PlanError.noStops(day: day) }
        var points: [Coordinate] = []
        for stop in stops {
            guard let point = stop.location.coordinate else { throw PlanError.stopWithoutPoint(stop.id) }
            points.append(point)
        }
        let weekday = isoWeekday(LocalDate(document.startDate)?.adding(days: day - 1))
        let first = startLodging(document, day: day), last = endLodging(document, day: day)
        // Nodes: 0 the start, 1…n the stops, n + 1 the end; an end without lodging costs nothing to reach.
        let nodes: [Coordinate?] = [first?.location.coordinate] + points.map(Optional.some) + [last?.location.coordinate]
        let travel = nodes.map { a in
            nodes.map { b -> Double in
                guard let a, let b else { return 0 }
                return Geodesic.distance(a, b) * detour / mode.metersPerSecond
            }
        }
        var timed: [TimedStop] = []
        var closed = Set<Int>()
        for (index, stop) in stops.enumerated() {
            let service = Double(stop.durationMinutes * 60)
            if let fixed = stop.fixedStart.flatMap(minutes) {
                timed.append(TimedStop(serviceSeconds: service, windows: [Double(fixed * 60)...Double(fixed * 60)]))
            } else if let windows = visitWindows(hours[stop.id], weekday: weekday, serviceSeconds: service) {
                if windows.isEmpty { closed.insert(index) }
                // A window that has always closed: the stop cannot be visited that day.
                timed.append(TimedStop(serviceSeconds: service, windows: windows.isEmpty ? [-1 ... -1] : windows))
            } else {
                timed.append(TimedStop(serviceSeconds: service))
            }
        }
        let schedule = TimeWindowScheduler.schedule(
            travel: travel, stops: timed, dayStart: Double(dayStartMinute * 60),
            dayEnd: Double(dayEndMinute * 60))
        let unplaced = schedule.unplaced.map { item -> Unplaced in
            let stop = stops[item.stop]
            let reason: String
            if closed.contains(item.stop) {
                reason = "it is closed on \(weekday.map { weekdays[$0] } ?? "that day") by its opening hours"
            } else if item.reason == .conflictsWithOthers {
                reason = "it fits the day alone but not in any order with the other stops' times"
            } else if let fixed = stop.fixedStart {
                reason =
                    "its fixed time \(fixed) cannot be kept between the day's start \(clock(dayStartMinute)) and end \(clock(dayEndMinute)) with the travel to and from it"
            } else if hours[stop.id] != nil {
                reason =
                    "its opening hours leave no time for a \(stop.durationMinutes)-minute visit between \(clock(dayStartMinute)) and \(clock(dayEndMinute))"
            } else {
                reason =
                    "the travel to it and back and its \(stop.durationMinutes) minutes do not fit between \(clock(dayStartMinute)) and \(clock(dayEndMinute))"
            }
            return Unplaced(stop: stop, reason: reason)
        }
        return Result(
            order: schedule.order.map { stops[$0] }, startMinutes: schedule.starts.map { Int(($0 / 60).rounded()) },
            travelMinutes: Int((schedule.travelSeconds / 60).rounded()), unplaced: unplaced,
            isProvenOptimal: schedule.isProvenOptimal, startLodging: first, endLodging: last)
    }

    /// When a visit of `serviceSeconds` may begin on ISO weekday `weekday` (seconds from
    /// midnight), by the opening hours: nil when the hours or the weekday are unknown (any
    /// time), empty when the place is closed that day or no period is long enough.
    public static func visitWindows(_ hours: OpeningHours?, weekday: Int?, serviceSeconds service: Double) -> [ClosedRange<Double>]? {
        guard let periods = hours?.periods, !periods.isEmpty, let weekday else { return nil }
        return periods.filter { $0.openDay == weekday }.compactMap { period -> ClosedRange<Double>? in
            let close = (period.closeDay == period.openDay ? period.closeMinute : 1_440 + period.closeMinute) * 60
            let latestBegin = Double(close) - service
            return latestBegin >= Double(period.openMinute * 60) ? Double(period.openMinute * 60)...latestBegin : nil
        }
    }

    /// ISO weekday (Monday 1 … Sunday 7) of a date.
    public static func isoWeekday(_ date: LocalDate?) -> Int? {
        guard let date, let epoch = LocalDate("1970-01-01") else { return nil }
        // 1970-01-01 was a Thursday (4).
        let offset = ((date.days(since: epoch) % 7) + 7) % 7
        return (3 + offset) % 7 + 1
    }

    /// `HH:MM` as minutes after midnight.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard text.count == 5, parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
            (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    public static func clock(_ minutes: Int) -> String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }
}
