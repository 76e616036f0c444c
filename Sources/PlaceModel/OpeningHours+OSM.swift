import Foundation

/// Reading OpenStreetMap `opening_hours` values, and asking whether a place is open.
extension OpeningHours {
    /// Minutes in a week.
    public static let minutesPerWeek = 7 * 1440

    /// Opening hours from an OpenStreetMap `opening_hours` value, with periods for the common
    /// forms and none for the rest (the text is kept either way).
    ///
    /// Read: `24/7`; rules separated by `;` (or `||`), each an optional list of days (`Mo`,
    /// `Mo-Fr`, `Sa-Mo`, `Mo,We,Fr`) followed by time ranges (`09:00-12:00,13:30-18:00`, a range
    /// past midnight as `22:00-02:00`, `24:00` as the end of a day) or `off` / `closed`. A later
    /// rule replaces the hours of the days it names, as in OSM. Public-holiday and school-holiday
    /// rules (`PH off`) are skipped: which days are holidays is not known here.
    /// Anything else — months, dates, week numbers, `sunrise`, open ends (`18:00+`), comments —
    /// leaves the place without periods, so an "open now" filter leaves it out rather than guess.
    public init(osm text: String) {
        self.init(text: text, periods: OpeningHours.periods(osm: text) ?? [])
    }

    /// The weekly periods of an OSM `opening_hours` value, or nil when it uses a form not read.
    public static func periods(osm text: String) -> [Period]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 512 else { return nil }
        if trimmed == "24/7" { return aroundTheClock }
        // Day 0 = Monday; each day's ranges in minutes from its midnight (the end may pass 1440).
        var week: [[(Int, Int)]] = Array(repeating: [], count: 7)
        for rule in trimmed.replacingOccurrences(of: "||", with: ";").split(separator: ";") {
            let words = rule.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard !words.isEmpty else { continue }
            var days: [Int]? = nil
            var rest = words[...]
            if let first = rest.first, first.first?.isLetter == true, first != "off", first != "closed" {
                guard let parsed = parseDays(first) else { return nil }
                if parsed.isEmpty { continue }  // only holidays: skipped
                days = parsed
                rest = rest.dropFirst()
            }
            // `09:00-12:00, 13:00-18:00` and `09:00 - 18:00` are written with spaces too.
            let selector = rest.joined()
            guard !selector.isEmpty else { return nil }
            let ranges: [(Int, Int)]
            if selector == "off" || selector == "closed" {
                ranges = []
            } else {
                guard let parsed = parseTimes(selector[...]) else { return nil }
                ranges = parsed
            }
            for day in days ?? Array(0..<7) { week[day] = ranges }
        }
        var periods: [Period] = []
        for (day, ranges) in week.enumerated() {
            for (open, close) in ranges {
                let closeDay = close >= 1440 ? (day + 1) % 7 : day
                periods.append(Period(openDay: day + 1, openMinute: open, closeDay: closeDay + 1, closeMinute: close % 1440))
            }
        }
        return periods
    }

    /// Open every minute of the week.
    public static let aroundTheClock: [Period] = (1...7).map {
        Period(openDay: $0, openMinute: 0, closeDay: $0 % 7 + 1, closeMinute: 0)
    }

    /// The periods as half-open ranges of minutes from Monday 00:00 (0 ..< 10 080); a range that
    /// runs past Sunday midnight ends after 10 080.
    public var weeklyRanges: [Range<Int>] {
        periods.compactMap { period in
            guard (1...7).contains(period.openDay), (1...7).contains(period.closeDay),
                (0..<1440).contains(period.openMinute), (0...1440).contains(period.closeMinute)
            else { return nil }
            let start = (period.openDay - 1) * 1440 + period.openMinute
            var end = (period.closeDay - 1) * 1440 + period.closeMinute
            if end <= start { end += OpeningHours.minutesPerWeek }
            return start..<end
        }
    }

    /// Whether the place is open at `minuteOfWeek` (0 = Monday 00:00 local time); nil when no
    /// periods are known.
    public func isOpen(atMinuteOfWeek minuteOfWeek: Int) -> Bool? {
        guard !periods.isEmpty else { return nil }
        return OpeningHours.ranges(weeklyRanges, contain: minuteOfWeek)
    }

    /// Whether any of `ranges` (as ``weeklyRanges``) holds `minuteOfWeek`.
    public static func ranges(_ ranges: [Range<Int>], contain minuteOfWeek: Int) -> Bool {
        ranges.contains { $0.contains(minuteOfWeek) || $0.contains(minuteOfWeek + minutesPerWeek) }
    }

    private static let dayNames = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"]

    /// `Mo-Fr,Su` → [0, 1, 2, 3, 4, 6]; `PH` and `SH` parts dropped; nil for anything else.
    private static func parseDays(_ text: Substring) -> [Int]? {
        var result: [Int] = []
        for part in text.split(separator: ",") {
            if part == "PH" || part == "SH" { continue }
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count),
                let first = dayNames.firstIndex(of: String(ends[0]))
            else { return nil }
            guard ends.count == 2 else {
                result.append(first)
                continue
            }
            guard let last = dayNames.firstIndex(of: String(ends[1])) else { return nil }
            var day = first
            while true {
                result.append(day)
                if day == last { break }
                day = (day + 1) % 7
            }
        }
        if result.isEmpty && !text.split(separator: ",").allSatisfy({ $0 == "PH" || $0 == "SH" }) { return nil }
        return result
    }

    /// `09:00-12:00,13:00-18:00` → [(540, 720), (780, 1080)]; a range ending at or before its
    /// start runs past midnight (`22:00-02:00` → (1320, 1560)); nil for anything else.
    private static func parseTimes(_ text: Substring) -> [(Int, Int)]? {
        var result: [(Int, Int)] = []
        for part in text.split(separator: ",") {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2, let open = minutes(ends[0]), let close = minutes(ends[1]), open < 1440 else { return nil }
            result.append((open, close > open ? close : close + 1440))
        }
        return result.isEmpty ? nil : result
    }

    /// `09:30` → 570; `24:00` → 1440.
    private static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            parts[0].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isASCII),
            let hours = Int(parts[0]), let minutes = Int(parts[1]),
            (0...24).contains(hours), (0..<60).contains(minutes), hours * 60 + minutes <= 1440
        else { return nil }
        return hours * 60 + minutes
    }
}

