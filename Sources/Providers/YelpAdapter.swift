import Foundation
import GeoCore
import PlaceModel

/// Yelp Places API v3: `/v3/businesses/search` paged by offset up to Yelp's 240-result ceiling,
/// and `/v3/businesses/{id}` for hours and photos. providers.md §2.
public struct YelpAdapter: PlaceProvider {
    public let name = ProviderName.yelp
    public var maximumRadius: Distance? { Distance(uncheckedMeters: 40_000) }
    /// Yelp returns at most this many businesses per query, however it is paged.
    public static let resultCeiling = 240
    static let pageSize = 50
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    public func search(_ request: PlaceSearchRequest) async throws -> ProviderResult {
        let key = try settings.environment.key(for: .yelp)
        let base = try settings.baseURL(.yelp, default: "https://api.yelp.com")
        let client = settings.client(.yelp, key: key)
        let (radius, clamped) = clampedRadius(request)
        let wanted = min(request.limit, Self.resultCeiling)
        var places: [ProviderPlace] = []
        var offset = 0
        var requests = 0
        while offset < wanted {
            let size = min(Self.pageSize, wanted - offset)
            var query: [(String, String)] = [
                ("latitude", String(request.center.latitude)), ("longitude", String(request.center.longitude)),
                ("radius", String(Int(radius.meters.rounded(.down)))), ("sort_by", "distance"),
                ("limit", String(size)), ("offset", String(offset)),
            ]
            if let text = request.query { query.append(("term", text)) }
            let aliases = ProviderCategories.yelpAliases(for: request.categories)
            if !aliases.isEmpty { query.append(("categories", aliases.joined(separator: ","))) }
            let (json, _) = try await client.json(
                ProviderRequest(
                    url: try endpoint(base, "/v3/businesses/search", query: query),
                    headers: ["Authorization": "Bearer \(key)", "Accept": "application/json"]))
            requests += 1
            let page = json["businesses"]?.elements ?? []
            places += try page.map { try business($0, center: request.center) }
            offset += page.count
            let total = json["total"]?.intValue ?? 0
            // The last page: short, empty, or everything Yelp says it has.
            if page.count < size || offset >= min(total, Self.resultCeiling) { break }
        }
        return ProviderResult(.yelp, found: places, for: request, radius: radius, clamped: clamped, requests: requests)
    }

    /// One business with hours and photos (`/v3/businesses/{id-or-alias}`).
    public func details(id: String, center: Coordinate) async throws -> ProviderPlace {
        let key = try settings.environment.key(for: .yelp)
        let base = try settings.baseURL(.yelp, default: "https://api.yelp.com")
        let localID = id.hasPrefix("yelp:") ? String(id.dropFirst(5)) : id
        try ProviderName.yelp.checkLocalID(localID)
        let (json, _) = try await settings.client(.yelp, key: key).json(
            ProviderRequest(url: try endpoint(base, "/v3/businesses/" + pathSegment(localID)), headers: ["Authorization": "Bearer \(key)"]))
        return try business(json, center: center)
    }

    /// A business object → ``ProviderPlace`` (providers.md §2.2, §2.3).
    func business(_ json: JSONValue, center: Coordinate) throws -> ProviderPlace {
        let (localID, id, coordinate) = try Normalise.identity(
            .yelp, localID: json["id"]?.text,
            latitude: json["coordinates"]?["latitude"]?.number,
            longitude: json["coordinates"]?["longitude"]?.number)
        let categories =
            json["categories"]?.elements.compactMap { entry -> (alias: String, title: String?)? in
                entry["alias"]?.text.map { ($0, entry["title"]?.text) }
            } ?? []
        let location = json["location"]
        let street = ["address1", "address2", "address3"].compactMap { location?[$0]?.text }.joined(separator: ", ")
        let display = location?["display_address"]?.elements.compactMap(\.text) ?? []
        let price = json["price"]?.text.flatMap { text in text.allSatisfy { $0 == "$" } ? try? PriceLevel(text.count) : nil }
        var photos = (json["photos"]?.elements.compactMap(\.text) ?? []).map { PhotoReference(url: $0) }
        if photos.isEmpty, let image = json["image_url"]?.text { photos = [PhotoReference(url: image)] }
        var tags: [String: String] = [:]
        if let alias = json["alias"]?.text { tags["yelp_alias"] = alias }
        if let cross = location?["cross_streets"]?.text { tags["cross_streets"] = cross }
        let hours = json["hours"]?.elements.first { $0["hours_type"]?.text ?? "REGULAR" == "REGULAR" }
        let entries: [(day: Int, start: String, end: String, overnight: Bool)] =
            hours?["open"]?.elements.compactMap { entry in
                guard let day = entry["day"]?.intValue, let start = entry["start"]?.text, let end = entry["end"]?.text else { return nil }
                return (day, start, end, entry["is_overnight"]?.boolValue ?? false)
            } ?? []
        let place = Place(
            id: id, name: json["name"]?.text ?? localID, coordinate: coordinate,
            categories: ProviderCategories.fromYelp(categories),
            address: Normalise.address(
                street: street.isEmpty ? nil : street, locality: location?["city"]?.text,
                region: location?["state"]?.text, postcode: location?["zip_code"]?.text,
                countryCode: CountryCodes.alpha2(location?["country"]?.text),
                formatted: display.isEmpty ? nil : display.joined(separator: ", ")),
            rating: Normalise.rating(json["rating"]?.number, scale: 5, count: json["review_count"]?.intValue),
            priceLevel: price, phone: json["phone"]?.text ?? json["display_phone"]?.text,
            openingHours: ProviderHours.yelp(entries), photos: photos,
            provenance: Provenance(source: "yelp", sourceID: localID, fetchedAt: settings.now()), tags: tags)
        return ProviderPlace(
            place: place, distance: Normalise.distance(from: center, to: coordinate),
            isOpenNow: hours?["is_open_now"]?.boolValue,
            // `is_closed` means closed for good, not closed right now.
            businessStatus: json["is_closed"]?.boolValue == true
                ? .closedPermanently : json["is_closed"]?.boolValue == false ? .operational : .unknown,
            providerURL: json["url"]?.text,
            providerCategories: categories.map { ProviderCategory(scheme: "yelp", id: $0.alias, label: $0.title) })
    }
}
