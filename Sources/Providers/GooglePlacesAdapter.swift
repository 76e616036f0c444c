import Foundation
import GeoCore
import PlaceModel

/// Google Places: the Places API (New) by default (`places:searchNearby`, `places:searchText`,
/// details, photo media), the legacy web service (`nearbysearch/json`, `textsearch/json`) with
/// `GEOQUERY_GOOGLE_API=legacy` for old keys. providers.md §1.
public struct GooglePlacesAdapter: PlaceProvider {
    /// The API generation.
    public enum Generation: String, Sendable, CaseIterable { case new, legacy }

    public let name = ProviderName.google
    public var maximumRadius: Distance? { Distance(uncheckedMeters: 50_000) }
    let settings: ProviderSettings
    /// The legacy API's `next_page_token` becomes valid only after a short delay.
    let pageTokenDelay: TimeInterval

    public init(settings: ProviderSettings = ProviderSettings(), pageTokenDelay: TimeInterval = 2) {
        self.settings = settings
        self.pageTokenDelay = pageTokenDelay
    }

    /// The fields the model uses, and no more: billing goes by the most expensive field asked for.
    static let placeFields = [
        "id", "displayName", "formattedAddress", "addressComponents", "location", "types", "primaryType",
        "rating", "userRatingCount", "priceLevel", "regularOpeningHours", "currentOpeningHours.openNow",
        "businessStatus", "websiteUri", "googleMapsUri", "internationalPhoneNumber", "nationalPhoneNumber",
        "utcOffsetMinutes", "timeZone", "photos",
    ]
    static let searchFieldMask = placeFields.map { "places." + $0 }.joined(separator: ",")

    public func search(_ request: PlaceSearchRequest) async throws -> ProviderResult {
        let key = try settings.environment.key(for: .google)
        switch try settings.environment.googleGeneration() {
        case .new: return try await searchNew(request, key: key)
        case .legacy: return try await searchLegacy(request, key: key)
        }
    }

    /// Full details of one place (`GET /v1/places/{id}`), distance from `center`.
    public func details(id: String, center: Coordinate) async throws -> ProviderPlace {
        let key = try settings.environment.key(for: .google)
        let base = try settings.baseURL(.google, default: "https://places.googleapis.com")
        let localID = id.hasPrefix("google:") ? String(id.dropFirst(7)) : id
        try ProviderName.google.checkLocalID(localID)
        let request = ProviderRequest(
            url: try endpoint(base, "/v1/places/" + pathSegment(localID)),
            headers: ["X-Goog-Api-Key": key, "X-Goog-FieldMask": Self.placeFields.joined(separator: ",")])
        let (json, _) = try await settings.client(.google, key: key).json(request)
        return try place(json, center: center)
    }

    /// A short-lived, key-free URL of a photo (`{name}/media?skipHttpRedirect=true`), at most
    /// `maxWidth` pixels wide (1–4800).
    public func photoURL(reference: String, maxWidth: Int = 800) async throws -> URL {
        let key = try settings.environment.key(for: .google)
        let base = try settings.baseURL(.google, default: "https://places.googleapis.com")
        let width = min(4800, max(1, maxWidth))
        let request = ProviderRequest(
            url: try endpoint(
                base, "/v1/" + reference.split(separator: "/", omittingEmptySubsequences: false).map(pathSegment).joined(separator: "/") + "/media",
                query: [("maxWidthPx", String(width)), ("skipHttpRedirect", "true")]),
            headers: ["X-Goog-Api-Key": key])
        let (json, _) = try await settings.client(.google, key: key).json(request)
        guard let text = json["photoUri"]?.text, let url = URL(string: text) else {
            throw ProviderError.malformedResponse(provider: .google, reason: "photo media answer without photoUri")
        }
        return url
    }

    // MARK: Places API (New)

