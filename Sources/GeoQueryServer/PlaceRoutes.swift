import Discovery
import Foundation
import GeoCore
import GeoQueryWire
import HTTPTypes
import Hummingbird
import PlaceModel
import PlaceQuery
import Regions

/// `/v1/places/…`, `/v1/cities`, `/v1/airports/near`, `/v1/where`: the index's queries with the CLI's answer
/// contracts and parameter names; and `/v1/categories`, the taxonomy their filters take.
extension GeoQueryService {
    /// The filter parameters every place query takes (named as the CLI's options).
    public static let filterParameters = ["category", "query", "source", "min_rating", "price", "country", "continent", "open_now", "open_at"]

    func addPlaceRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let deadline = RequestBound.queries(configuration.requestTimeout)
        groups.viewers.route(.get, "/v1/places", in: &table, bound: deadline) { try await listRegionPlaces($0, $1) }
        groups.viewers.route(.get, "/v1/places/near", in: &table, bound: deadline) { try await listPlacesNear($0, $1) }
        groups.viewers.route(.get, "/v1/places/bbox", in: &table, bound: deadline) { try await listPlacesInBox($0, $1) }
        groups.viewers.route(.get, "/v1/places/nearest", in: &table, bound: deadline) { try await listNearestPlaces($0, $1) }
        groups.viewers.route(.get, "/v1/places/{id}", in: &table, bound: deadline) { try await showPlace($0, $1) }
        router.route(.get, "/v1/cities", in: &table, bound: deadline) { try await findCities($0, $1) }
        router.route(.get, "/v1/categories", in: &table, bound: deadline) { try await listCategories($0, $1) }
        router.route(.get, "/v1/airports/near", in: &table, bound: deadline) { try await listAirportsNear($0, $1) }
        router.route(.get, "/v1/where", in: &table, bound: deadline) { try await describeWhere($0, $1) }
    }

    /// `GET /v1/places`.
    func listRegionPlaces(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["region", "limit", "cursor", "format"] + Self.filterParameters)
        var filter = try parameters.filter(countries: knownCountries)
        if let city = try await region(parameters, filter: &filter) {
            throw APIProblem.badRequest("region '\(city.name)' is a city: ask /v1/places/near?region=\(city.name) for the places around it")
        }
        return try await rankedAnswer(parameters, filter: filter, request: request, viewerScope: context.viewerScope)
    }

    /// `GET /v1/places/near`.
    func listPlacesNear(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(
            request, allowed: ["lat", "lon", "radius", "region", "limit", "cursor", "format"] + Self.filterParameters)
        var filter = try parameters.filter(countries: knownCountries)
        // A country or continent with no centre: the region's places, best first.
        if try parameters.single("region") != nil, try parameters.optionalCoordinate() == nil, try parameters.single("radius") == nil {
            var regional = filter
            if try await region(parameters, filter: &regional) == nil {
                return try await rankedAnswer(parameters, filter: regional, request: request, viewerScope: context.viewerScope)
            }
        }
        let (center, radius) = try await circle(parameters, filter: &filter)
        (filter.viewer, filter.viewerFriends) = context.viewerScope
        let limit = try pageLimit(parameters)
        let format = try AnswerFormat(parameters)
        let page = try await searchIndex.near(center, radius: radius, filter: filter, limit: limit, cursor: try parameters.single("cursor"))
        let query = QueryDescription(
            kind: "near", lat: center.latitude, lon: center.longitude, radiusMeters: radius.meters,
            filter: filter, limit: limit)
        return answer(PlaceAnswer(query: query, page: page), format: format, request: request)
    }

    /// `GET /v1/places/bbox`.
    func listPlacesInBox(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["bbox", "region", "limit", "cursor", "format"] + Self.filterParameters)
        var filter = try parameters.filter(countries: knownCountries)
        if let city = try await region(parameters, filter: &filter) {
            throw APIProblem.badRequest("region '\(city.name)' is a city: ask /v1/places/near?region=\(city.name) for the places around it")
        }
        let text = try parameters.required("bbox", example: "2.2,48.8,2.4,48.9")
        let box: BoundingBox
        do { box = try BoundingBox(parsing: text) } catch { throw APIProblem.badRequest("bbox: \(error)") }
        (filter.viewer, filter.viewerFriends) = context.viewerScope
        let limit = try pageLimit(parameters)
        let format = try AnswerFormat(parameters)
        let page = try await searchIndex.within(box, filter: filter, limit: limit, cursor: try parameters.single("cursor"))
        let query = QueryDescription(kind: "bbox", bbox: [box.west, box.south, box.east, box.north], filter: filter, limit: limit)
        return answer(PlaceAnswer(query: query, page: page), format: format, request: request)
    }

    /// `GET /v1/places/nearest`.
    func listNearestPlaces(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["lat", "lon", "k", "max_distance", "format"] + Self.filterParameters)
        let center = try parameters.coordinate()
        let k = try parameters.int("k", range: 1...configuration.maximumNearestCount) ?? 10
        let ceiling = try parameters.distance("max_distance")
        var filter = try parameters.filter(countries: knownCountries)
        (filter.viewer, filter.viewerFriends) = context.viewerScope
        let format = try AnswerFormat(parameters)
        let matches = try await searchIndex.nearest(center, count: k, maxDistance: ceiling, filter: filter)
        let query = QueryDescription(
            kind: "nearest", lat: center.latitude, lon: center.longitude, radiusMeters: ceiling?.meters,
            filter: filter, limit: k)
        return answer(PlaceAnswer(query: query, page: PlacePage(matches: matches, nextCursor: nil)), format: format, request: request)
    }

    /// `GET /v1/places/{id}`.
    func showPlace(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["format"])
        let format = try AnswerFormat(parameters)
        // Path parameters arrive as sent: `geonames%3A2988507` is `geonames:2988507`.
        let raw = try context.parameters.require("id")
        let text = raw.removingPercentEncoding ?? raw
        let id: PlaceID
        do { id = try PlaceID(text) } catch { throw APIProblem.badRequest(String(describing: error)) }
        let viewer = context.identity?.username
        guard let place = try await searchIndex.place(id), try await mayOpen(place, viewer: viewer) else {
            throw APIProblem(.notFound, "no place with id \(text)")
        }
        let query = QueryDescription(kind: "place", id: text)
        return answer(
            PlaceAnswer(query: query, page: PlacePage(matches: [PlaceMatch(place: place, distance: nil)], nextCursor: nil)),
            format: format, request: request)
    }

    /// `GET /v1/cities`.
    func findCities(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["q", "limit", "country", "continent"])
        let text = try parameters.required("q", example: "par")
        guard text.count <= 100 else { throw APIProblem.badRequest("q is \(text.count) characters long; give at most 100") }
        let limit = try parameters.int("limit", range: 1...50) ?? 10
        let country = try parameters.single("country").map { $0.uppercased() }
        if let country, country.count != 2 || !country.allSatisfy(\.isLetter) {
            throw APIProblem.badRequest("country '\(country)' is invalid: give an ISO 3166 alpha-2 code such as FR")
        }
        let continent = try parameters.single("continent").map { $0.uppercased() }
        if let continent, !Self.continents.contains(continent) {
            throw APIProblem.badRequest("continent '\(continent)' is invalid: use one of \(Self.continents.joined(separator: ", "))")
        }
        let cities = try await citySearch(text, limit: limit, country: country, continent: continent)
        var json = JSONWriter(pretty: false, capacity: 256 + cities.count * 300)
        json.beginObject()
        json.key("query")
        json.beginObject()
        json.key("kind")
        json.string("cities")
        json.key("q")
        json.string(text)
        json.member("country", country)
        json.member("continent", continent)
        json.key("limit")
        json.int(limit)
        json.endObject()
        json.key("count")
        json.int(cities.count)
        json.key("cities")
        json.beginArray()
        for place in cities { CityJSON.write(place, countries: configuration.countries, to: &json) }
        json.endArray()
        json.endObject()
        return .writer(json)
    }

    /// `GET /v1/categories`.
    func listCategories(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return Self.categoryAnswer.response(to: request)
    }

    /// `GET /v1/airports/near`.
    func listAirportsNear(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["lat", "lon", "k", "max_distance"])
        let center = try parameters.coordinate()
        let k = try parameters.int("k", range: 1...50) ?? 5
        let ceiling = try parameters.distance("max_distance")
        let airports = try await nearestAirports(center, count: k, maxDistance: ceiling)
        let query = QueryDescription(
            kind: "airports", lat: center.latitude, lon: center.longitude, radiusMeters: ceiling?.meters,
            limit: k)
        return answer(PlaceAnswer(query: query, page: PlacePage(matches: airports, nextCursor: nil)), format: .json, request: request)
    }

    /// `GET /v1/where`.
    func describeWhere(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["lat", "lon", "radius", "limit"])
        let center = try parameters.coordinate()
        let radius = try parameters.distance("radius") ?? Self.whereRadius
        let limit = try parameters.int("limit", range: 1...Whereabouts.maximumCityCount) ?? 5
        // The cities of the autocomplete's list (the index's, rebuilt as it changes), by position.
        let nearby = try await cities.current(index).nearby
        let whereabouts = try await Whereabouts.find(
            at: center, within: radius, cityCount: limit,
            regions: configuration.regions, countries: configuration.countries
        ) {
            center, count, radius, _ in nearby.nearest(center, count: count, within: radius)
        }
        var json = JSONWriter(pretty: false, capacity: 512 + limit * 300)
        WhereaboutsAnswer.write(whereabouts, radius: radius, limit: limit, countries: configuration.countries, to: &json)
        return .writer(json)
    }

    /// How far `GET /v1/where` looks for cities unless asked: 50 km.
    static let whereRadius = Distance(uncheckedMeters: 50_000)

    static let linkHeader = HTTPField.Name("Link")!

    /// The taxonomy's answer, written once: it changes only with a new version.
    static let categoryAnswer: UnchangingAnswer = {
        var writer = JSONWriter(pretty: false, capacity: 8_192)
        CategoryAnswer.json().write(to: &writer)
        return UnchangingAnswer(bytes: writer.bytes, cacheControl: "public, max-age=86400")
    }()

    static let continents = ["AF", "AN", "AS", "EU", "NA", "OC", "SA"]

    /// `limit`: 1 to the page maximum, default ``ServiceConfiguration/defaultPageSize``; `all`
    /// is a CLI convenience that HTTP does not offer.
    func pageLimit(_ parameters: QueryParameters) throws -> Int {
        guard let text = try parameters.single("limit") else { return configuration.defaultPageSize }
        let maximum = configuration.maximumPageSize
        guard let value = Int(text), (1...maximum).contains(value) else {
            throw APIProblem.badRequest("limit '\(text)' is invalid: it must be a whole number from 1 to \(maximum); use next_cursor for more")
        }
        return value
    }

    /// The answer in the asked format, with a `Link: <…>; rel="next"` header when there is a next page.
    func answer(_ answer: PlaceAnswer, format: AnswerFormat, request: Request) -> Response {
        let headers = Self.pagingHeaders(answer, request: request)
        switch format {
        case .json:
            var json = JSONWriter(capacity: answer.estimatedSize)
            answer.write(to: &json)
            return .writer(json, headers: headers)
        case .geojson:
            var json = JSONWriter(capacity: answer.estimatedSize)
            answer.writeGeoJSON(to: &json)
            return .writer(json, contentType: "application/geo+json", headers: headers)
        case .csv: return .bytes(Array(answer.csv().utf8), contentType: "text/csv; charset=utf-8", headers: headers)
        }
    }

    /// `Link: <…>; rel="next"` when the answer has a next page.
    static func pagingHeaders(_ answer: PlaceAnswer, request: Request) -> HTTPFields {
        guard let cursor = answer.page.nextCursor else { return [:] }
        return [linkHeader: "<\(nextURL(request, cursor: cursor))>; rel=\"next\""]
    }

    /// The request's own path and query with `cursor` set to the next page's.
    static func nextURL(_ request: Request, cursor: String) -> String {
        var components = URLComponents()
        components.path = request.uri.path
        var items = QueryParameters.pairs(request).filter { $0.0 != "cursor" }.map { URLQueryItem(name: $0.0, value: $0.1) }
        items.append(URLQueryItem(name: "cursor", value: cursor))
        components.queryItems = items
        return components.string ?? request.uri.path
    }

    /// The places of the countries and continents `filter` names, best first (highest rating,
    /// then most ratings, then id), as `GET /v1/places` answers them.
    func rankedAnswer(
        _ parameters: QueryParameters, filter: PlaceFilter, request: Request, viewerScope: (String?, [String])
    ) async throws -> Response {
        guard !filter.countries.isEmpty || !filter.continents.isEmpty else {
            throw APIProblem.badRequest(
                "places by region need a region: region=fr, region=France, region=EU or region=Europe (or country= / continent=)")
        }
        var filter = filter
        (filter.viewer, filter.viewerFriends) = viewerScope
        let limit = try pageLimit(parameters)
        let format = try AnswerFormat(parameters)
        let page = try await searchIndex.ranked(filter: filter, limit: limit, cursor: try parameters.single("cursor"))
        let query = QueryDescription(kind: "region", filter: filter, limit: limit, extra: [("order", .string("rating"))])
        return answer(PlaceAnswer(query: query, page: page), format: format, request: request)
    }

    /// `region=` read into the query: a country or a continent narrows `filter`; a city is
    /// returned (nil otherwise), for the caller to centre on.
    func region(_ parameters: QueryParameters, filter: inout PlaceFilter) async throws -> Place? {
        guard let text = try parameters.single("region") else { return nil }
        let region: RegionQuery
        do { region = try RegionQuery(parsing: text, countries: configuration.countries) } catch { throw APIProblem.badRequest(error.description) }
        switch region {
        case .country(let code, _):
            guard filter.countries.isEmpty else { throw APIProblem.badRequest("region and country are both given: give one") }
            filter.countries = [code]
        case .continent(let continent):
            guard filter.continents.isEmpty else { throw APIProblem.badRequest("region and continent are both given: give one") }
            filter.continents = [continent]
        case .city(let name):
            guard let city = try await city(named: name) else {
                throw APIProblem.badRequest(
                    "region '\(text)' is not a country, continent or city GeoQuery knows; give an ISO code (fr), a country (France), a continent (EU, Europe) or a city (Paris)"
                )
            }
            return city
        }
        return nil
    }

    /// The centre and radius of a near or search query: `lat`, `lon` and `radius`, or a city
    /// named by `region` (its centre, and its extent unless `radius` is given).
    func circle(_ parameters: QueryParameters, filter: inout PlaceFilter) async throws -> (Coordinate, Distance) {
        if let city = try await region(parameters, filter: &filter) {
            guard try parameters.optionalCoordinate() == nil else {
                throw APIProblem.badRequest("region '\(city.name)' is a city and sets the centre: leave out lat and lon, or the region")
            }
            let radius = try parameters.distance("radius") ?? CityExtent.radius(population: RandomCityPicker.population(of: city))
            return (city.coordinate, radius)
        }
        let center = try parameters.coordinate()
        guard let radius = try parameters.distance("radius") else {
            throw APIProblem.badRequest("query parameter 'radius' is required, e.g. radius=20mi (units m, km, mi, ft, yd, nmi)")
        }
        return (center, radius)
    }

    /// The city a name means: the most populous whose whole name is it (case and accents
    /// ignored), else the best autocomplete match.
    func city(named name: String) async throws -> Place? {
        let found = try await cities.current(index).search(name, limit: 50) { _ in true }
        let folded = CityDirectory.fold(name.trimmingCharacters(in: .whitespaces))
        let exact = found.filter { CityDirectory.fold($0.name) == folded }
        return exact.max { RandomCityPicker.population(of: $0) < RandomCityPicker.population(of: $1) } ?? found.first
    }

    /// Cities whose name has a word starting with each word of `text` (case and accents
    /// ignored): names that start with it first, then by population, then by name.
    func citySearch(_ text: String, limit: Int, country: String?, continent: String?) async throws -> [Place] {
        let directory = try await cities.current(index)
        return directory.search(text, limit: limit) { place in
            let code = place.address?.countryCode?.uppercased()
            if let country, code != country { return false }
            if let continent, configuration.countries[code]?.continent != continent { return false }
            return true
        }
    }

    /// The `count` nearest airports with an IATA code, nearest first: asks for ever more
    /// airports until enough have a code (most small airfields have none).
    func nearestAirports(_ center: Coordinate, count: Int, maxDistance: Distance?) async throws -> [PlaceMatch] {
        let filter = PlaceFilter(categories: [try Category("transport.airport")])
        var asked = count * 8
        while true {
            let matches = try await index.nearest(center, count: asked, maxDistance: maxDistance, filter: filter)
            let coded = matches.filter { !($0.place.tags["iata"] ?? "").isEmpty }
            if coded.count >= count || matches.count < asked || asked >= 8192 { return Array(coded.prefix(count)) }
            asked *= 4
        }
    }
}

/// `format=json|geojson|csv` (default json).
enum AnswerFormat: String {
    case json, geojson, csv

    init(_ parameters: QueryParameters) throws {
        guard let text = try parameters.single("format") else {
            self = .json
            return
        }
        guard let format = AnswerFormat(rawValue: text.lowercased()) else {
            throw APIProblem.badRequest("format '\(text)' is invalid: use json, geojson or csv")
        }
        self = format
    }
}
