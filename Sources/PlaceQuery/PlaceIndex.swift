import Foundation
import GeoCore
import PlaceModel

/// A store of places that answers spatial queries exactly.
///
/// Semantics every implementation follows (DESIGN.md "Query semantics"):
/// - ``near(_:radius:filter:limit:cursor:)`` returns every place whose WGS84 ellipsoidal distance
///   (``Geodesic/distance(_:_:)``) to the centre is at most the radius — a place exactly on the
///   radius is in — sorted by distance, then by id.
/// - Filters apply before the limit; a page's ``PlacePage/nextCursor`` continues exactly after
///   its last place (keyset paging: no duplicates, no gaps).
/// - ``within(_:filter:limit:cursor:)`` returns the places inside a box (crossing the
///   antimeridian when `west > east`), sorted by id.
/// - ``nearest(_:count:maxDistance:filter:)`` returns the `count` nearest places.
///
/// Requirements are `async` so that networked implementations (PostGIS) fit the same protocol.
/// An implementation whose calls block (an embedded database) runs them on a thread pool of its
/// own, never on the caller's thread: callers are Swift's cooperative pool and a server's event
/// loops, which must not wait on disk.
///
/// The conformance suite (`PlaceQueryConformance`) checks every implementation against brute
/// force; an implementation that passes it answers like every other one.
public protocol PlaceIndex: Sendable {
    func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage
    func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage
    func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch]
    /// The places of the regions `filter` names (its ``PlaceFilter/countries`` and
    /// ``PlaceFilter/continents``; at least one must be given, or
    /// ``PlaceQueryError/invalidArgument(name:value:valid:)``), best first by ``PlaceRank``:
    /// highest rating, then most ratings, then id. Keyset-paged like the other queries; matches
    /// carry no distance. Worst case: one walk of the named regions' rank index (never of the
    /// whole index) when the other conditions match little.
    func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage
    func place(_ id: PlaceID) async throws -> Place?
    /// The places with these ids that the index holds, keyed by id: what ``place(_:)`` answers
    /// for each, in one read where the backend can (lists of favourites, route stops, a
    /// moderation page). Ids it does not hold are absent; a repeated id is looked up once.
    func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place]
    @discardableResult func upsert(_ places: [Place]) async throws -> Int
    @discardableResult func delete(_ ids: [PlaceID]) async throws -> Int
    func count(source: String?) async throws -> Int
}

extension PlaceIndex {
    /// One ``place(_:)`` per distinct id, for indexes with no cheaper way.
    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] {
        var found: [PlaceID: Place] = [:]
        for id in Set(ids) {
            if let place = try await place(id) { found[id] = place }
        }
        return found
    }
}

/// What a query keeps besides where a place is. Every condition must hold (AND); within one
/// list, any value may match (OR).
public struct PlaceFilter: Sendable, Hashable, Codable {
    /// Any of these categories; a parent matches its children (`transport` finds airports).
    public var categories: [Category]
    /// Words that must each begin a word of the name (`eiff tow` finds "Eiffel Tower"); case
    /// and diacritics are ignored (`sao` finds "São Paulo").
    public var text: String?
    /// Normalised 0–5 rating at least this; places without a rating are left out.
    public var minimumRating: Double?
    /// Price levels allowed; places without a price level are left out.
    public var priceLevels: ClosedRange<Int>?
    /// Any of these sources (`geonames`, `airport`, …).
    public var sources: [String]
    /// Any of these countries (ISO 3166-1 alpha-2, upper case), as ``Place/region`` has them;
    /// places in no country are left out.
    public var countries: [String]
    /// Any of these continents, as ``Place/region`` has them.
    public var continents: [Continent]
    /// Open at this instant, by the place's opening hours read in its time zone; places whose
    /// hours or time zone are not known are left out.
    public var openAt: Date?
    /// Who asks (a username; nil for an anonymous viewer), which decides the hidden gems a
    /// query lists (``HiddenGem/isListed(to:)``): public gems for everyone, private gems for
    /// their owner alone, unlisted gems for no one. Places that are not gems are not affected.
    /// Unlike the other conditions this one is never "off": a filter without a viewer lists
    /// public gems only.
    public var viewer: String?
    /// The viewer's accepted friends: their friends-only gems are listed to the viewer too.
    public var viewerFriends: [String] = []

