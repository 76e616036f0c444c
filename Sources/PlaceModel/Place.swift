import Foundation
import GeoCore

/// One place, whatever it came from: a dump reader, a provider adapter or a user's hidden gem.
///
/// Missing values are `nil` (or empty collections), never a made-up default.
///
/// `Place` is a value type with copy-on-write storage: copying one (into an answer, a sorted
/// array) costs a reference-count increment, not a copy of its dozen fields; the first
/// mutation of a shared copy copies the fields once.
public struct Place: Sendable, Hashable, Codable, Identifiable {
    /// The stored fields; `Place` forwards to them.
    struct Fields: Sendable, Hashable, Codable {
        var id: PlaceID
        var name: String
        var coordinate: Coordinate
        var categories: [Category]
        var address: Address?
        var rating: Rating?
        var priceLevel: PriceLevel?
        var phone: String?
        var website: String?
        var openingHours: OpeningHours?
        var photos: [PhotoReference]
        var provenance: Provenance
        var tags: [String: String]
        var gem: HiddenGem?
        var region: PlaceRegion?
        var timeZone: String?
    }

    // @unchecked Sendable: `fields` is mutated only through `Place`'s setters, and only after
    // `isKnownUniquelyReferenced` proved no other `Place` (on any thread) shares the box.
    final class Storage: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    public init(
        id: PlaceID, name: String, coordinate: Coordinate, categories: [Category] = [],
        address: Address? = nil, rating: Rating? = nil, priceLevel: PriceLevel? = nil,
        phone: String? = nil, website: String? = nil, openingHours: OpeningHours? = nil,
        photos: [PhotoReference] = [], provenance: Provenance? = nil,
        tags: [String: String] = [:], gem: HiddenGem? = nil, region: PlaceRegion? = nil,
        timeZone: String? = nil
    ) {
        storage = Storage(
            Fields(
                id: id, name: name, coordinate: coordinate, categories: categories, address: address,
                rating: rating, priceLevel: priceLevel, phone: phone, website: website,
                openingHours: openingHours, photos: photos,
                provenance: provenance ?? Provenance(source: id.source, sourceID: id.localID),
                tags: tags, gem: gem, region: region, timeZone: timeZone))
    }

    public var id: PlaceID {
        get { storage.fields.id }
        set { unique().fields.id = newValue }
    }
    public var name: String {
        get { storage.fields.name }
        set { unique().fields.name = newValue }
    }
    public var coordinate: Coordinate {
        get { storage.fields.coordinate }
        set { unique().fields.coordinate = newValue }
    }
    /// Categories in the common taxonomy, most specific first as the source gave them.
    public var categories: [Category] {
        get { storage.fields.categories }
        set { unique().fields.categories = newValue }
    }
    public var address: Address? {
        get { storage.fields.address }
        set { unique().fields.address = newValue }
    }
    public var rating: Rating? {
        get { storage.fields.rating }
        set { unique().fields.rating = newValue }
    }
    public var priceLevel: PriceLevel? {
        get { storage.fields.priceLevel }
        set { unique().fields.priceLevel = newValue }
    }
    public var phone: String? {
        get { storage.fields.phone }
        set { unique().fields.phone = newValue }
    }
    public var website: String? {
        get { storage.fields.website }
        set { unique().fields.website = newValue }
    }
    public var openingHours: OpeningHours? {
        get { storage.fields.openingHours }
        set { unique().fields.openingHours = newValue }
    }
    public var photos: [PhotoReference] {
        get { storage.fields.photos }
        set { unique().fields.photos = newValue }
    }
    public var provenance: Provenance {
        get { storage.fields.provenance }
        set { unique().fields.provenance = newValue }
    }
    /// Free source tags (`iata`, `population`, `wikidata`…), text values.
    public var tags: [String: String] {
        get { storage.fields.tags }
        set { unique().fields.tags = newValue }
    }
    /// Set for user-submitted hidden gems.
    public var gem: HiddenGem? {
        get { storage.fields.gem }
        set { unique().fields.gem = newValue }
    }

