import GeoCore
import Testing

/// `JSONScanner.read`, the walk without a tree, agrees with `JSONScanner.parse` on what is JSON
/// and what is not, keeps the depth limit, and reports where a text stops being JSON.
struct JSONScannerReadTests {
    /// Every value of `text` as the walk sees it, written back as `parse` would build it.
    static func walk(_ scanner: inout JSONScanner) throws -> JSONValue {
        switch scanner.kind() {
        case .object:
            var members: [String: JSONValue] = [:]
            try scanner.readObject { name, scanner in members[name] = try walk(&scanner) }
            return .object(members)
        case .array:
            var elements: [JSONValue] = []
            try scanner.readArray { index, scanner in
                #expect(index == elements.count)
                elements.append(try walk(&scanner))
            }
            return .array(elements)
        case .string:
            return .string(try scanner.readString())
        default:
            // Numbers, literals, and bytes that start no value (which `readValue` refuses).
            return try scanner.readValue()
        }
    }

    @Test(arguments: [
        #"{"busy":[{"start":"2030-01-01T00:00:00Z","end":"2030-01-01T01:00:00Z"}]}"#,
        #"  [ 1, -2.5e3, true, false, null, "a\"b\u00e9\ud83d\ude00", {}, [], {"x":{"y":[[]]}} ]  "#,
        #""just a string""#,
        #"{"a":1,"a":2}"#,
    ])
    func walksWhatParseReads(text: String) throws {
        let walked = try JSONScanner.read(Array(text.utf8)) { try Self.walk(&$0) }
        #expect(walked == (try JSONScanner.parse(Array(text.utf8))))
    }

    @Test(arguments: [
        (#"{"a":1"#, 6), (#"{"a" 1}"#, 5), (#"[1,]"#, 3), (#"[1] x"#, 4), (#"{"a":tru}"#, 5), (#"{"a":"\q"}"#, 7),
    ])
    func refusesWhatParseRefuses(text: String, offset: Int) throws {
        #expect(throws: JSONScanner.SyntaxError.self) { try JSONScanner.parse(Array(text.utf8)) }
        do {
            _ = try JSONScanner.read(Array(text.utf8)) { try Self.walk(&$0) }
            Issue.record("\(text) was read")
        } catch let error as JSONScanner.SyntaxError {
            #expect(error.offset == offset, "\(text): \(error.description)")
        }
    }

    @Test func keepsTheDepthLimit() throws {
        let deep = String(repeating: "[", count: JSONScanner.maximumDepth + 1) + String(repeating: "]", count: JSONScanner.maximumDepth + 1)
        do {
            _ = try JSONScanner.read(Array(deep.utf8)) { try Self.walk(&$0) }
            Issue.record("\(JSONScanner.maximumDepth + 1) levels were read")
        } catch let error as JSONScanner.SyntaxError {
            #expect(error.tooDeep)
        }
        let deepest = String(repeating: "[", count: JSONScanner.maximumDepth) + String(repeating: "]", count: JSONScanner.maximumDepth)
        _ = try JSONScanner.read(Array(deepest.utf8)) { try Self.walk(&$0) }
    }

    @Test func aCallbackThatReadsNothingIsASyntaxErrorNotALoop() throws {
        #expect(throws: JSONScanner.SyntaxError.self) {
            try JSONScanner.read(Array(#"[1,2]"#.utf8)) { scanner in try scanner.readArray { _, _ in } }
        }
    }

    @Test func errorsOfTheCallerPassThrough() throws {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try JSONScanner.read(Array(#"{"a":1}"#.utf8)) { scanner in try scanner.readObject { _, _ in throw Refused() } }
        }
        #expect(throws: JSONScanner.SyntaxError.self) {
            try JSONScanner.read(Array(#"{"a":1}"#.utf8)) { scanner in _ = try scanner.readString() }
        }
    }
}
