import Foundation

/// Writes JSON straight into a byte buffer, members in the order they are written, compact or
/// indented by two spaces.
///
/// Answers are made of many small values (a few hundred places of a dozen fields each), so the
/// writer builds no tree and no intermediate strings: each value is appended as UTF-8 where it
/// is written. Numbers are written as ``OrderedJSON`` writes them (integral doubles without a
/// fraction, others in Swift's shortest round-trip form, non-finite ones as `null`).
///
/// The bytes live in a buffer the writer owns and grows by doubling; appending checks no
/// copy-on-write uniqueness and makes no generic calls. A copy of a writer shares its buffer:
/// keep one writer per document.
public struct JSONWriter {
    /// Growable bytes, freed with the last writer that holds them. The fields sit behind a
    /// pointer rather than in class properties: a class's `var`s are checked for exclusive
    /// access at run time on every append, which cost more than the appends themselves.
    final class Buffer {
        struct State {
            var base: UnsafeMutablePointer<UInt8>
            var count: Int
            var capacity: Int
        }

        let state: UnsafeMutablePointer<State>

        init(capacity: Int) {
            let capacity = max(64, capacity)
            state = .allocate(capacity: 1)
            state.initialize(to: State(base: .allocate(capacity: capacity), count: 0, capacity: capacity))
        }

        deinit {
            state.pointee.base.deallocate()
            state.deallocate()
        }

        var base: UnsafeMutablePointer<UInt8> { state.pointee.base }
        var count: Int { state.pointee.count }

        @inline(__always)
        func reserve(_ extra: Int) {
            let needed = state.pointee.count + extra
            guard needed > state.pointee.capacity else { return }
            let grown = max(state.pointee.capacity * 2, needed)
            let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            fresh.update(from: state.pointee.base, count: state.pointee.count)
            state.pointee.base.deallocate()
            state.pointee.base = fresh
            state.pointee.capacity = grown
        }

        @inline(__always)
        func append(_ byte: UInt8) {
            reserve(1)
            state.pointee.base[state.pointee.count] = byte
            state.pointee.count += 1
        }

        @inline(__always)
        func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let start = bytes.baseAddress, bytes.count > 0 else { return }
            reserve(bytes.count)
            (state.pointee.base + state.pointee.count).update(from: start, count: bytes.count)
            state.pointee.count += bytes.count
        }

        func append(contentsOf array: [UInt8]) { array.withUnsafeBufferPointer { append($0) } }