    private func searchNew(_ request: PlaceSearchRequest, key: String) async throws -> ProviderResult {
        let base = try settings.baseURL(.google, default: "https://places.googleapis.com")
        let client = settings.client(.google, key: key)
        let (radius, clamped) = clampedRadius(request)
        let circle: JSONValue = .object([
            "center": .object(["latitude": .double(request.center.latitude), "longitude": .double(request.center.longitude)]),
            "radius": .double(radius.meters),
        ])
        var places: [ProviderPlace] = []
        var requests = 0
        if let text = request.query {
            // Text search: a soft circle bias, paged by token; places outside the circle are dropped.
            var pageToken: String?
            repeat {
                var body: [String: JSONValue] = [
                    "textQuery": .string(text), "pageSize": .int(Int64(min(20, request.limit))),
                    "locationBias": .object(["circle": circle]), "rankPreference": .string("DISTANCE"),
                ]
                if let type = ProviderCategories.googleTypes(for: request.categories, limit: 1).first {
                    body["includedType"] = .string(type)
                }
                if let pageToken { body["pageToken"] = .string(pageToken) }
                let (json, _) = try await client.json(
                    post(
                        try endpoint(base, "/v1/places:searchText"), body: body, key: key,
                        fieldMask: Self.searchFieldMask + ",nextPageToken"))
                requests += 1
                places += try (json["places"]?.elements ?? []).map { try place($0, center: request.center) }
                pageToken = json["nextPageToken"]?.text
            } while pageToken != nil && places.count < request.limit && requests < 3
        } else {
            var body: [String: JSONValue] = [
                "locationRestriction": .object(["circle": circle]),
                "maxResultCount": .int(Int64(min(20, request.limit))),
                "rankPreference": .string("DISTANCE"),
            ]
            let types = ProviderCategories.googleTypes(for: request.categories)
            if !types.isEmpty { body["includedTypes"] = .array(types.map(JSONValue.string)) }
            let (json, _) = try await client.json(
                post(
                    try endpoint(base, "/v1/places:searchNearby"), body: body, key: key,
                    fieldMask: Self.searchFieldMask))
            requests = 1
            places = try (json["places"]?.elements ?? []).map { try place($0, center: request.center) }
        }
        return ProviderResult(.google, found: places, for: request, radius: radius, clamped: clamped, requests: requests)
    }

    private func post(_ url: URL, body: [String: JSONValue], key: String, fieldMask: String) throws -> ProviderRequest {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return ProviderRequest(
            method: "POST", url: url,
            headers: ["Content-Type": "application/json", "X-Goog-Api-Key": key, "X-Goog-FieldMask": fieldMask],
            body: try encoder.encode(JSONValue.object(body)))
    }