    public init(
        categories: [Category] = [], text: String? = nil, minimumRating: Double? = nil,
        priceLevels: ClosedRange<Int>? = nil, sources: [String] = [], countries: [String] = [],
        continents: [Continent] = [], openAt: Date? = nil, viewer: String? = nil
    ) {
        self.categories = categories
        self.text = text
        self.minimumRating = minimumRating
        self.priceLevels = priceLevels
        self.sources = sources
        self.countries = countries
        self.continents = continents
        self.openAt = openAt
        self.viewer = viewer
    }

    /// No conditions.
    public static let none = PlaceFilter()

    /// True when nothing is filtered but gems by their visibility.
    public var isEmpty: Bool {
        categories.isEmpty && (text?.isEmpty ?? true) && minimumRating == nil && priceLevels == nil && sources.isEmpty
            && countries.isEmpty && continents.isEmpty && openAt == nil
    }

    /// Whether a place passes every condition but ``text`` (which needs the text index).
    public func matchesAttributes(of place: Place) -> Bool {
        if let gem = place.gem, !gem.isListed(to: viewer, viewerFriends: viewerFriends) { return false }
        if !categories.isEmpty && !categories.contains(where: place.isIn) { return false }
        if let minimumRating, (place.rating?.value ?? -1) < minimumRating { return false }
        if let priceLevels {
            guard let level = place.priceLevel?.level, priceLevels.contains(level) else { return false }
        }
        if !sources.isEmpty && !sources.contains(place.provenance.source) { return false }
        if !countries.isEmpty {
            guard let country = place.region?.countryCode, countries.contains(country) else { return false }
        }
        if !continents.isEmpty {
            guard let continent = place.region?.continent, continents.contains(continent) else { return false }
        }
        if let openAt, place.isOpen(at: openAt) != true { return false }
        return true
    }
}

extension PlaceFilter {
    /// A canonical text of every condition, for cursor fingerprints: two filters with the same
    /// description select the same places. An open filter's instant is left out (each page of an
    /// "open now" query is decided at its own request).
    public var canonicalDescription: String {
        [
            categories.map(\.identifier).sorted().joined(separator: ","),
            text ?? "", minimumRating.map { String($0) } ?? "",
            priceLevels.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "",
            sources.sorted().joined(separator: ","),
            countries.sorted().joined(separator: ","),
            continents.map(\.rawValue).sorted().joined(separator: ","),
            openAt == nil ? "" : "open", viewer ?? "", viewerFriends.sorted().joined(separator: ","),
        ].joined(separator: "|")
    }
}

extension PageCursor {
    /// The fingerprint of a ``PlaceIndex/near(_:radius:filter:limit:cursor:)`` query. Every
    /// implementation uses it, so a cursor one store issued continues the same query on another
    /// (a merged answer passes one cursor to each of its parts).
    public static func nearFingerprint(center: Coordinate, radius: Distance, filter: PlaceFilter) -> UInt64 {
        fingerprint(["near", center.description, String(radius.meters.bitPattern), filter.canonicalDescription])
    }

    /// The fingerprint of a ``PlaceIndex/ranked(filter:limit:cursor:)`` query.
    public static func rankedFingerprint(filter: PlaceFilter) -> UInt64 {
        fingerprint(["ranked", filter.canonicalDescription])
    }

    /// The fingerprint of a ``PlaceIndex/within(_:filter:limit:cursor:)`` query.
    public static func withinFingerprint(box: BoundingBox, filter: PlaceFilter) -> UInt64 {
        fingerprint(["within", box.description, filter.canonicalDescription])
    }
}

