import Foundation
import Testing
@testable import GeoQueryServer

/// The byte-level query-string decoder against what Foundation's two passes gave.
@Suite struct QueryStringTests {
    /// The decoder it replaced: `+` to space, then `removingPercentEncoding`, falling back to the
    /// spaced text when that fails.
    static func foundationDecoded(_ part: Substring) -> String {
        let spaced = part.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    @Test func decodesAsFoundationDid() {
        let pieces = ["a", "Z", "+", "%", "2", "B", "%2B", "%20", "%41", "%e9", "%C3%A9", "%C3", "%FF", "%2", "%G1",
                      "é", "東京", "=", " ", "%25", "%E6%9D%B1", "%%", "0"]
        var generator = SystemRandomNumberGenerator()
        var cases = ["", "sao+paulo", "sao%20paulo", "S%C3%A3o+Paulo", "100%", "%zz", "a%2Bb", "%E6%9D%B1%E4%BA%AC"]
        for _ in 0..<5_000 {
            let count = Int.random(in: 1...8, using: &generator)
            cases.append((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined())
        }
        for text in cases {
            #expect(QueryParameters.formDecoded(Substring(text)) == Self.foundationDecoded(Substring(text)), "\(text)")
        }
    }
}