    /// The country and continent the place lies in, decided from country boundaries when the
    /// place was imported (not the source's own address, which ``address`` keeps).
    public var region: PlaceRegion? {
        get { storage.fields.region }
        set { unique().fields.region = newValue }
    }
    /// The place's IANA time zone (`Europe/Paris`): the source's, or the nearest city's in the
    /// same country when the place was imported. Opening hours are read in it.
    public var timeZone: String? {
        get { storage.fields.timeZone }
        set { unique().fields.timeZone = newValue }
    }

    /// Whether any of the place's categories is within `category` (a parent matches children).
    public func isIn(_ category: Category) -> Bool {
        storage.fields.categories.contains { $0.isWithin(category) }
    }

    public static func == (lhs: Place, rhs: Place) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }

    public init(from decoder: any Decoder) throws {
        storage = Storage(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws { try storage.fields.encode(to: encoder) }
}

/// Address parts; any may be missing.
public struct Address: Sendable, Hashable, Codable {
    public var street: String?
    public var locality: String?
    public var region: String?
    public var postcode: String?
    /// ISO 3166-1 alpha-2, upper case (`FR`, `NA` for Namibia).
    public var countryCode: String?
    /// The source's own one-line address.
    public var formatted: String?

    public init(
        street: String? = nil, locality: String? = nil, region: String? = nil,
        postcode: String? = nil, countryCode: String? = nil, formatted: String? = nil
    ) {
        self.street = street
        self.locality = locality
        self.region = region
        self.postcode = postcode
        self.countryCode = countryCode
        self.formatted = formatted
    }

    /// True when every part is nil.
    public var isEmpty: Bool {
        street == nil && locality == nil && region == nil && postcode == nil && countryCode == nil && formatted == nil
    }
}

/// A rating normalised to 0–5, keeping the source's own value scale and count.
public struct Rating: Sendable, Hashable, Codable {
    /// 0...5.
    public let value: Double
    /// How many ratings it summarises, when the source says.
    public let count: Int?
    /// The top of the source's scale: 5 for Google and Yelp, 10 for Foursquare.
    public let originalScale: Double

    /// Creates a rating from a source value on `scale` (0...scale), normalised to 0–5.
    /// - Throws: ``PlaceModelError/invalidRating(_:scale:)``.
    public init(sourceValue: Double, scale: Double = 5, count: Int? = nil) throws {
        guard scale > 0, sourceValue.isFinite, sourceValue >= 0, sourceValue <= scale else {
            throw PlaceModelError.invalidRating(sourceValue, scale: scale)
        }
        self.value = sourceValue / scale * 5
        self.count = count
        self.originalScale = scale
    }

    /// Creates a rating from an already normalised 0–5 value (as stored by an index).
    /// - Throws: ``PlaceModelError/invalidRating(_:scale:)``.
    public init(normalizedValue: Double, count: Int?, originalScale: Double) throws {
        guard originalScale > 0, normalizedValue.isFinite, (0...5).contains(normalizedValue) else {
            throw PlaceModelError.invalidRating(normalizedValue, scale: 5)
        }
        self.value = normalizedValue
        self.count = count
        self.originalScale = originalScale
    }

    /// The value on the source's own scale.
    public var sourceValue: Double { value / 5 * originalScale }
}

/// Price level 1 (inexpensive) to 4 (very expensive).
public struct PriceLevel: Sendable, Hashable, Comparable, Codable {
    public let level: Int

    /// - Throws: ``PlaceModelError/invalidPriceLevel(_:)`` outside 1...4.
    public init(_ level: Int) throws {
        guard (1...4).contains(level) else { throw PlaceModelError.invalidPriceLevel(level) }
        self.level = level
    }

    public static func < (lhs: PriceLevel, rhs: PriceLevel) -> Bool { lhs.level < rhs.level }

    public init(from decoder: any Decoder) throws { try self.init(try decoder.singleValueContainer().decode(Int.self)) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(level)
    }
}

/// Opening hours: the source's text and, where it could be read, weekly periods.
public struct OpeningHours: Sendable, Hashable, Codable {
    /// The source's own text, e.g. OSM's `Mo-Fr 09:00-18:00`.
    public var text: String?
    public var periods: [Period]

    /// One opening interval; days count from Monday = 1 to Sunday = 7 (ISO 8601), minutes from
    /// midnight. A period that closes after midnight has `closeDay` the next day.
    public struct Period: Sendable, Hashable, Codable {
        public var openDay: Int
        public var openMinute: Int
        public var closeDay: Int
        public var closeMinute: Int

        public init(openDay: Int, openMinute: Int, closeDay: Int, closeMinute: Int) {
            self.openDay = openDay
            self.openMinute = openMinute
            self.closeDay = closeDay
            self.closeMinute = closeMinute
        }
    }

    public init(text: String? = nil, periods: [Period] = []) {
        self.text = text
        self.periods = periods
    }
}

/// A photo: a fetchable URL or a provider reference to resolve later.
public struct PhotoReference: Sendable, Hashable, Codable {
    public var url: String?
    public var reference: String?
    public var width: Int?
    public var height: Int?
    public var attribution: String?

    public init(
        url: String? = nil, reference: String? = nil, width: Int? = nil, height: Int? = nil,
        attribution: String? = nil
    ) {
        self.url = url
        self.reference = reference
        self.width = width
        self.height = height
        self.attribution = attribution
    }
}

/// Where a place's data came from and when.
public struct Provenance: Sendable, Hashable, Codable {
    /// `geonames`, `airport`, `osm`, `yelp`, `gem`…
    public var source: String
    /// The id within that source.
    public var sourceID: String
    /// When it was fetched from a provider.
    public var fetchedAt: Date?
    /// When it was imported from a dump.
    public var importedAt: Date?

    public init(source: String, sourceID: String, fetchedAt: Date? = nil, importedAt: Date? = nil) {
        self.source = source
        self.sourceID = sourceID
        self.fetchedAt = fetchedAt
        self.importedAt = importedAt
    }
}

/// The part of a place only user-submitted hidden gems have: who made it and who may see it.
public struct HiddenGem: Sendable, Hashable, Codable {
    /// Who may see a gem.
    public enum Visibility: String, Sendable, Hashable, Codable, CaseIterable {
        /// Only the owner: listed in the owner's own queries, unknown to everyone else.
        case `private`
        /// The owner and the owner's accepted friends (listed and reachable as private to
        /// everyone else).
        case friends
        /// Everyone who has its id; never listed in any query (a link to share).
        case unlisted
        /// Everyone, in every query.
        case `public`
    }

    /// The owner's username.
    public var owner: String
    public var visibility: Visibility
    /// What makes the place worth a visit, in the owner's words.
    public var description: String?
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(
        owner: String, visibility: Visibility, description: String? = nil,
        createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.owner = owner
        self.visibility = visibility
        self.description = description
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether a query by `viewer` (a username; nil for anonymous) lists the gem: public gems
    /// for everyone, private gems for their owner, friends-only gems for their owner and the
    /// owner's accepted friends (`viewerFriends`, the viewer's friends' usernames), unlisted
    /// gems for no one.
    public func isListed(to viewer: String?, viewerFriends: [String] = []) -> Bool {
        switch visibility {
        case .public: return true
        case .private: return viewer != nil && viewer == owner
        case .friends: return viewer != nil && (viewer == owner || viewerFriends.contains(owner))
        case .unlisted: return false
        }
    }

    /// Whether `viewer` may open the gem by its id: anyone for public and unlisted gems, the
    /// owner alone for private ones, the owner and their friends for friends-only ones.
    public func isReachable(by viewer: String?, viewerFriends: [String] = []) -> Bool {
        switch visibility {
        case .public, .unlisted: return true
        case .private: return viewer != nil && viewer == owner
        case .friends: return viewer != nil && (viewer == owner || viewerFriends.contains(owner))
        }
    }
}
