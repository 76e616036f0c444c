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
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public init(distance: Double, id: String, queryFingerprint: UInt64) {
        self.distance = distance
        self.id = id
        self.queryFingerprint = queryFingerprint
    }

    /// Decodes a cursor and checks it belongs to the query with `fingerprint`.
    /// - Throws: ``PlaceQueryError/invalidCursor(_:reason:)``.
    public init(decoding text: String, expectedFingerprint fingerprint: UInt64) throws {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), data.count > 16 else {
            throw PlaceQueryError.invalidCursor(text, reason: "it is not a cursor this index issued")
        }
        let bytes = [UInt8](data)
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
