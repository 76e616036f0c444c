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

    @Test func examples() throws {
        #expect(RFC3339.date("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(RFC3339.date("2026-11-23T18:30:00+01:00") == Date(timeIntervalSince1970: 1_795_455_000))
        #expect(RFC3339.date("2026-11-23T18:30:00.250Z")?.timeIntervalSince1970 == 1_795_458_600.25)
        #expect(RFC3339.date("2024-02-29T12:00:00-05:30") == Date(timeIntervalSince1970: 1_709_227_800))
        for bad in ["2026-11-23T18:30:00", "2026-11-23 18:30:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
                    "2026-13-01T00:00:00Z", "2026-11-23T24:00:00Z", "2026-11-23T18:60:00Z", "2026-11-23T18:30:00+0100",
                    "2026-11-23T18:30:00.Z", "2026-11-23T18:30:00+01:00x", "２026-11-23T18:30:00Z", "", "now"] {
            #expect(RFC3339.date(bad) == nil, "\(bad)")
        }
    }

    /// Random valid and mangled timestamps: the same answer as the formatter.
    @Test func agreesWithTheFormatter() {
        var random = SystemRandomNumberGenerator()
        let characters = Array("0123456789-:TZ+.z ")
        var compared = 0
        for _ in 0..<4_000 {
            let seconds = Double(Int64.random(in: -2_000_000_000...8_000_000_000, using: &random))
            let offset = Int.random(in: -14...14, using: &random) * 3_600 + [0, 1_800, 2_700].randomElement(using: &random)!
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(secondsFromGMT: offset)
            var text = formatter.string(from: Date(timeIntervalSince1970: seconds))
            if Bool.random(using: &random) {
                // One character replaced, inserted or removed.
                var scalars = Array(text)
                let index = Int.random(in: 0..<scalars.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: scalars[index] = characters.randomElement(using: &random)!
                case 1: scalars.insert(characters.randomElement(using: &random)!, at: index)
                default: scalars.remove(at: index)
                }
                text = String(scalars)
            }
            let expected = Self.formatterDate(text)
            // The formatter reads years before 1 and a few lenient forms the RFC does not have;
            // compare where it reads an RFC 3339 date-time.
            guard expected != nil || RFC3339.date(text) != nil else { compared += 1; continue }
            if let expected, text.first?.isNumber == true, text.count >= 20 {
                #expect(RFC3339.date(text) == expected, "\(text)")
                compared += 1
            } else if expected == nil {
                #expect(RFC3339.date(text) == nil, "\(text) is read, the formatter refuses it")
                compared += 1
            }
        }
        #expect(compared > 3_000)
    }
}
