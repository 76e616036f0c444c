/// A bounds-checked reader of Protocol Buffers wire format over borrowed bytes: every read
/// checks what is left, so a hostile length or a truncated message is an error, never a read
/// past the buffer. Only what OSM PBF uses: varints, zigzag, length-delimited fields and packed
/// repeated varints.
struct ProtobufReader {
    struct Malformed: Error { var reason: String }

    enum WireType: UInt64 { case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5 }

    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    /// The next field's number and wire type, or nil at the end of the message.
    mutating func nextField() throws(Malformed) -> (number: Int, type: WireType)? {
        guard !isAtEnd else { return nil }
        let key = try varint()
        guard let type = WireType(rawValue: key & 7) else { throw Malformed(reason: "unsupported wire type \(key & 7)") }
        let number = key >> 3
        guard number > 0, number < 1 << 29 else { throw Malformed(reason: "field number \(number) is invalid") }
        return (Int(number), type)
    }

    @inline(__always)
    mutating func varint() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw Malformed(reason: "a varint runs past the end of its message") }
            let byte = bytes[offset]
            offset += 1
            guard shift < 64 else { throw Malformed(reason: "a varint is longer than 10 bytes") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    @inline(__always)
    mutating func signedVarint() throws(Malformed) -> Int64 { ProtobufReader.zigzag(try varint()) }

    @inline(__always)
    static func zigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1))) }

    /// The bytes of a length-delimited field.
    mutating func lengthDelimited() throws(Malformed) -> UnsafeRawBufferPointer {
        let length = try varint()
        guard length <= UInt64(bytes.count - offset) else {
            throw Malformed(reason: "a field of \(length) bytes runs past the end of its message (\(bytes.count - offset) left)")
        }
        defer { offset += Int(length) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))])
    }

    /// Skips a field of `type`.
    mutating func skip(_ type: WireType) throws(Malformed) {
        switch type {
        case .varint: _ = try varint()
        case .lengthDelimited: _ = try lengthDelimited()
        case .fixed64, .fixed32:
            let size = type == .fixed64 ? 8 : 4
            guard bytes.count - offset >= size else { throw Malformed(reason: "a fixed field runs past the end of its message") }
            offset += size
        }
    }

    /// Every varint of a packed field (or the one of an unpacked field), through `body`.
    static func forEachPacked(
        _ type: WireType, reader: inout ProtobufReader,
        _ body: (UInt64) throws(Malformed) -> Void
    ) throws(Malformed) {
        if type == .varint {
            try body(try reader.varint())
            return
        }
        guard type == .lengthDelimited else { throw Malformed(reason: "a repeated number has wire type \(type.rawValue)") }
        var packed = ProtobufReader(try reader.lengthDelimited())
        while !packed.isAtEnd { try body(try packed.varint()) }
    }
}
