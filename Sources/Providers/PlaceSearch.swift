import Foundation
import GeoCore
import PlaceModel

/// What to look for: places within `radius` of `center`, optionally matching text and categories.
public struct PlaceSearchRequest: Sendable, Hashable {
    public var center: Coordinate
    public var radius: Distance
    /// Free text ("ramen", a name); nil browses by location and category only.
    public var query: String?
    /// Any of these common-taxonomy categories (a parent matches its children).
    public var categories: [Category]
    /// At most this many places per provider.
    public var limit: Int

    public init(center: Coordinate, radius: Distance, query: String? = nil, categories: [Category] = [], limit: Int = 20) {
        self.center = center
        self.radius = radius
        let trimmed = query?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.query = trimmed?.isEmpty == true ? nil : trimmed
        self.categories = categories
        self.limit = max(1, limit)
    }
}

/// Whether a place still trades (providers.md §9 rule 9).
public enum BusinessStatus: String, Sendable, Hashable, Codable {
    case operational, closedTemporarily = "closed_temporarily", closedPermanently = "closed_permanently", unknown
}

/// A provider's own category, kept beside the common one (providers.md §9 rule 4).
public struct ProviderCategory: Sendable, Hashable, Codable {
    /// `google`, `yelp`, `foursquare`, `here`.
    public var scheme: String
    public var id: String
    public var label: String?

    public init(scheme: String, id: String, label: String? = nil) {
        self.scheme = scheme
        self.id = id
        self.label = label
    }
}

/// One place as a provider reported it: the common ``Place`` plus what only a live answer has.
public struct ProviderPlace: Sendable, Hashable {
    public var place: Place
    /// From the search centre: the provider's own figure when it gives one (Yelp, Foursquare,
    /// HERE), else the WGS84 ellipsoidal distance.
    public var distance: Distance
    /// The provider's open-now flag, when it sent one.
    public var isOpenNow: Bool?
    public var businessStatus: BusinessStatus
    /// The place's page at the provider (attribution link).
    public var providerURL: String?
    /// IANA time zone, when the provider gives one.
    public var timeZone: String?
    public var providerCategories: [ProviderCategory]
    /// Ids of the same place at other providers (HERE's `references`), merge hints.
    public var crossReferences: [PlaceID]

    public init(
        place: Place, distance: Distance, isOpenNow: Bool? = nil, businessStatus: BusinessStatus = .unknown,
        providerURL: String? = nil, timeZone: String? = nil, providerCategories: [ProviderCategory] = [],
        crossReferences: [PlaceID] = []
    ) {
        self.place = place
        self.distance = distance
        self.isOpenNow = isOpenNow
        self.businessStatus = businessStatus
        self.providerURL = providerURL
        self.timeZone = timeZone
        self.providerCategories = providerCategories
        self.crossReferences = crossReferences
    }
}

/// One provider's answer to a search.
public struct ProviderResult: Sendable, Hashable {
    public var provider: ProviderName
    /// Nearest first.
    public var places: [ProviderPlace]
    /// The radius actually sent: the request's, or the provider's cap when that is smaller.
    public var radiusUsed: Distance
    /// True when the request's radius was over the provider's cap and was cut to it.
    public var radiusClamped: Bool
    /// HTTP requests it took (pages included).
    public var requests: Int

    public init(provider: ProviderName, places: [ProviderPlace], radiusUsed: Distance, radiusClamped: Bool, requests: Int) {
        self.provider = provider
        self.places = places
        self.radiusUsed = radiusUsed
        self.radiusClamped = radiusClamped
        self.requests = requests
    }
}

