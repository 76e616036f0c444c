import Foundation
import GeoCore
import PlaceModel

/// Foursquare: the Places API (`places-api.foursquare.com`, Bearer service key, version header,
/// `fsq_place_id`) by default, the v3 API (`api.foursquare.com/v3`, bare key, `fsq_id`) with
/// `GEOQUERY_FOURSQUARE_API=v3`; cursor paging from the `Link` header. providers.md §3.
public struct FoursquareAdapter: PlaceProvider {
    /// The API generation.
    public enum Generation: String, Sendable, CaseIterable { case places, v3 }

    public let name = ProviderName.foursquare
    public var maximumRadius: Distance? { Distance(uncheckedMeters: 100_000) }
    /// The `X-Places-Api-Version` the adapter was written against.
    public static let placesAPIVersion = "2025-06-17"
    static let pageSize = 50
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    /// Core and rich fields the model uses, per generation (rich ones are billed; no more is asked).
    static func fields(_ generation: Generation) -> String {
        let shared = [
            "name", "categories", "location", "distance", "tel", "website", "hours", "rating", "stats",
            "price", "photos", "date_closed", "closed_bucket", "timezone",
        ]
        switch generation {
        case .places: return (["fsq_place_id", "latitude", "longitude", "link"] + shared).joined(separator: ",")
        case .v3: return (["fsq_id", "geocodes"] + shared).joined(separator: ",")
        }
    }

    public func search(_ request: PlaceSearchRequest) async throws -> ProviderResult {
        let key = try settings.environment.key(for: .foursquare)
        let generation = try settings.environment.foursquareGeneration()
        let base = try settings.baseURL(
            .foursquare, default: generation == .places ? "https://places-api.foursquare.com" : "https://api.foursquare.com")
        let client = settings.client(.foursquare, key: key)
        let (radius, clamped) = clampedRadius(request)
        var headers = ["Accept": "application/json"]
        switch generation {
        case .places:
            headers["Authorization"] = "Bearer \(key)"
            headers["X-Places-Api-Version"] = Self.placesAPIVersion
        case .v3:
            headers["Authorization"] = key
        }
        var query: [(String, String)] = [
            ("ll", "\(request.center.latitude),\(request.center.longitude)"), ("radius", String(Int(radius.meters.rounded(.down)))),
            ("limit", String(min(Self.pageSize, request.limit))), ("sort", "DISTANCE"), ("fields", Self.fields(generation)),
        ]
        if let text = request.query { query.append(("query", text)) }
        // v3 takes numeric top-level ids; the new API's BSON ids have no stable table, so its
        // category filter is applied to the answer below instead.
        if generation == .v3, !request.categories.isEmpty {
            query.append(("categories", ProviderCategories.foursquareIDs(for: request.categories).joined(separator: ",")))
        }
        var url: URL? = try endpoint(base, generation == .places ? "/places/search" : "/v3/places/search", query: query)
        var places: [ProviderPlace] = []
        var requests = 0
        while let next = url, places.count < request.limit, requests < 10 {
            let (json, response) = try await client.json(ProviderRequest(url: next, headers: headers))
            requests += 1
            let page = json["results"]?.elements ?? []
            places += try page.map { try place($0, center: request.center) }
            url = page.isEmpty ? nil : Self.nextPage(response.header("Link"), base: base)
        }
        return ProviderResult(
            .foursquare, found: places, for: request, radius: radius, clamped: clamped, requests: requests,
            filteringCategories: true)
    }

    /// The `rel="next"` target of a `Link` header, re-rooted on `base` so that proxies and
    /// test servers keep receiving the follow-up pages.
    static func nextPage(_ link: String?, base: URL) -> URL? {
        guard let link else { return nil }
        for part in link.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = pieces.first, target.hasPrefix("<"), target.hasSuffix(">"),
                pieces.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "") == "rel=\"next\"" || $0 == "rel=next" }),
                let url = URL(string: String(target.dropFirst().dropLast())),
                let found = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else { continue }
            guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { continue }
            let prefix =
                components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
            // The provider's text: every byte a path may not hold is encoded, so none can trap.
            components.percentEncodedPath = percentEncodedPath(prefix) + percentEncodedPath(found.percentEncodedPath)
            components.percentEncodedQuery = found.percentEncodedQuery
            return components.url
        }
        return nil
    }

    /// A result of either generation → ``ProviderPlace`` (providers.md §3.3).
    func place(_ json: JSONValue, center: Coordinate) throws -> ProviderPlace {
        let main = json["geocodes"]?["main"]
        let (localID, id, coordinate) = try Normalise.identity(
            .foursquare, localID: json["fsq_place_id"]?.text ?? json["fsq_id"]?.text,
            latitude: json["latitude"]?.number ?? main?["latitude"]?.number,
            longitude: json["longitude"]?.number ?? main?["longitude"]?.number)
        let categories =
            json["categories"]?.elements.compactMap { entry -> (id: String, label: String?)? in
                (entry["fsq_category_id"]?.text ?? entry["id"]?.text).map { ($0, entry["name"]?.text) }
            } ?? []
        let location = json["location"]
        let hours = json["hours"]
        let regular: [(day: Int, open: String, close: String)] =
            hours?["regular"]?.elements.compactMap { entry in
                guard let day = entry["day"]?.intValue, let open = entry["open"]?.text, let close = entry["close"]?.text else { return nil }
                return (day, open, close)
            } ?? []
        let photos =
            json["photos"]?.elements.compactMap { photo -> PhotoReference? in
                guard let prefix = photo["prefix"]?.text, let suffix = photo["suffix"]?.text else { return nil }
                return PhotoReference(
                    url: prefix + "original" + suffix, reference: photo["id"]?.text,
                    width: photo["width"]?.intValue, height: photo["height"]?.intValue)
            } ?? []
        let closedBucket = json["closed_bucket"]?.text
        let status: BusinessStatus =
            json["date_closed"]?.text != nil || closedBucket == "VeryLikelyClosed"
            ? .closedPermanently
            : closedBucket == "LikelyClosed"
                ? .unknown
                : closedBucket == "VeryLikelyOpen" || closedBucket == "LikelyOpen" ? .operational : .unknown
        var tags: [String: String] = [:]
        if let closedBucket { tags["closed_bucket"] = closedBucket }
        let place = Place(
            id: id, name: json["name"]?.text ?? localID, coordinate: coordinate,
            categories: ProviderCategories.fromFoursquare(categories),
            address: Normalise.address(
                street: location?["address"]?.text, locality: location?["locality"]?.text,
                region: location?["region"]?.text, postcode: location?["postcode"]?.text,
                countryCode: CountryCodes.alpha2(location?["country"]?.text),
                formatted: location?["formatted_address"]?.text),
            rating: Normalise.rating(json["rating"]?.number, scale: 10, count: json["stats"]?["total_ratings"]?.intValue),
            priceLevel: json["price"]?.intValue.flatMap { try? PriceLevel($0) }, phone: json["tel"]?.text,
            website: json["website"]?.text,
            openingHours: ProviderHours.foursquare(display: hours?["display"]?.text, regular: regular), photos: photos,
            provenance: Provenance(source: "foursquare", sourceID: localID, fetchedAt: settings.now()), tags: tags)
        return ProviderPlace(
            place: place, distance: Normalise.distance(from: center, to: coordinate),
            isOpenNow: hours?["open_now"]?.boolValue, businessStatus: status,
            providerURL: "https://foursquare.com/v/\(localID)", timeZone: json["timezone"]?.text,
            providerCategories: categories.map { ProviderCategory(scheme: "foursquare", id: $0.id, label: $0.label) })
    }
}
