import Foundation
import Testing

@testable import GeoCore

/// The radius parser's ASCII path splits every text exactly as the general path does.
struct DistanceParsingTests {
    @Test func theASCIIPathSplitsAsTheGeneralOne() {
        let pieces = ["1", "20", "0.5", ".", "-", "+", "e", "E", "3e2", "km", "KM", "Mi", "m", "ft", "nmi", "x", " ", "\t", "  ", "\r\n", ",", "_"]
        var generator = SplitMix64(seed: 42)
        for _ in 0..<20_000 {
            let text = (0..<Int(generator.next() % 6)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            let ascii = Distance.asciiNumberAndUnit(text)
            let general = Distance.unicodeNumberAndUnit(text)
            #expect(ascii != nil, "'\(text)' is ASCII")
            #expect(ascii??.number == general?.number && ascii??.unit == general?.unit, "'\(text)'")
            #expect((ascii! == nil) == (general == nil), "'\(text)'")
        }
        #expect(Distance.asciiNumberAndUnit("5 км") == nil, "not ASCII: the general path decides")
        #expect(Distance.numberAndUnit("\u{00A0}5km\u{00A0}")?.number == "5", "a no-break space is whitespace too")
        #expect(Distance.numberAndUnit(" \t ") == nil)
    }

    @Test func radiiParseAsBefore() throws {
        #expect(try Distance(parsing: "20mi").meters == 32186.88)
        #expect(try Distance(parsing: " 1.5 KM ").meters == 1500)
        #expect(try Distance(parsing: "800").meters == 800)
        #expect(try Distance(parsing: "1e3km").meters == 1_000_000)
        #expect(throws: GeoCoreError.self) { try Distance(parsing: "5e") }
        #expect(throws: GeoCoreError.self) { try Distance(parsing: "\t") }
        #expect(throws: GeoCoreError.self) { try Distance(parsing: "-1km") }
        #expect(throws: GeoCoreError.self) { try Distance(parsing: "3 parsecs") }
    }

    /// Each wrong radius is told what is wrong with it, in words a user can act on.
    @Test func eachBadRadiusGetsItsOwnReason() {
        func reason(_ text: String) -> String? {
            do {
                _ = try Distance(parsing: text)
                return nil
            } catch GeoCoreError.invalidDistance(_, let reason) { return reason } catch { return "\(error)" }
        }
        #expect(reason("nope") == "it has no number; write a number and a unit, e.g. 20mi, 5km, 800m")
        #expect(reason("km") == "it has no number; write a number and a unit, e.g. 20mi, 5km, 800m")
        #expect(reason("1.2.3km") == "'1.2.3' is not a number; write e.g. 20mi, 5km, 800m")
        #expect(reason("3 parsecs")?.hasPrefix("unknown unit 'parsecs'") == true)
        #expect(reason("") == "it is empty; write a number and a unit, e.g. 20mi, 5km, 800m")
    }
}