/// A place in an answer, with its distance from the query centre when there is one.
///
/// ``id``, ``name``, ``coordinate`` and ``distance`` are cheap. For matches a store hands out as
/// stored rows (``PlaceRowStorage``), ``place`` decodes every field from the row on each access
/// (keep the value if you use it more than once): a list of a thousand pins never pays for
/// opening hours it does not show.
public struct PlaceMatch: Sendable, Hashable {
    private enum Source: Sendable {
        case decoded(Place)
        case row(any PlaceRowStorage, Int)
    }

    private let source: Source
    /// Ellipsoidal distance from the centre (nil for box queries).
    public let distance: Distance?

    public init(place: Place, distance: Distance?) {
        source = .decoded(place)
        self.distance = distance
    }

    /// A match that decodes its place from row `offset` of `storage` when asked.
    public init(storage: any PlaceRowStorage, offset: Int, distance: Distance?) {
        source = .row(storage, offset)
        self.distance = distance
    }

    /// The whole place.
    public var place: Place {
        switch source {
        case .decoded(let place): return place
        case .row(let storage, let offset): return storage.place(at: offset)
        }
    }

    public var id: PlaceID {
        switch source {
        case .decoded(let place): return place.id
        case .row(let storage, let offset): return storage.id(at: offset)
        }
    }

    public var name: String {
        switch source {
        case .decoded(let place): return place.name
        case .row(let storage, let offset): return storage.name(at: offset)
        }
    }

    public var coordinate: Coordinate {
        switch source {
        case .decoded(let place): return place.coordinate
        case .row(let storage, let offset): return storage.coordinate(at: offset)
        }
    }

    /// Calls `body` with the match's stored row (``PlaceRowStorage/withStoredRow(at:_:)``); nil
    /// for a decoded place or a storage that keeps no such rows.
    public func withStoredRow<R>(_ body: (StoredPlaceRow) throws -> R) rethrows -> R? {
        guard case .row(let storage, let offset) = source else { return nil }
        return try storage.withStoredRow(at: offset, body)
    }

    public static func == (lhs: PlaceMatch, rhs: PlaceMatch) -> Bool {
        lhs.distance == rhs.distance && lhs.place == rhs.place
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(distance)
    }
}

/// Rows a store matched, kept in the store's own encoding so that a match decodes its place
/// only when asked. A store implements it once for its row format (SpatiaLite keeps one byte
/// buffer per query); the rows never change after the store hands them out.
public protocol PlaceRowStorage: AnyObject, Sendable {
    /// The whole place stored at `offset`.
    func place(at offset: Int) -> Place
    /// The id of the place at `offset`, without decoding the rest.
    func id(at offset: Int) -> PlaceID
    /// The name of the place at `offset`.
    func name(at offset: Int) -> String
    /// Where the place at `offset` is.
    func coordinate(at offset: Int) -> Coordinate
    /// Calls `body` with the row at `offset` as the store keeps it, for writers that read its
    /// fields without building a ``Place`` (the JSON of a large answer); nil when the storage
    /// keeps rows in another form.
    func withStoredRow<R>(at offset: Int, _ body: (StoredPlaceRow) throws -> R) rethrows -> R?
}

extension PlaceRowStorage {
    public func withStoredRow<R>(at offset: Int, _ body: (StoredPlaceRow) throws -> R) rethrows -> R? { nil }
}

/// A place as the stores keep it: the id and name as UTF-8, the coordinates, and the details
/// record (``PlaceDetailsCodec``'s format, every other field). Valid only inside the call that
/// hands it out.
public struct StoredPlaceRow {
    public let id: UnsafeRawBufferPointer
    public let name: UnsafeRawBufferPointer
    public let latitude: Double
    public let longitude: Double
    /// Empty when the place has no details.
    public let details: UnsafeRawBufferPointer

    public init(
        id: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer, latitude: Double, longitude: Double,
        details: UnsafeRawBufferPointer
    ) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.details = details
    }
}

/// One page of an answer.
public struct PlacePage: Sendable, Hashable {
    public var matches: [PlaceMatch]
    /// Pass to the same query to get the next page; nil when this is the last.
    public var nextCursor: String?

    public init(matches: [PlaceMatch], nextCursor: String?) {
        self.matches = matches
        self.nextCursor = nextCursor
    }
}
