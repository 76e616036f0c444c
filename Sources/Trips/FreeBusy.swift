import Foundation
import PlaceQuery

/// Busy times from an iCalendar `VFREEBUSY` component (RFC 5545 §3.6.4, §3.8.2.6).
public enum FreeBusy {
    /// Why a calendar body was refused.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Every `FREEBUSY` period of the body's `VFREEBUSY` components that is busy (`FBTYPE`
    /// absent, `BUSY`, `BUSY-UNAVAILABLE` or `BUSY-TENTATIVE`); `FREE` periods are skipped.
    /// Periods are `start/end` or `start/duration`, in UTC as RFC 5545 requires.
    public static func busyIntervals(_ text: String, maximumCount: Int = 10_000) throws -> [BusyInterval] {
        // Unfold: a line that begins with a space or tab continues the previous one.
        var lines: [String] = []
        for raw in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            if let first = raw.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += raw.dropFirst()
            } else {
                lines.append(String(raw))
            }
        }
        guard lines.contains(where: { $0.uppercased() == "BEGIN:VFREEBUSY" }) else {
            throw ParseError(description: "the calendar has no VFREEBUSY component: send BEGIN:VFREEBUSY … FREEBUSY:… END:VFREEBUSY")
        }
        var intervals: [BusyInterval] = []
        var inside = false
        for line in lines {
            let upper = line.uppercased()
            if upper == "BEGIN:VFREEBUSY" {
                inside = true
                continue
            }
            if upper == "END:VFREEBUSY" {
                inside = false
                continue
            }
            guard inside, upper.hasPrefix("FREEBUSY"), let colon = line.firstIndex(of: ":") else { continue }
            let parameters = upper[..<colon].split(separator: ";").dropFirst()
            let type = parameters.first { $0.hasPrefix("FBTYPE=") }.map { String($0.dropFirst(7)) } ?? "BUSY"
            guard type != "FREE" else { continue }
            for period in line[line.index(after: colon)...].split(separator: ",") {
                let halves = period.split(separator: "/")
                guard halves.count == 2, let start = utc(String(halves[0])) else {
                    throw ParseError(
                        description: "FREEBUSY period '\(period.prefix(60))' is invalid: give UTC start/end, e.g. 20270612T160000Z/20270612T180000Z")
                }
                let end: Date
                if halves[1].hasPrefix("P") || halves[1].hasPrefix("+P") {
                    guard let seconds = duration(String(halves[1])), seconds > 0 else {
                        throw ParseError(description: "FREEBUSY duration '\(halves[1].prefix(40))' is invalid: e.g. PT1H30M")
                    }
                    end = start.addingTimeInterval(seconds)
                } else {
                    guard let parsed = utc(String(halves[1])) else {
                        throw ParseError(description: "FREEBUSY end '\(halves[1].prefix(40))' is invalid: give a UTC time such as 20270612T180000Z")
                    }
                    end = parsed
                }
                guard start < end else { throw ParseError(description: "FREEBUSY period '\(period.prefix(60))' ends before it starts") }
                intervals.append(BusyInterval(start: start, end: end))
                guard intervals.count <= maximumCount else {
                    throw ParseError(description: "the calendar has more than \(maximumCount) busy periods")
                }
            }
        }
        return intervals
    }

    /// `20270612T160000Z`.
    static func utc(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: bytes[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
            let minute = number(11..<13), let second = number(13..<15), hour < 24, minute < 60, second < 61,
            let date = LocalDate(String(format: "%04d-%02d-%02d", year, month, day))
        else { return nil }
        return Date(timeIntervalSince1970: Double(date.days(since: LocalDate("1970-01-01")!) * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// `PT1H30M`, `P1D`, `P1W` as seconds.
    static func duration(_ text: String) -> TimeInterval? {
        var rest = Substring(text)
        if rest.hasPrefix("+") { rest = rest.dropFirst() }
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0, number = "", inTime = false, any = false
        for character in rest {
            if character.isNumber {
                number.append(character)
                continue
            }
            if character == "T" {
                inTime = true
                continue
            }
            guard let value = Double(number) else { return nil }
            number = ""
            any = true
            switch (character, inTime) {
            case ("W", false): total += value * 604_800
            case ("D", false): total += value * 86_400
            case ("H", true): total += value * 3_600
            case ("M", true): total += value * 60
            case ("S", true): total += value
            default: return nil
            }
        }
        return any && number.isEmpty ? total : nil
    }
}
