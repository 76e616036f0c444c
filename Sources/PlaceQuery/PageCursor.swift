import Foundation

/// The position after the last place of a page: its sort key (distance bits and id) and a
/// fingerprint of the query it belongs to, so a cursor cannot silently be used with another
/// query. Encoded as base64url text, opaque to callers.
///
/// Every store uses this one format, so a cursor means the same on every backend: keyset
/// paging on (distance, id), or on id alone for box queries.
public struct PageCursor: Equatable, Sendable {
    /// Distance in metres of the last place (0 for box queries, which sort by id alone).
    public var distance: Double
    public var id: String
    public var queryFingerprint: UInt64

    /// The cursor as opaque base64url text.
    public func encoded() -> String {
        var bytes = [UInt8]()
        withUnsafeBytes(of: distance.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: queryFingerprint.bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: id.utf8)
        return Base64URL.encode(bytes)
    }

    public init(distance: Double, id: String, queryFingerprint: UInt64) {
        self.distance = distance
        self.id = id
        self.queryFingerprint = queryFingerprint
    }

    /// Decodes a cursor and checks it belongs to the query with `fingerprint`.
    /// - Throws: ``PlaceQueryError/invalidCursor(_:reason:)``.
    public init(decoding text: String, expectedFingerprint fingerprint: UInt64) throws {
        guard let bytes = Base64URL.decode(text), bytes.count > 16 else {
            throw PlaceQueryError.invalidCursor(text, reason: "it is not a cursor this index issued")
        }
        let distanceBits = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let stored = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard stored == fingerprint else {
            throw PlaceQueryError.invalidCursor(text, reason: "it belongs to a different query")
        }
        distance = Double(bitPattern: distanceBits)
        id = String(decoding: bytes[16...], as: UTF8.self)
        queryFingerprint = stored
        guard distance.isFinite, distance >= 0 else {
            throw PlaceQueryError.invalidCursor(text, reason: "it is damaged")
        }
    }

    /// FNV-1a over a canonical description of the query.
    public static func fingerprint(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{1F}").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}

/// Unpadded base64url (RFC 4648 §5), byte by byte: Foundation's encoder plus three
/// `replacingOccurrences` cost more per page than writing the page's cursor should.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` as unpadded base64url text.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            out.append(alphabet[Int(value >> 6 & 63)])
            out.append(alphabet[Int(value & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(value >> 18 & 63)])
            out.append(alphabet[Int(value >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(value >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of base64url text (the standard alphabet's `+` and `/` and trailing `=`
    /// padding accepted too), or nil when it is not base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var symbols = Array(text.utf8)
        var padding = 0
        while symbols.last == UInt8(ascii: "=") && padding < 2 {
            symbols.removeLast()
            padding += 1
        }
        if padding > 0 && (symbols.count + padding) % 4 != 0 { return nil }
        guard symbols.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(symbols.count * 3 / 4)
        var accumulator: UInt32 = 0, bits = 0
        for symbol in symbols {
            let value: UInt8
            switch symbol {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = symbol - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = symbol - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = symbol - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }
}
