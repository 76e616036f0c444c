import Foundation
import GeoCore
import Testing

/// The RFC 3339 reader agrees with Foundation's `ISO8601DateFormatter` (internet date-time,
/// with and without fractions), which it replaced for speed.
struct RFC3339Tests {
    static func formatterDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// 1583-01-01T00:00:00Z: from here on the formatter's calendar and RFC 3339's agree.
    static let gregorianSince = Date(timeIntervalSince1970: -12_212_553_600)

    @Test func examples() throws {
        #expect(RFC3339.date("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.date("2026-11-23T18:30:00+01:00") == Date(timeIntervalSince1970: 1_795_455_000))
        #expect(RFC3339.date("2026-11-23T18:30:00.250Z")?.timeIntervalSince1970 == 1_795_458_600.25)
        #expect(RFC3339.date("2024-02-29T12:00:00-05:30") == Date(timeIntervalSince1970: 1_709_227_800))
        for bad in [
            "2026-11-23T18:30:00", "2026-11-23 18:30:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z", "2026-11-23T24:00:00Z", "2026-11-23T18:60:00Z", "2026-11-23T18:30:00+0100",
            "2026-11-23T18:30:00.Z", "2026-11-23T18:30:00+01:00x", "２026-11-23T18:30:00Z", "", "now",
        ] {
            #expect(RFC3339.date(bad) == nil, "\(bad)")
        }
    }

    /// Random timestamps, as written and with one character replaced, inserted or removed:
    /// every one written is read back to the same instant; whatever this reader accepts, the
    /// formatter reads as the same instant. (The formatter is more lenient than RFC 3339:
    /// `+1:45`, one-digit seconds, `02-025`; this reader refuses those.)
    @Test func agreesWithTheFormatter() {
        var random = SystemRandomNumberGenerator()
        let characters = Array("0123456789-:TZ+. ")
        var accepted = 0
        for _ in 0..<4_000 {
            let seconds = Double(Int64.random(in: -2_000_000_000...8_000_000_000, using: &random))
            let offset = Int.random(in: -14...14, using: &random) * 3_600 + [0, 1_800, 2_700].randomElement(using: &random)!
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(secondsFromGMT: offset)
            let written = formatter.string(from: Date(timeIntervalSince1970: seconds))
            #expect(RFC3339.date(written) == Date(timeIntervalSince1970: seconds), "\(written)")
            var scalars = Array(written)
            let index = Int.random(in: 0..<scalars.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: scalars[index] = characters.randomElement(using: &random)!
            case 1: scalars.insert(characters.randomElement(using: &random)!, at: index)
            default: scalars.remove(at: index)
            }
            let mangled = String(scalars)
            // Before 1583 the formatter's calendar is Julian; RFC 3339's is Gregorian throughout.
            if let read = RFC3339.date(mangled), read >= Self.gregorianSince {
                accepted += 1
                #expect(Self.formatterDate(mangled) == read, "\(mangled)")
            }
        }
        #expect(accepted > 100, "some mangled texts are still timestamps (a digit for a digit)")
    }
}
