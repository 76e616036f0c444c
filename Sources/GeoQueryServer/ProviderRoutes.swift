import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Providers

/// `/v1/search` (federated over the local index and the providers with keys) and `/v1/weather`.
extension GeoQueryService {
    func addProviderRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let deadline = configuration.requestTimeout
        let bound = RequestBound.cancelling(deadline)
        groups.viewers.route(.get, "/v1/search", in: &table, bound: bound) { try await federatedSearch($0, $1) }
        router.route(.get, "/v1/weather", in: &table, bound: bound) { try await weather($0, $1) }
    }

    /// `GET /v1/search`.
    func federatedSearch(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(
            request, allowed: ["lat", "lon", "radius", "region", "query", "category", "provider", "limit", "format"])
        var regionFilter = PlaceFilter()
        let (center, radius) = try await circle(parameters, filter: &regionFilter)
        let categories = try parameters.list("category").map { try Category($0) }
        let names = try Self.providers(parameters.list("provider"))
        let limit = try parameters.int("limit", range: 1...240) ?? 20
        let format = try AnswerFormat(parameters)
        guard format != .csv else { throw APIProblem.badRequest("format 'csv' is not available for search; use json or geojson") }
        let query = try parameters.single("query")
        var settings = configuration.providers
        // Leave the providers most of the request's time, so their answers arrive before it ends.
        let seconds = max(1, Double(configuration.requestTimeout.components.seconds) * 0.6)
        settings.timeout = min(settings.timeout, seconds)
        var sources = FederatedSearch.sources(names.filter { $0 != .local }, settings: settings, localIndex: nil)
        if names.contains(.local) {
            let (viewer, friends) = context.viewerScope
            sources.insert(LocalIndexProvider(index: ViewerScopedIndex(base: searchIndex, viewer: viewer, viewerFriends: friends)), at: 0)
        }
        let search = FederatedSearch(sources: sources, deadline: seconds)
        var result = await search.search(near: center, radius: radius, query: query, categories: categories, limit: limit)
        // A country or continent region keeps the places known to lie in it (providers'
        // places by their address's country; places of no known country are left out).
        if !regionFilter.countries.isEmpty || !regionFilter.continents.isEmpty {
            result.places.removeAll { merged in
                let code = (merged.place.region?.countryCode ?? merged.place.address?.countryCode)?.uppercased()
                if !regionFilter.countries.isEmpty, !regionFilter.countries.contains(code ?? "") { return true }
                if !regionFilter.continents.isEmpty {
                    let continent =
                        configuration.countries[code].flatMap { Continent(codeOrName: $0.continent) } ?? merged.place.region?.continent
                    return !regionFilter.continents.contains { $0 == continent }
                }
                return false
            }
        }
        let description = QueryDescription(
            kind: "search", lat: center.latitude, lon: center.longitude, radiusMeters: radius.meters,
            filter: PlaceFilter(categories: categories, text: query), limit: limit)
        if !result.statuses.isEmpty, result.statuses.allSatisfy({ $0.state != .ok }) {
            throw APIProblem(
                .serviceUnavailable,
                "no source answered: " + result.statuses.compactMap { $0.error?.description }.joined(separator: "; "),
                headers: [.retryAfter: "30"])
        }
        let answer = SearchAnswer(query: description, answer: result)
        return format == .geojson ? .bytes(answer.geoJSON(), contentType: "application/geo+json") : .bytes(answer.json())
    }

    /// `GET /v1/weather`.
    func weather(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["lat", "lon", "provider", "days"])
        let coordinate = try parameters.coordinate()
        let days = try parameters.int("days", range: 1...16) ?? 7
        let word = (try parameters.single("provider") ?? "open-meteo").lowercased()
        guard let name = ProviderName(rawValue: word), ProviderName.weather.contains(name) else {
            throw APIProblem.badRequest("provider '\(word)' is unknown; use open-meteo, openweathermap or pirateweather")
        }
        let settings = configuration.providers
        let adapter: any WeatherProvider =
            switch name {
            case .openWeatherMap: OpenWeatherMapAdapter(settings: settings)
            case .pirateWeather: PirateWeatherAdapter(settings: settings)
            default: OpenMeteoAdapter(settings: settings)
            }
        return .json(WeatherAnswer.json(try await adapter.weather(at: coordinate, days: days)))
    }

    /// `provider=google,yelp,…|local|all` (default all), as the CLI's `--provider`.
    static func providers(_ words: [String]) throws -> [ProviderName] {
        var chosen: [ProviderName] = []
        for word in (words.isEmpty ? ["all"] : words).map({ $0.lowercased() }) {
            if word == "all" {
                chosen += ProviderName.places
                continue
            }
            guard let name = ProviderName(rawValue: word), ProviderName.places.contains(name) else {
                throw APIProblem.badRequest("provider '\(word)' is unknown; use google, yelp, foursquare, here, local or all")
            }
            chosen.append(name)
        }
        return ProviderName.places.filter(chosen.contains)
    }
}