    /// A Place resource (New) → ``ProviderPlace`` (providers.md §1.4).
    func place(_ json: JSONValue, center: Coordinate) throws -> ProviderPlace {
        let (localID, id, coordinate) = try Normalise.identity(
            .google, localID: json["id"]?.text,
            latitude: json["location"]?["latitude"]?.number,
            longitude: json["location"]?["longitude"]?.number)
        let types = json["types"]?.elements.compactMap(\.text) ?? []
        var tags: [String: String] = [:]
        if let offset = json["utcOffsetMinutes"]?.intValue { tags["utc_offset_minutes"] = String(offset) }
        let priceText = json["priceLevel"]?.text
        if priceText == "PRICE_LEVEL_FREE" { tags["price"] = "free" }
        let hours = json["regularOpeningHours"]
        let periods: [(openDay: Int, openMinute: Int, closeDay: Int?, closeMinute: Int?)] =
            hours?["periods"]?.elements.compactMap { period in
                guard let open = period["open"], let day = open["day"]?.intValue else { return nil }
                let close = period["close"]
                return (
                    day, (open["hour"]?.intValue ?? 0) * 60 + (open["minute"]?.intValue ?? 0),
                    close?["day"]?.intValue, close.map { ($0["hour"]?.intValue ?? 0) * 60 + ($0["minute"]?.intValue ?? 0) }
                )
            } ?? []
        let photos =
            json["photos"]?.elements.compactMap { photo -> PhotoReference? in
                guard let name = photo["name"]?.text else { return nil }
                let authors = photo["authorAttributions"]?.elements.compactMap { $0["displayName"]?.text } ?? []
                return PhotoReference(
                    reference: name, width: photo["widthPx"]?.intValue, height: photo["heightPx"]?.intValue,
                    attribution: authors.isEmpty ? nil : authors.joined(separator: ", "))
            } ?? []
        let place = Place(
            id: id, name: json["displayName"]?["text"]?.text ?? localID, coordinate: coordinate,
            categories: ProviderCategories.fromGoogle(primary: json["primaryType"]?.text, types: types),
            address: Self.address(json), rating: Normalise.rating(json["rating"]?.number, scale: 5, count: json["userRatingCount"]?.intValue),
            priceLevel: Self.price(enumName: priceText), phone: json["internationalPhoneNumber"]?.text ?? json["nationalPhoneNumber"]?.text,
            website: json["websiteUri"]?.text,
            openingHours: ProviderHours.google(periods: periods, text: hours?["weekdayDescriptions"]?.elements.compactMap(\.text) ?? []),
            photos: photos, provenance: Provenance(source: "google", sourceID: localID, fetchedAt: settings.now()), tags: tags)
        let status: BusinessStatus =
            switch json["businessStatus"]?.text {
            case "OPERATIONAL": .operational
            case "CLOSED_TEMPORARILY": .closedTemporarily
            case "CLOSED_PERMANENTLY": .closedPermanently
            default: .unknown
            }
        let primary = json["primaryType"]?.text
        return ProviderPlace(
            place: place, distance: Normalise.distance(from: center, to: coordinate),
            isOpenNow: json["currentOpeningHours"]?["openNow"]?.boolValue ?? hours?["openNow"]?.boolValue,
            businessStatus: status, providerURL: json["googleMapsUri"]?.text, timeZone: json["timeZone"]?["id"]?.text,
            providerCategories: ([primary].compactMap { $0 } + types.filter { $0 != primary }).map { ProviderCategory(scheme: "google", id: $0) })
    }

    static func address(_ json: JSONValue) -> Address? {
        var parts: [String: String] = [:]
        for component in json["addressComponents"]?.elements ?? [] {
            let types = component["types"]?.elements.compactMap(\.text) ?? []
            for type in types where parts[type] == nil {
                parts[type] =
                    type == "country" || type == "administrative_area_level_1"
                    ? component["shortText"]?.text : component["longText"]?.text
            }
        }
        let street = [parts["street_number"], parts["route"]].compactMap { $0 }.joined(separator: " ")
        return Normalise.address(
            street: street.isEmpty ? nil : street, locality: parts["locality"] ?? parts["postal_town"],
            region: parts["administrative_area_level_1"], postcode: parts["postal_code"],
            countryCode: CountryCodes.alpha2(parts["country"]), formatted: json["formattedAddress"]?.text)
    }

    /// `PRICE_LEVEL_INEXPENSIVE` → 1 … `_VERY_EXPENSIVE` → 4; free and unspecified → nil.
    static func price(enumName: String?) -> PriceLevel? {
        let levels = ["PRICE_LEVEL_INEXPENSIVE": 1, "PRICE_LEVEL_MODERATE": 2, "PRICE_LEVEL_EXPENSIVE": 3, "PRICE_LEVEL_VERY_EXPENSIVE": 4]
        return enumName.flatMap { levels[$0] }.flatMap { try? PriceLevel($0) }
    }

    // MARK: Legacy web service