extension ProviderResult {
    /// A provider's answer held to the search: inside the circle (providers treat a radius as a
    /// hint), not closed for good, in the wanted categories when the provider could not be
    /// asked for them (`filteringCategories`), nearest first, at most `request.limit` places.
    init(
        _ provider: ProviderName, found: [ProviderPlace], for request: PlaceSearchRequest, radius: Distance, clamped: Bool,
        requests: Int, filteringCategories: Bool = false
    ) {
        var kept = found.filter { $0.distance <= radius && $0.businessStatus != .closedPermanently }
        if filteringCategories && !request.categories.isEmpty {
            kept = kept.filter { candidate in request.categories.contains { candidate.place.isIn($0) } }
        }
        kept.sort { ($0.distance, $0.place.id) < ($1.distance, $1.place.id) }
        self.init(
            provider: provider, places: Array(kept.prefix(request.limit)), radiusUsed: radius, radiusClamped: clamped,
            requests: requests)
    }
}

/// A source of places around a point: a provider adapter or the local index.
public protocol PlaceProvider: Sendable {
    var name: ProviderName { get }
    /// The largest radius the provider accepts, if it has a cap.
    var maximumRadius: Distance? { get }
    /// Searches around `request.center`.
    /// - Throws: ``ProviderError``.
    func search(_ request: PlaceSearchRequest) async throws -> ProviderResult
}

extension PlaceProvider {
    /// The request's radius cut to the provider's cap, and whether it was cut.
    func clampedRadius(_ request: PlaceSearchRequest) -> (Distance, Bool) {
        guard let cap = maximumRadius, request.radius > cap else { return (request.radius, false) }
        return (cap, true)
    }
}

/// Shared construction of a normalised place.
enum Normalise {
    /// The provider's id, the place id and the coordinate every place must have, or a
    /// malformed-response error naming what is missing.
    static func identity(
        _ provider: ProviderName, localID: String?, latitude: Double?, longitude: Double?
    ) throws
        -> (localID: String, id: PlaceID, coordinate: Coordinate)
    {
        let id = try placeID(provider, localID)
        return (id.localID, id, try coordinate(provider, latitude: latitude, longitude: longitude, place: id.rawValue))
    }

    /// `provider:localID`, or a malformed-response error if the provider's id is unusable.
    static func placeID(_ provider: ProviderName, _ localID: String?) throws -> PlaceID {
        guard let localID, let id = try? PlaceID(source: provider.rawValue, localID: localID) else {
            throw ProviderError.malformedResponse(provider: provider, reason: "a place without an id")
        }
        return id
    }

    /// A coordinate, or a malformed-response error naming the place.
    static func coordinate(_ provider: ProviderName, latitude: Double?, longitude: Double?, place: String) throws -> Coordinate {
        guard let latitude, let longitude, let coordinate = try? Coordinate(latitude: latitude, longitude: longitude) else {
            throw ProviderError.malformedResponse(
                provider: provider,
                reason: "place \(place) has no valid coordinates (\(latitude.map { "\($0)" } ?? "nil"), \(longitude.map { "\($0)" } ?? "nil"))")
        }
        return coordinate
    }

    /// GeoQuery's own WGS84 ellipsoidal distance from the query centre. A provider's `distance`
    /// field is never used: Yelp and others measure from their own idea of the centre (a
    /// geocoded location, a rounded point) and with their own formula, and answers merged from
    /// several sources must be ordered and cut by one distance.
    static func distance(from center: Coordinate, to coordinate: Coordinate) -> Distance {
        Distance(uncheckedMeters: Geodesic.distance(center, coordinate))
    }

    /// A rating, or nil for a missing or out-of-scale value (never 0 for "no rating").
    static func rating(_ value: Double?, scale: Double, count: Int?) -> Rating? {
        guard let value, value > 0 else { return nil }
        return try? Rating(sourceValue: value, scale: scale, count: count)
    }

    static func address(
        street: String? = nil, locality: String? = nil, region: String? = nil, postcode: String? = nil,
        countryCode: String? = nil, formatted: String? = nil
    ) -> Address? {
        let address = Address(
            street: street, locality: locality, region: region, postcode: postcode,
            countryCode: countryCode?.uppercased(), formatted: formatted)
        return address.isEmpty ? nil : address
    }
}