extension Place {
    /// Whether the place is open at `instant`, its opening hours read in its ``timeZone``; nil
    /// when either is unknown (or the zone is not one this system knows).
    public func isOpen(at instant: Date) -> Bool? {
        guard let hours = openingHours, !hours.periods.isEmpty, let zone = timeZone,
            let minute = OpeningHours.minuteOfWeek(at: instant, timeZone: zone)
        else { return nil }
        return hours.isOpen(atMinuteOfWeek: minute)
    }
}

extension OpeningHours {
    /// The local minute of the week (0 = Monday 00:00) at `instant` in the IANA zone `identifier`;
    /// nil for an unknown zone.
    public static func minuteOfWeek(at instant: Date, timeZone identifier: String) -> Int? {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        return minuteOfWeek(at: instant, offsetSeconds: zone.secondsFromGMT(for: instant))
    }

    /// The local minute of the week at `instant` for a zone `offsetSeconds` ahead of UTC.
    public static func minuteOfWeek(at instant: Date, offsetSeconds: Int) -> Int {
        let localMinutes = Int((instant.timeIntervalSince1970 / 60).rounded(.down)) + offsetSeconds / 60
        // 1970-01-01 was a Thursday: three days after a Monday.
        let minute = (localMinutes + 3 * 1440) % minutesPerWeek
        return minute < 0 ? minute + minutesPerWeek : minute
    }
}