    private func searchLegacy(_ request: PlaceSearchRequest, key: String) async throws -> ProviderResult {
        let base = try settings.baseURL(.google, default: "https://maps.googleapis.com")
        let client = settings.client(.google, key: key)
        let (radius, clamped) = clampedRadius(request)
        var query: [(String, String)] = [
            ("location", "\(request.center.latitude),\(request.center.longitude)"),
            ("radius", String(Int(radius.meters.rounded(.down)))),
        ]
        let path: String
        if let text = request.query {
            path = "/maps/api/place/textsearch/json"
            query.insert(("query", text), at: 0)
        } else {
            path = "/maps/api/place/nearbysearch/json"
        }
        if let type = ProviderCategories.googleTypes(for: request.categories, limit: 1).first { query.append(("type", type)) }
        var places: [ProviderPlace] = []
        var requests = 0
        var pageToken: String?
        var tokenRetries = 0
        while true {
            let parameters = pageToken.map { [("pagetoken", $0), ("key", key)] } ?? query + [("key", key)]
            let (json, _) = try await client.json(ProviderRequest(url: try endpoint(base, path, query: parameters)))
            requests += 1
            let status = json["status"]?.text ?? "missing status"
            switch status {
            case "OK", "ZERO_RESULTS":
                places += try json["results"]?.elements.map { try legacyPlace($0, center: request.center) } ?? []
                pageToken = json["next_page_token"]?.text
                tokenRetries = 0
            case "INVALID_REQUEST" where pageToken != nil && tokenRetries < 2:
                // The token is not valid yet; ask again after the documented short delay.
                tokenRetries += 1
            default:
                throw ProviderError.providerStatus(provider: .google, status: status, message: json["error_message"]?.text.map(client.redact))
            }
            guard pageToken != nil, places.count < request.limit, requests < 5 else { break }
            try await Task.sleep(nanoseconds: UInt64(pageTokenDelay * 1e9))
        }
        return ProviderResult(.google, found: places, for: request, radius: radius, clamped: clamped, requests: requests)
    }

    /// A legacy result → ``ProviderPlace`` (providers.md §1.7).
    func legacyPlace(_ json: JSONValue, center: Coordinate) throws -> ProviderPlace {
        let location = json["geometry"]?["location"]
        let (localID, id, coordinate) = try Normalise.identity(
            .google, localID: json["place_id"]?.text,
            latitude: location?["lat"]?.number, longitude: location?["lng"]?.number)
        let types = json["types"]?.elements.compactMap(\.text) ?? []
        let priceNumber = json["price_level"]?.intValue
        let formatted = json["formatted_address"]?.text ?? json["vicinity"]?.text
        let photos =
            json["photos"]?.elements.compactMap { photo in
                photo["photo_reference"]?.text.map {
                    PhotoReference(reference: $0, width: photo["width"]?.intValue, height: photo["height"]?.intValue)
                }
            } ?? []
        let place = Place(
            id: id, name: json["name"]?.text ?? localID, coordinate: coordinate,
            categories: ProviderCategories.fromGoogle(primary: nil, types: types),
            address: Normalise.address(formatted: formatted),
            rating: Normalise.rating(json["rating"]?.number, scale: 5, count: json["user_ratings_total"]?.intValue),
            priceLevel: priceNumber.flatMap { $0 >= 1 ? try? PriceLevel($0) : nil }, photos: photos,
            provenance: Provenance(source: "google", sourceID: localID, fetchedAt: settings.now()),
            tags: priceNumber == 0 ? ["price": "free"] : [:])
        let status: BusinessStatus =
            switch json["business_status"]?.text {
            case "OPERATIONAL": .operational
            case "CLOSED_TEMPORARILY": .closedTemporarily
            case "CLOSED_PERMANENTLY": .closedPermanently
            default: .unknown
            }
        return ProviderPlace(
            place: place, distance: Normalise.distance(from: center, to: coordinate),
            isOpenNow: json["opening_hours"]?["open_now"]?.boolValue, businessStatus: status,
            providerCategories: types.map { ProviderCategory(scheme: "google", id: $0) })
    }
}
