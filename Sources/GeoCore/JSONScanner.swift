/// A small JSON parser: bytes in, ``JSONValue`` out. It reads GeoJSON features one at a time
/// in imports, and request bodies the service reads in bulk (busy periods), and stored lists.
///
/// Foundation's `JSONSerialization` builds `NSNumber`s and bridged dictionaries and took two
/// thirds of a GeoJSONSeq import; this reads the bytes once, without bridging. RFC 8259: any
/// value at the top, strings with every escape (surrogate pairs joined), numbers as `Int64` when
/// they are integers that fit, else `Double`. Errors say what was expected and at which byte.
public struct JSONScanner {
    /// Where the text stops being JSON, and what was expected there.
    public struct SyntaxError: Error, CustomStringConvertible {
        public let offset: Int
        public let expected: String
        public var tooDeep = false

        public init(offset: Int, expected: String, tooDeep: Bool = false) {
            self.offset = offset
            self.expected = expected
            self.tooDeep = tooDeep
        }
        public var description: String {
            tooDeep
                ? "JSON nested deeper than \(JSONScanner.maximumDepth) levels at byte \(offset + 1): a feature holds at most \(JSONScanner.maximumDepth) levels of arrays and objects"
                : "malformed JSON at byte \(offset + 1): expected \(expected)"
        }
    }

