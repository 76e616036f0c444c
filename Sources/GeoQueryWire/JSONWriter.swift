/// Writes JSON straight into a byte buffer, members in the order they are written, compact or
/// indented by two spaces.
///
/// Answers are made of many small values (a few hundred places of a dozen fields each), so the
/// writer builds no tree and no intermediate strings: each value is appended as UTF-8 where it
/// is written. Numbers are written as ``OrderedJSON`` writes them (integral doubles without a
/// fraction, others in Swift's shortest round-trip form, non-finite ones as `null`).
public struct JSONWriter: Sendable {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8] = []
    /// Indent nested values on lines of their own.
    public let pretty: Bool
    private var depth = 0
    /// Bit `depth` is set while the innermost open container has no member yet.
    private var empty: UInt64 = 0
    /// A key was just written: the next value follows it on the same line.
    private var afterKey = false

    public init(pretty: Bool = false, capacity: Int = 4096) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// The JSON as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Containers

    public mutating func beginObject() { beginValue(); open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { beginValue(); open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Starts the member `name` of the open object; write its value next.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) { beginValue(); appendQuoted(value) }
    public mutating func string(_ value: String?) { value.map { string($0) } ?? null() }
    public mutating func int(_ value: Int) { beginValue(); appendInteger(Int64(value)) }
    public mutating func bool(_ value: Bool) { beginValue(); appendLiteral(value ? "true" : "false") }
    public mutating func null() { beginValue(); appendLiteral("null") }

    public mutating func double(_ value: Double) {
        beginValue()
        guard value.isFinite else { return appendLiteral("null") }
        if value == value.rounded() && abs(value) < 1e15 {
            appendInteger(Int64(value))
        } else {
            var text = value.description
            text.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    /// A value rounded to the millimetre, as distances are written.
    public mutating func meters(_ value: Double) { double((value * 1000).rounded() / 1000) }

    /// Copies already-encoded JSON (one whole value) in place.
    public mutating func raw(_ json: [UInt8]) { beginValue(); bytes.append(contentsOf: json) }

    /// `"key": value` for a string that is present; nothing when it is nil.
    public mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    // MARK: Internals

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        depth += 1
        precondition(depth < 64, "JSON nested deeper than 63 levels")
        empty |= 1 << UInt64(depth)
    }

    private mutating func close(_ bracket: UInt8) {
        let wasEmpty = empty & (1 << UInt64(depth)) != 0
        empty &= ~(1 << UInt64(depth))
        depth -= 1
        if pretty && !wasEmpty { newline() }
        bytes.append(bracket)
    }

    /// Before a value: the separator and indentation, unless it follows a key.
    private mutating func beginValue() {
        if afterKey { afterKey = false; return }
        if depth > 0 { separate() }
    }

    private mutating func separate() {
        let bit: UInt64 = 1 << UInt64(depth)
        if empty & bit != 0 { empty &= ~bit } else { bytes.append(UInt8(ascii: ",")) }
        if pretty { newline() }
    }

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<depth { bytes.append(UInt8(ascii: " ")); bytes.append(UInt8(ascii: " ")) }
    }

    private mutating func appendLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendInteger(_ value: Int64) {
        if value == 0 { bytes.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 24 digits, written backwards
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(24 - count)...])
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                              Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 15)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
