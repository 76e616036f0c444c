import PlaceModel

/// Each provider's opening-hours shape → ``OpeningHours`` periods (ISO days, Monday = 1 …
/// Sunday = 7, minutes from midnight; a period past midnight closes on the next day).
enum ProviderHours {
    /// Google: `{open:{day,hour,minute}, close:{…}}` with **day 0 = Sunday**; a lone period that
    /// opens Sunday 00:00 with no `close` means open around the clock.
    static func google(periods: [(openDay: Int, openMinute: Int, closeDay: Int?, closeMinute: Int?)], text: [String]) -> OpeningHours? {
        var result: [OpeningHours.Period] = []
        for period in periods {
            guard (0...6).contains(period.openDay) else { continue }
            let open = isoDay(fromSundayZero: period.openDay)
            if let closeDay = period.closeDay, let closeMinute = period.closeMinute, (0...6).contains(closeDay) {
                result.append(
                    .init(
                        openDay: open, openMinute: period.openMinute,
                        closeDay: isoDay(fromSundayZero: closeDay), closeMinute: closeMinute))
            } else if periods.count == 1 {
                result = aroundTheClock
            }
        }
        return hours(text: text.isEmpty ? nil : text.joined(separator: "; "), periods: result)
    }

    /// Yelp: `{day, start "HHMM", end "HHMM", is_overnight}` with **day 0 = Monday**.
    static func yelp(_ entries: [(day: Int, start: String, end: String, overnight: Bool)]) -> OpeningHours? {
        hours(
            text: nil,
            periods: entries.compactMap { entry in
                guard (0...6).contains(entry.day), let open = minutes(hhmm: entry.start), let close = minutes(hhmm: entry.end) else { return nil }
                return period(day: entry.day + 1, open: open, close: close, overnight: entry.overnight)
            })
    }

    /// Foursquare: `regular[{day, open "HHMM", close "HHMM"}]`, day 1 = Monday … 7 = Sunday (0 is
    /// read as Sunday, leniently, as the numbering is unconfirmed), `close` may be `+HHMM` for
    /// the next day.
    static func foursquare(display: String?, regular: [(day: Int, open: String, close: String)]) -> OpeningHours? {
        hours(
            text: display,
            periods: regular.compactMap { entry in
                let day = entry.day == 0 ? 7 : entry.day
                let nextDay = entry.close.hasPrefix("+")
                guard (1...7).contains(day), let open = minutes(hhmm: entry.open),
                    let close = minutes(hhmm: nextDay ? String(entry.close.dropFirst()) : entry.close)
                else { return nil }
                return period(day: day, open: open, close: close, overnight: nextDay)
            })
    }

    /// HERE: `structured[{start "T050000", duration "PT20H00M", recurrence "FREQ:DAILY;BYDAY:MO,TU"}]`.
    static func here(text: [String], structured: [(start: String, duration: String, recurrence: String)]) -> OpeningHours? {
        let days = ["MO": 1, "TU": 2, "WE": 3, "TH": 4, "FR": 5, "SA": 6, "SU": 7]
        var result: [OpeningHours.Period] = []
        for entry in structured {
            guard let open = minutes(iCalTime: entry.start), let length = minutes(isoDuration: entry.duration) else { continue }
            let byDay = entry.recurrence.split(separator: ";").first { $0.hasPrefix("BYDAY:") || $0.hasPrefix("BYDAY=") }
            let weekdays = byDay.map { $0.dropFirst(6).split(separator: ",").compactMap { days[String($0)] } } ?? Array(1...7)
            for day in weekdays {
                let end = open + length
                result.append(.init(openDay: day, openMinute: open, closeDay: (day - 1 + end / 1440) % 7 + 1, closeMinute: end % 1440))
            }
        }
        return hours(text: text.isEmpty ? nil : text.joined(separator: "; "), periods: result)
    }

    // MARK: Pieces

    static let aroundTheClock: [OpeningHours.Period] = (1...7).map {
        .init(openDay: $0, openMinute: 0, closeDay: $0 % 7 + 1, closeMinute: 0)
    }

    static func isoDay(fromSundayZero day: Int) -> Int { day == 0 ? 7 : day }

    /// A period on ISO `day`; it closes the next day when flagged or when it closes at or before it opens.
    static func period(day: Int, open: Int, close: Int, overnight: Bool) -> OpeningHours.Period {
        let nextDay = overnight || close <= open
        return .init(openDay: day, openMinute: open, closeDay: nextDay ? day % 7 + 1 : day, closeMinute: close)
    }

    /// "0930" → 570; "2400" → 1440 is read as midnight of the next day (0 with overnight).
    static func minutes(hhmm: String) -> Int? {
        let digits = hhmm.filter(\.isNumber)
        guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)),
            (0...24).contains(hours), (0..<60).contains(minutes), hours * 60 + minutes <= 1440
        else { return nil }
        return (hours * 60 + minutes) % 1440
    }

    /// "T050000" → 300.
    static func minutes(iCalTime: String) -> Int? {
        let digits = iCalTime.filter(\.isNumber)
        guard digits.count >= 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.dropFirst(2).prefix(2)),
            (0..<24).contains(hours), (0..<60).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    /// "PT20H00M" → 1200.
    static func minutes(isoDuration: String) -> Int? {
        guard isoDuration.hasPrefix("PT") else { return nil }
        var total = 0, number = ""
        for character in isoDuration.dropFirst(2) {
            if character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number) else { return nil }
            switch character {
            case "H": total += value * 60
            case "M": total += value
            case "S": break
            default: return nil
            }
            number = ""
        }
        return total > 0 && number.isEmpty ? total : nil
    }

    private static func hours(text: String?, periods: [OpeningHours.Period]) -> OpeningHours? {
        text == nil && periods.isEmpty ? nil : OpeningHours(text: text, periods: periods)
    }
}