    /// The deepest nesting of arrays and objects read: far more than any GeoJSON geometry (a
    /// MultiPolygon is five levels inside its feature) or sensible property needs, and little
    /// enough stack that a hostile file (100 000 nested arrays in 200 KB) cannot overflow it.
    public static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    /// Parses one JSON text that fills `bytes` (surrounding whitespace allowed).
    public static func parse(_ bytes: some Collection<UInt8>) throws(SyntaxError) -> JSONValue {
        let result: Result<JSONValue, SyntaxError>? = bytes.withContiguousStorageIfAvailable { buffer in
            var scanner = JSONScanner(bytes: buffer)
            return Result { () throws(SyntaxError) -> JSONValue in try scanner.document() }
        }
        if let result { return try result.get() }
        return try parse(Array(bytes))
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    // MARK: - Reading without a tree

    /// What the next value is, seen from its first byte.
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// Reads one JSON text that fills `bytes` with `body`, which walks it value by value
    /// (``kind``, ``readObject(_:)``, ``readArray(_:)``, ``readString()``, ``skipValue()``)
    /// instead of building a ``JSONValue`` tree: a body of 10 000 small objects costs no
    /// dictionary per object. Syntax errors are ``SyntaxError``s, whatever `body` throws is
    /// thrown as it is; trailing bytes other than whitespace are a syntax error.
    public static func read<Result>(_ bytes: some Collection<UInt8>, _ body: (inout JSONScanner) throws -> Result) throws -> Result {
        let answer: Swift.Result<Result, any Error>? = bytes.withContiguousStorageIfAvailable { buffer in
            Swift.Result {
                var scanner = JSONScanner(bytes: buffer)
                let result = try body(&scanner)
                scanner.skipWhitespace()
                guard scanner.position == buffer.count else { throw SyntaxError(offset: scanner.position, expected: "the end of the text") }
                return result
            }
        }
        if let answer { return try answer.get() }
        return try read(Array(bytes), body)
    }

    /// The kind of the next value, or nil at the end of the text or before a byte that starts
    /// no value.
    public mutating func kind() -> Kind? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: return nil
        }
    }

    /// The next value, which must be a string.
    public mutating func readString() throws(SyntaxError) -> String {
        guard kind() == .string else { throw SyntaxError(offset: position, expected: "a string") }
        return try string()
    }

    /// The next value as a tree, whatever it is.
    public mutating func readValue() throws(SyntaxError) -> JSONValue {
        try value()
    }

    /// Passes over the next value, whatever it is (checked as JSON all the same).
    public mutating func skipValue() throws(SyntaxError) {
        _ = try value()
    }

    /// Reads the next value, which must be an object, calling `member` with each member's name
    /// and the scanner before its value; `member` must read or skip exactly that value.
    public mutating func readObject(_ member: (String, inout JSONScanner) throws -> Void) throws {
        guard kind() == .object else { throw SyntaxError(offset: position, expected: "an object") }
        try enter()
        defer { depth -= 1 }
        position += 1
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw SyntaxError(offset: position, expected: "a member name in quotes")
            }
            let key = try string()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw SyntaxError(offset: position, expected: "':'") }
            position += 1
            try member(key, &self)
            skipWhitespace()
            guard position < bytes.count else { throw SyntaxError(offset: position, expected: "',' or '}'") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return
            }
            throw SyntaxError(offset: position, expected: "',' or '}'")
        }
    }

    /// Reads the next value, which must be an array, calling `element` with each element's
    /// index and the scanner before it; `element` must read or skip exactly that value.
    public mutating func readArray(_ element: (Int, inout JSONScanner) throws -> Void) throws {
        guard kind() == .array else { throw SyntaxError(offset: position, expected: "an array") }
        try enter()
        defer { depth -= 1 }
        position += 1
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        var index = 0
        while true {
            try element(index, &self)
            index += 1
            skipWhitespace()
            guard position < bytes.count else { throw SyntaxError(offset: position, expected: "',' or ']'") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return
            }
            throw SyntaxError(offset: position, expected: "',' or ']'")
        }
    }

    private mutating func document() throws(SyntaxError) -> JSONValue {
        let value = try self.value()
        skipWhitespace()
        guard position == bytes.count else { throw SyntaxError(offset: position, expected: "the end of the text") }
        return value
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D || bytes[position] == 0x09 {
            position += 1
        }
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw SyntaxError(offset: position, expected: "a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count,
            (0..<count).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] })
        else {
            throw SyntaxError(offset: position, expected: "a value")
        }
        position += count
    }

    /// One level deeper, refused past ``maximumDepth``.
    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw SyntaxError(offset: position, expected: "", tooDeep: true) }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw SyntaxError(offset: position, expected: "a member name in quotes")
            }
            let key = try string()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw SyntaxError(offset: position, expected: "':'") }
            position += 1
            members[key] = try value()
            skipWhitespace()
            guard position < bytes.count else { throw SyntaxError(offset: position, expected: "',' or '}'") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            throw SyntaxError(offset: position, expected: "',' or '}'")
        }
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            guard position < bytes.count else { throw SyntaxError(offset: position, expected: "',' or ']'") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            throw SyntaxError(offset: position, expected: "',' or ']'")
        }
    }

    private mutating func string() throws(SyntaxError) -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw SyntaxError(offset: position, expected: "no control characters inside a string") }
            position += 1
        }
        var decoded = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), position + 1 < bytes.count,
                        bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                    {
                        position += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) { scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00) }
                    }
                    decoded.append(contentsOf: Array(String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8))
                default:
                    throw SyntaxError(offset: position - 1, expected: "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                }
            default:
                if byte < 0x20 { throw SyntaxError(offset: position - 1, expected: "no control characters inside a string") }
                decoded.append(byte)
            }
        }
        throw SyntaxError(offset: position, expected: "the closing quote of a string")
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw SyntaxError(offset: position, expected: "four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x37
            case 0x61...0x66: digit = byte - 0x57
            default: throw SyntaxError(offset: position, expected: "a hex digit")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func number() throws(SyntaxError) -> JSONValue {
        let start = position
        var isInteger = true
        if position < bytes.count && bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte >= 0x30 && byte <= 0x39 {
                position += 1
                continue
            }
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                || ((byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")) && position > digitsStart)
            {
                isInteger = false
                position += 1
                continue
            }
            break
        }
        guard position > digitsStart, bytes[digitsStart] >= 0x30 && bytes[digitsStart] <= 0x39 else {
            throw SyntaxError(offset: start, expected: "a value")
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else { throw SyntaxError(offset: start, expected: "a number") }
        return .double(double)
    }
}
