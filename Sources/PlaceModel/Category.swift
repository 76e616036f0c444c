/// A category of GeoQuery's taxonomy (``taxonomy`` lists it, closed): dotted ids, top level first.
///
/// Top levels: `food`, `drink`, `lodging`, `culture`, `historic`, `landmark`, `nature`, `water`,
/// `activity`, `shopping`, `transport`, `religious`, `city`, `service`; subcategories such as
/// `water.beach`, `historic.castle`, `transport.airport`. A parent matches its children:
/// filtering by `transport` finds `transport.airport`.
public struct Category: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The dotted id, e.g. `water.beach`.
    public let identifier: String

    /// The top-level categories, in display order.
    public static let topLevelIdentifiers = tree.map(\.topLevel)

    /// A category of the taxonomy (``taxonomy`` lists them all).
    /// - Throws: ``PlaceModelError/invalidCategory(_:)``, whose message lists what is valid.
    public init(_ identifier: String) throws {
        guard Category.isInTaxonomy(identifier) else { throw PlaceModelError.invalidCategory(identifier) }
        self.identifier = identifier
    }

    /// A well-formed dotted id (lower-case segments of letters, digits and `_`, the first a top
    /// level), in the taxonomy or not: what an earlier version may have stored.
    init(wellFormed identifier: String) throws {
        let segments = identifier.split(separator: ".", omittingEmptySubsequences: false)
        guard let top = segments.first, Category.topLevelIdentifiers.contains(String(top)),
            segments.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(Category.isSegmentByte) })
        else {
            throw PlaceModelError.invalidCategory(identifier)
        }
        self.identifier = identifier
    }

    private static func isSegmentByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
    }

    /// The top-level category (`water` for `water.beach`).
    public var topLevel: Category {
        guard let dot = identifier.firstIndex(of: ".") else { return self }
        return Category(trustedIdentifier: String(identifier[..<dot]))
    }

    /// The direct parent, or nil for a top level.
    public var parent: Category? {
        guard let dot = identifier.lastIndex(of: ".") else { return nil }
        return Category(trustedIdentifier: String(identifier[..<dot]))
    }

    /// Whether `self` is `other` or one of its descendants: `water.beach` is within `water`.
    public func isWithin(_ other: Category) -> Bool {
        identifier == other.identifier || identifier.hasPrefix(other.identifier + ".")
    }

    /// A category read back from storage that validated it on the way in.
    public init(trustedIdentifier identifier: String) { self.identifier = identifier }

    public var description: String { identifier }
    public static func < (lhs: Category, rhs: Category) -> Bool { lhs.identifier < rhs.identifier }

    /// Decodes any well-formed id, in the taxonomy or not: JSON may have been written by an
    /// earlier version whose taxonomy was open.
    public init(from decoder: any Decoder) throws {
        try self.init(wellFormed: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}

extension Category {
    public static let city = Category(trustedIdentifier: "city")
    public static let transport = Category(trustedIdentifier: "transport")
    public static let airport = Category(trustedIdentifier: "transport.airport")
    public static let food = Category(trustedIdentifier: "food")
    public static let water = Category(trustedIdentifier: "water")
    public static let beach = Category(trustedIdentifier: "water.beach")
    public static let historic = Category(trustedIdentifier: "historic")
    public static let castle = Category(trustedIdentifier: "historic.castle")
    public static let culture = Category(trustedIdentifier: "culture")
    public static let museum = Category(trustedIdentifier: "culture.museum")
}