        /// `"name":` (and a space when `spaced`), with one capacity check for all of it.
        @inline(__always)
        func appendKey(_ name: UnsafeBufferPointer<UInt8>, spaced: Bool) {
            reserve(name.count + 4)
            let start = state.pointee.base + state.pointee.count
            start[0] = UInt8(ascii: "\"")
            if let bytes = name.baseAddress { (start + 1).update(from: bytes, count: name.count) }
            start[name.count + 1] = UInt8(ascii: "\"")
            start[name.count + 2] = UInt8(ascii: ":")
            if spaced { start[name.count + 3] = UInt8(ascii: " ") }
            state.pointee.count += name.count + (spaced ? 4 : 3)
        }
    }

    private let buffer: Buffer
    /// Indent nested values on lines of their own.
    public let pretty: Bool
    private var depth = 0
    /// Bit `depth` is set while the innermost open container has no member yet.
    private var empty: UInt64 = 0
    /// A key was just written: the next value follows it on the same line.
    private var afterKey = false

    public init(pretty: Bool = false, capacity: Int = 4096) {
        self.pretty = pretty
        buffer = Buffer(capacity: capacity)
    }

    /// The JSON written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: buffer.base, count: buffer.count)) }

    /// The JSON written so far, without copying it.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: buffer.base, count: buffer.count))
    }

    /// How many bytes are written and not yet drained.
    public var count: Int { buffer.count }

    /// Hands the bytes written so far to `body` and empties the buffer, keeping where the writer
    /// is (open containers, a pending comma): for answers sent in pieces as they are written.
    public mutating func drain<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        defer { buffer.state.pointee.count = 0 }
        return try body(UnsafeRawBufferPointer(start: buffer.base, count: buffer.count))
    }

    /// The JSON as a string.
    public var text: String { String(decoding: UnsafeBufferPointer(start: buffer.base, count: buffer.count), as: UTF8.self) }

    // MARK: Containers

    public mutating func beginObject() {
        beginValue()
        open(UInt8(ascii: "{"))
    }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() {
        beginValue()
        open(UInt8(ascii: "["))
    }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Starts the member `name` of the open object; write its value next. For names written in
    /// code: they are copied as they are, without looking for characters to escape.
    public mutating func key(_ name: StaticString) {
        separate()
        if name.hasPointerRepresentation {
            // Straight from the literal's bytes: a closure here retained the buffer for every key.
            buffer.appendKey(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), spaced: pretty)
        } else {
            let spaced = pretty, buffer = self.buffer
            name.withUTF8Buffer { buffer.appendKey($0, spaced: spaced) }
        }
        afterKey = true
    }

    /// Starts the member `name` of the open object, for names from data (tags, providers).
    public mutating func key(dynamic name: String) {
        separate()
        appendQuoted(name)
        buffer.append(UInt8(ascii: ":"))
        if pretty { buffer.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        beginValue()
        appendQuoted(value)
    }
    public mutating func string(_ value: String?) { value.map { string($0) } ?? null() }
    public mutating func int(_ value: Int) {
        beginValue()
        appendInteger(Int64(value))
    }
    public mutating func bool(_ value: Bool) {
        beginValue()
        appendLiteral(value ? "true" : "false")
    }
    public mutating func null() {
        beginValue()
        appendLiteral("null")
    }

    public mutating func double(_ value: Double) {
        beginValue()
        guard value.isFinite else { return appendLiteral("null") }
        if value == value.rounded() && abs(value) < 1e15 {
            appendInteger(Int64(value))
        } else if !appendShortDecimal(value) {
            var text = value.description
            text.withUTF8 { buffer.append($0) }
        }
    }

    /// Writes a value with at most nine decimals as `Double.description` would (its shortest
    /// round-trip digits), without the `String` that allocates for most coordinates; false
    /// when the value needs more decimals or lies outside 1e-4…1e6 (left to `description`).
    ///
    /// An integer m gives back the value as m / 10^9 exactly when the value has a decimal form
    /// of at most nine decimals: m and 10^9 are exact doubles, so m / 10^9 is the correctly
    /// rounded value of that decimal, as parsing it would be. |value| < 1e6 keeps m below
    /// 2^51, where rounding value × 10^9 finds m exactly, and at most one m can round to the
    /// value, as 10^-9 is wider than a double's spacing there. m without its trailing zeros is
    /// then the shortest form: a form with fewer decimals would be m with more zeros.
    @inline(__always)
    private mutating func appendShortDecimal(_ value: Double) -> Bool {
        let magnitude = abs(value)
        guard magnitude >= 1e-4 && magnitude < 1e6 else { return false }
        let scaled = (magnitude * 1e9).rounded()
        guard scaled / 1e9 == magnitude else { return false }
        var digits = UInt64(scaled)
        var decimals = 9
        while digits % 10 == 0 && decimals > 1 {
            digits /= 10
            decimals -= 1
        }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        // Up to 16 digits and a point, written backwards.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &text) { bytes in
            for _ in 0..<decimals {
                bytes[23 - count] = UInt8(ascii: "0") + UInt8(digits % 10)
                digits /= 10
                count += 1
            }
            bytes[23 - count] = UInt8(ascii: ".")
            count += 1
            repeat {
                bytes[23 - count] = UInt8(ascii: "0") + UInt8(digits % 10)
                digits /= 10
                count += 1
            } while digits > 0
            buffer.append(UnsafeRawBufferPointer(rebasing: bytes[(24 - count)...]).bindMemory(to: UInt8.self))
        }
        return true
    }

    /// A value rounded to the millimetre, as distances are written.
    public mutating func meters(_ value: Double) { double((value * 1000).rounded() / 1000) }

    /// An ISO 8601 UTC timestamp string (``Timestamp/iso8601(_:)``), written digit by digit.
    public mutating func timestamp(_ date: Date) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        beginValue()
        buffer.append(UInt8(ascii: "\""))
        if let bytes = Timestamp.utf8(seconds: seconds) {
            Swift.withUnsafeBytes(of: bytes) { buffer.append($0.assumingMemoryBound(to: UInt8.self)) }
        } else {
            var text = Timestamp.iso8601(date)
            text.withUTF8 { buffer.append($0) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// `"key": value` for a string that is present; nothing when it is nil.
    public mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    /// A GeoJSON Point feature, longitude first; `properties` writes the properties object.
    public mutating func pointFeature(id: String, longitude: Double, latitude: Double, properties: (inout JSONWriter) -> Void) {
        beginObject()
        key("type")
        string("Feature")
        key("id")
        string(id)
        key("geometry")
        beginObject()
        key("type")
        string("Point")
        key("coordinates")
        beginArray()
        double(longitude)
        double(latitude)
        endArray()
        endObject()
        key("properties")
        properties(&self)
        endObject()
    }

    // MARK: Internals

    private mutating func open(_ bracket: UInt8) {
        buffer.append(bracket)
        depth += 1
        precondition(depth < 64, "JSON nested deeper than 63 levels")
        empty |= 1 << UInt64(depth)
    }

    private mutating func close(_ bracket: UInt8) {
        let wasEmpty = empty & (1 << UInt64(depth)) != 0
        empty &= ~(1 << UInt64(depth))
        depth -= 1
        if pretty && !wasEmpty { newline() }
        buffer.append(bracket)
    }

    /// Before a value: the separator and indentation, unless it follows a key.
    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if depth > 0 { separate() }
    }

    private mutating func separate() {
        let bit: UInt64 = 1 << UInt64(depth)
        if empty & bit != 0 { empty &= ~bit } else { buffer.append(UInt8(ascii: ",")) }
        if pretty { newline() }
    }

    private mutating func newline() {
        buffer.append(UInt8(ascii: "\n"))
        for _ in 0..<depth {
            buffer.append(UInt8(ascii: " "))
            buffer.append(UInt8(ascii: " "))
        }
    }

    private mutating func appendLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { buffer.append($0) }
    }

    private mutating func appendInteger(_ value: Int64) {
        if value == 0 {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 24 digits, written backwards
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            let digits = UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]).bindMemory(to: UInt8.self)
            self.buffer.append(digits)
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A string value from UTF-8 bytes (which must be valid UTF-8).
    public mutating func string(utf8 bytes: UnsafeRawBufferPointer) {
        beginValue()
        appendQuoted(utf8: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Starts the member named by UTF-8 bytes (valid UTF-8) of the open object.
    public mutating func key(utf8 bytes: UnsafeRawBufferPointer) {
        separate()
        appendQuoted(utf8: bytes.assumingMemoryBound(to: UInt8.self))
        buffer.append(UInt8(ascii: ":"))
        if pretty { buffer.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    private mutating func appendQuoted(_ text: String) {
        var text = text
        text.withUTF8 { appendQuoted(utf8: $0) }
    }

    private mutating func appendQuoted(utf8: UnsafeBufferPointer<UInt8>) {
        // The closing quote is appended at each end rather than by a `defer`, which was outlined
        // into a function that retained the buffer for every string.
        buffer.append(UInt8(ascii: "\""))
        // Most text needs no escape: one scan, one copy.
        var clean = true
        for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            clean = false
            break
        }
        if clean {
            buffer.append(utf8)
            buffer.append(UInt8(ascii: "\""))
            return
        }
        var start = 0
        for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            buffer.append(UnsafeBufferPointer(rebasing: utf8[start..<index]))
            start = index + 1
            buffer.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(byte)
            case UInt8(ascii: "\n"): buffer.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): buffer.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): buffer.append(UInt8(ascii: "t"))
            default:
                for escaped in [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 15)]] {
                    buffer.append(escaped)
                }
            }
        }
        buffer.append(UnsafeBufferPointer(rebasing: utf8[start...]))
        buffer.append(UInt8(ascii: "\""))
    }
}
