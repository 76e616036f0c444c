import Foundation

/// A place identifier namespaced by its source: `source:localId`.
///
/// Examples: `geonames:2988507`, `airport:LFPG`, `osm:n123`, `yelp:abc`, `gem:42`. The source is
/// lower-case ASCII letters, digits, `-` and `_`; the local id is any non-empty text (it may
/// itself contain `:`).
public struct PlaceID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The full `source:localId` text.
    public let rawValue: String
    /// Number of UTF-8 bytes before the first `:`.
    private let sourceLength: Int

    /// Parses `source:localId`.
    /// - Throws: ``PlaceModelError/invalidPlaceID(_:)``.
    public init(_ rawValue: String) throws {
        var text = rawValue
        let colon: Int? = text.withUTF8 { bytes in
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1,
                bytes[..<colon].allSatisfy(PlaceID.isSourceByte)
            else { return nil }
            return colon
        }
        guard let colon else { throw PlaceModelError.invalidPlaceID(rawValue) }
        self.rawValue = text
        self.sourceLength = colon
    }

    /// An id read back from storage that validated it on the way in. Checked in debug builds.
    public init(trustedRawValue rawValue: String) {
        var colon = 0
        for byte in rawValue.utf8 {
            if byte == UInt8(ascii: ":") { break }
            colon += 1
        }
        assert(colon > 0 && colon < rawValue.utf8.count - 1, "invalid stored place id \(rawValue)")
        self.rawValue = rawValue
        self.sourceLength = colon
    }

    /// Builds an id from a source and a local id.
    /// - Throws: ``PlaceModelError/invalidPlaceID(_:)`` if either part is unusable.
    public init(source: String, localID: String) throws {
        try self.init(source + ":" + localID)
    }

    private static func isSourceByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
    }

    /// The namespace: `geonames` in `geonames:2988507`.
    public var source: String { String(decoding: rawValue.utf8.prefix(sourceLength), as: UTF8.self) }
    /// The id within the source: `2988507` in `geonames:2988507`.
    public var localID: String { String(decoding: rawValue.utf8.dropFirst(sourceLength + 1), as: UTF8.self) }

    /// Whether the namespace is `source`, compared without building the ``source`` string.
    public func hasSource(_ source: String) -> Bool {
        let utf8 = rawValue.utf8
        return source.utf8.count == sourceLength && utf8.prefix(sourceLength).elementsEqual(source.utf8)
    }

    /// Whether the id within the source is `localID`, compared without building ``localID``.
    public func hasLocalID(_ localID: String) -> Bool {
        let utf8 = rawValue.utf8
        return localID.utf8.count == utf8.count - sourceLength - 1 && utf8.dropFirst(sourceLength + 1).elementsEqual(localID.utf8)
    }

    public var description: String { rawValue }

    /// Ordered by the UTF-8 bytes of the raw value, like SQLite's BINARY collation, so that the
    /// order in Swift and in the index agree.
    public static func < (lhs: PlaceID, rhs: PlaceID) -> Bool {
        PlaceID.utf8Precedes(lhs.rawValue, rhs.rawValue)
    }

    /// Byte-wise UTF-8 order (SQLite's BINARY collation), by `memcmp` on contiguous storage.
    public static func utf8Precedes(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs, right = rhs
        return left.withUTF8 { a in
            right.withUTF8 { b in
                let common = min(a.count, b.count)
                if common > 0 {
                    let order = memcmp(a.baseAddress!, b.baseAddress!, common)
                    if order != 0 { return order < 0 }
                }
                return a.count < b.count
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
