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
        let pieces = [
            "a", "Z", "+", "%", "2", "B", "%2B", "%20", "%41", "%e9", "%C3%A9", "%C3", "%FF", "%2", "%G1",
            "é", "東京", "=", " ", "%25", "%E6%9D%B1", "%%", "0",
        ]
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

    /// The splitter it replaced: by `Character`, which agrees with bytes wherever no combining
    /// mark follows a separator.
    static func characterPairs(_ query: String) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return (foundationDecoded(pair), "") }
            return (foundationDecoded(pair[..<equals]), foundationDecoded(pair[pair.index(after: equals)...]))
        }
    }

    @Test func splitsAsTheCharacterSplitterDid() {
        let pieces = ["a", "lat", "=", "&", "&&", "==", "48.8", "%3D", "%26", "+", "é", "東京", "%C3%A9", "%", ""]
        var generator = SystemRandomNumberGenerator()
        var cases = ["", "&", "=", "a", "a=", "=b", "a=b=c", "a&&b", "&a=1&", "lat=1&lon=2&radius=1km", "q=%26%3D&x"]
        for _ in 0..<5_000 {
            let count = Int.random(in: 1...10, using: &generator)
            cases.append((0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined())
        }
        for query in cases {
            let bytes = QueryParameters.pairs(query: query)
            let characters = Self.characterPairs(query)
            #expect(bytes.map(\.0) == characters.map(\.0) && bytes.map(\.1) == characters.map(\.1), "\(query)")
        }
    }
}
