import Foundation
import GeoCore

/// An amount of money in one currency. Amounts are decimal, so sums are exact; no exchange
/// rate is ever applied.
public struct Money: Sendable, Hashable, Codable {
    public var amount: Decimal
    /// ISO 4217, upper case (`EUR`, `JPY`).
    public var currency: String

    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }
}

/// Where something on a plan is: a place of the index (or a gem, or a provider's place) by id,
/// or a point, with a name to show.
public struct PlanLocation: Sendable, Hashable, Codable {
    public var placeID: String?
    public var latitude: Double?
    public var longitude: Double?
    public var name: String?

    public init(placeID: String? = nil, coordinate: Coordinate? = nil, name: String? = nil) {
        self.placeID = placeID
        latitude = coordinate?.latitude
        longitude = coordinate?.longitude
        self.name = name
    }

    /// The point, when one is known (given, or filled in from the place).
    public var coordinate: Coordinate? {
        guard let latitude, let longitude else { return nil }
        return try? Coordinate(latitude: latitude, longitude: longitude)
    }

    enum CodingKeys: String, CodingKey {
        case placeID = "place_id", latitude = "lat", longitude = "lon", name
    }
}

/// A place to visit on one day of an itinerary.
public struct ItineraryStop: Sendable, Hashable, Codable {
    public var id: String
    public var location: PlanLocation
    /// 1 is the itinerary's first day.
    public var day: Int
    /// Local wall-clock time (`HH:MM`) the stop is fixed at, if any.
    public var fixedStart: String?
    public var durationMinutes: Int
    public var notes: String?
    public var price: Money?

    public init(
        id: String, location: PlanLocation, day: Int, fixedStart: String? = nil, durationMinutes: Int = 60,
        notes: String? = nil, price: Money? = nil
    ) {
        self.id = id
        self.location = location
        self.day = day
        self.fixedStart = fixedStart
        self.durationMinutes = durationMinutes
        self.notes = notes
        self.price = price
    }

    enum CodingKeys: String, CodingKey {
        case id, location, day, fixedStart = "fixed_start", durationMinutes = "duration_minutes", notes, price
    }
}

/// A journey between two places: a flight, a train…
public struct TransportLeg: Sendable, Hashable, Codable {
    public static let modes = ["flight", "train", "bus", "car", "ferry", "taxi", "walk", "bike", "other"]

    public var id: String
    /// One of ``modes``.
    public var mode: String
    public var from: PlanLocation
    public var to: PlanLocation
    /// RFC 3339 with the local offset, kept as given (`2027-05-02T09:40:00+02:00`).
    public var departure: String
    public var arrival: String
    /// A booking or flight number.
    public var reference: String?
    public var price: Money?

    public init(
        id: String, mode: String, from: PlanLocation, to: PlanLocation, departure: String, arrival: String,
        reference: String? = nil, price: Money? = nil
    ) {
        self.id = id
        self.mode = mode
        self.from = from
        self.to = to
        self.departure = departure
        self.arrival = arrival
        self.reference = reference
        self.price = price
    }
}

/// Where the travellers sleep, from check-in to check-out.
public struct Lodging: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var location: PlanLocation
    /// Local dates, `YYYY-MM-DD`.
    public var checkIn: String
    public var checkOut: String
    public var price: Money?

    public init(id: String, name: String, location: PlanLocation, checkIn: String, checkOut: String, price: Money? = nil) {
        self.id = id
        self.name = name
        self.location = location
        self.checkIn = checkIn
        self.checkOut = checkOut
        self.price = price
    }

    enum CodingKeys: String, CodingKey {
        case id, name, location, checkIn = "check_in", checkOut = "check_out", price
    }
}

/// What an itinerary holds besides who may see it (the store's `PlaceQuery.PlanRecord`).
public struct ItineraryDocument: Sendable, Hashable, Codable {
    public var title: String
    public var destination: PlanLocation
    /// Local dates, `YYYY-MM-DD`, in ``timeZone``.
    public var startDate: String
    public var endDate: String
    /// The destination's IANA time zone.
    public var timeZone: String
    public var notes: String?
    public var budget: Money?
    public var transport: [TransportLeg]
    public var lodging: [Lodging]
    public var stops: [ItineraryStop]

    public init(
        title: String, destination: PlanLocation, startDate: String, endDate: String, timeZone: String,
        notes: String? = nil, budget: Money? = nil, transport: [TransportLeg] = [], lodging: [Lodging] = [],
        stops: [ItineraryStop] = []
    ) {
        self.title = title
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
        self.timeZone = timeZone
        self.notes = notes
        self.budget = budget
        self.transport = transport
        self.lodging = lodging
        self.stops = stops
    }

    enum CodingKeys: String, CodingKey {
        case title, destination, startDate = "start_date", endDate = "end_date", timeZone = "time_zone", notes, budget,
            transport, lodging, stops
    }

    /// How many days the itinerary has (1 when it starts and ends on one date).
    public var dayCount: Int {
        guard let start = LocalDate(startDate), let end = LocalDate(endDate) else { return 1 }
        return max(1, end.days(since: start) + 1)
    }
}

/// What a group trip holds besides its invitees and answers (the store's members).
public struct TripDocument: Sendable, Hashable, Codable {
    public var title: String
    public var place: PlanLocation
    /// RFC 3339 with offsets.
    public var start: String
    public var end: String
    /// The IANA time zone meeting-time hours are read in.
    public var timeZone: String
    public var notes: String?
    public var budget: Money?

    public init(
        title: String, place: PlanLocation, start: String, end: String, timeZone: String, notes: String? = nil,
        budget: Money? = nil
    ) {
        self.title = title
        self.place = place
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.notes = notes
        self.budget = budget
    }

    enum CodingKeys: String, CodingKey {
        case title, place, start, end, timeZone = "time_zone", notes, budget
    }
}

/// A calendar date without a time (`YYYY-MM-DD`).
public struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// Parses `YYYY-MM-DD`; nil for anything else or an impossible date.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    /// Days since 1970-01-01 (proleptic Gregorian).
    var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public func days(since other: LocalDate) -> Int { dayNumber - other.dayNumber }

    /// The date `count` days later.
    public func adding(days count: Int) -> LocalDate {
        var date = self
        var remaining = count
        while remaining > 0 {
            if date.day < LocalDate.daysIn(month: date.month, year: date.year) {
                date.day += 1
            } else {
                date.day = 1
                if date.month == 12 {
                    date.month = 1
                    date.year += 1
                } else {
                    date.month += 1
                }
            }
            remaining -= 1
        }
        return date
    }

    /// The instant the date's wall-clock `minute` (minutes after midnight) happens in `zone`
    /// (a time skipped by a daylight-saving change moves forward by the change).
    public func instant(minute: Int, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(
            from: DateComponents(
                timeZone: zone, year: year, month: month, day: day,
                hour: minute / 60, minute: minute % 60))
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.dayNumber < rhs.dayNumber }

    /// The local date of `instant` in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        year = parts.year ?? 1970
        month = parts.month ?? 1
        day = parts.day ?? 1
    }
}
