import Foundation
import GeoCore
import PlaceModel

/// HERE Geocoding & Search v7: `browse` (categories in a circle), `discover` (text in a
/// circle), `lookup` (by id). No paging; `limit` ≤ 100; alpha-3 country codes. providers.md §4.
public struct HEREAdapter: PlaceProvider {
    public let name = ProviderName.here
    /// HERE states no cap on the circle; the search is held to the request's radius.
    public var maximumRadius: Distance? { nil }
    static let maximumLimit = 100
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    /// `https://{host}.search.hereapi.com`, or the one override for every host.
    private func base(_ host: String) throws -> URL {
        try settings.baseURL(.here, default: "https://\(host).search.hereapi.com")
    }

    public func search(_ request: PlaceSearchRequest) async throws -> ProviderResult {
        let key = try settings.environment.key(for: .here)
        let client = settings.client(.here, key: key)
        let circle = "circle:\(request.center.latitude),\(request.center.longitude);r=\(Int(request.radius.meters.rounded(.up)))"
        var query: [(String, String)] = [("in", circle), ("limit", String(min(Self.maximumLimit, request.limit)))]
        let url: URL
        if let text = request.query {
            // Discover has no category filter: the categories are applied to the answer.
            url = try endpoint(try base("discover"), "/v1/discover", query: [("q", text)] + query + [("apiKey", key)])
        } else {
            let ids = ProviderCategories.hereIDs(for: request.categories)
            if !ids.isEmpty { query.append(("categories", ids.joined(separator: ","))) }
            url = try endpoint(try base("browse"), "/v1/browse", query: query + [("apiKey", key)])
        }
        let (json, _) = try await client.json(ProviderRequest(url: url, headers: ["Accept": "application/json"]))
        let places = try (json["items"]?.elements ?? [])
            .filter { ($0["resultType"]?.text ?? "place") == "place" }
            .map { try item($0, center: request.center) }
        return ProviderResult(
            .here, found: places, for: request, radius: request.radius, clamped: false, requests: 1,
            filteringCategories: request.query != nil)
    }

    /// Full details by HERE id (`/v1/lookup?id=`).
    public func lookup(id: String, center: Coordinate) async throws -> ProviderPlace {
        let key = try settings.environment.key(for: .here)
        let localID = id.hasPrefix("here:here:") ? String(id.dropFirst(5)) : id
        try ProviderName.here.checkLocalID(localID)
        let url = try endpoint(try base("lookup"), "/v1/lookup", query: [("id", localID), ("apiKey", key)])
        let (json, _) = try await settings.client(.here, key: key).json(ProviderRequest(url: url))
        return try item(json, center: center)
    }

    /// Countries that write the house number before the street ("66 Mint St"); elsewhere after.
    static let houseNumberFirst: Set<String> = [
        "USA", "CAN", "GBR", "IRL", "AUS", "NZL", "FRA", "BEL", "LUX", "MCO", "ISR",
        "ZAF", "IND", "SGP", "MYS", "PHL", "THA", "JPN", "HKG",
    ]

    /// A result item → ``ProviderPlace`` (providers.md §4.2).
    func item(_ json: JSONValue, center: Coordinate) throws -> ProviderPlace {
        let (localID, id, coordinate) = try Normalise.identity(
            .here, localID: json["id"]?.text,
            latitude: json["position"]?["lat"]?.number,
            longitude: json["position"]?["lng"]?.number)
        let categories = json["categories"]?.elements ?? []
        // The primary category first.
        let ordered = categories.filter { $0["primary"]?.boolValue == true } + categories.filter { $0["primary"]?.boolValue != true }
        let ids = ordered.compactMap { $0["id"]?.text }
        let address = json["address"]
        let numberFirst = Self.houseNumberFirst.contains(address?["countryCode"]?.text ?? "")
        let parts = [address?["street"]?.text, address?["houseNumber"]?.text]
        let street = (numberFirst ? parts.reversed() : parts).compactMap { $0 }.joined(separator: " ")
        let contacts = json["contacts"]?.elements ?? []
        func contact(_ kind: String) -> String? {
            contacts.lazy.compactMap { $0[kind]?.elements.first?["value"]?.text }.first
        }
        let hours = json["openingHours"]?.elements.first
        let structured: [(start: String, duration: String, recurrence: String)] =
            hours?["structured"]?.elements.compactMap { entry in
                guard let start = entry["start"]?.text, let duration = entry["duration"]?.text else { return nil }
                return (start, duration, entry["recurrence"]?.text ?? "")
            } ?? []
        // Cross-provider references: HERE lists Yelp's id for the same business.
        let references: [PlaceID] =
            json["references"]?.elements.compactMap { reference in
                guard reference["supplier"]?["id"]?.text == "yelp", let yelpID = reference["id"]?.text else { return nil }
                return try? PlaceID(source: "yelp", localID: yelpID)
            } ?? []
        var tags: [String: String] = [:]
        if let foodTypes = json["foodTypes"]?.elements.compactMap({ $0["name"]?.text }), !foodTypes.isEmpty {
            tags["cuisine"] = foodTypes.joined(separator: ";")
        }
        let place = Place(
            id: id, name: json["title"]?.text ?? localID, coordinate: coordinate,
            categories: ProviderCategories.fromHERE(ids),
            address: Normalise.address(
                street: street.isEmpty ? nil : street, locality: address?["city"]?.text,
                region: address?["stateCode"]?.text ?? address?["state"]?.text,
                postcode: address?["postalCode"]?.text,
                countryCode: CountryCodes.alpha2(address?["countryCode"]?.text), formatted: address?["label"]?.text),
            phone: contact("phone") ?? contact("mobile"), website: contact("www"),
            openingHours: ProviderHours.here(text: hours?["text"]?.elements.compactMap(\.text) ?? [], structured: structured),
            provenance: Provenance(source: "here", sourceID: localID, fetchedAt: settings.now()), tags: tags)
        return ProviderPlace(
            place: place, distance: Normalise.distance(from: center, to: coordinate),
            isOpenNow: hours?["isOpen"]?.boolValue, businessStatus: .unknown, timeZone: json["timeZone"]?["name"]?.text,
            providerCategories: ordered.compactMap { entry in
                entry["id"]?.text.map { ProviderCategory(scheme: "here", id: $0, label: entry["name"]?.text) }
            },
            crossReferences: references)
    }
}
