import Discovery
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Providers
import Regions
import Trips

/// `GET /v1/discover/random-city`: "surprise me".
extension GeoQueryService {
    /// The groups of suggestions around a city, by the taxonomy's top level, in display order.
    static let suggestionGroups = ["historic", "culture", "landmark", "nature", "water", "activity", "food", "drink", "religious", "shopping"]
    /// Seeds are at most 2^53 − 1, so that a JavaScript client reads them back exactly.
    static let largestSeed = 9_007_199_254_740_991

    func addRandomCityRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let timeout = configuration.requestTimeout
        groups.viewers.route(.get, "/v1/discover/random-city", in: &table, bound: .cancelling(timeout)) { try await surpriseCity($0, $1) }
    }

    /// What "surprise me" asks: where (continent, country), how big, how drawn, and how many
    /// suggestions per group.
    struct SurpriseInput: Sendable {
        var continent: Continent?
        var country: String?
        var minimumPopulation: Int
        var weighting: CityWeighting
        var seed: Int
        var perGroup: Int

        init(_ parameters: QueryParameters, countries: CountryTable) throws {
            continent = try parameters.single("continent").map { text in
                guard let continent = Continent(codeOrName: text) else {
                    throw APIProblem.badRequest(
                        "continent '\(text)' is invalid: use one of \(Continent.allCases.map(\.rawValue).joined(separator: ", ")) or a name such as Europe"
                    )
                }
                return continent
            }
            country = try parameters.single("country").map { text -> String in
                guard case .country(let code, _)? = try? RegionQuery(parsing: "country:" + text, countries: countries) else {
                    throw APIProblem.badRequest("country '\(text)' is invalid: give an ISO 3166 code such as FR or a name such as France")
                }
                return code
            }
            minimumPopulation = try parameters.int("min_population", range: 0...100_000_000) ?? 0
            weighting =
                try parameters.single("weighting").map { text in
                    guard let weighting = CityWeighting(rawValue: text.lowercased()) else {
                        throw APIProblem.badRequest("weighting '\(text)' is invalid: use uniform or population")
                    }
                    return weighting
                } ?? .uniform
            seed = try parameters.int("seed", range: 0...GeoQueryService.largestSeed) ?? Int.random(in: 0...GeoQueryService.largestSeed)
            perGroup = try parameters.int("per_group", range: 1...20) ?? 5
        }
    }

    /// `GET /v1/discover/random-city`.
    func surpriseCity(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["continent", "country", "min_population", "weighting", "seed", "per_group"])
        let input = try SurpriseInput(parameters, countries: configuration.countries)
        let (viewer, friends) = context.viewerScope
        let directory = try await cities.current(index)
        let eligible = RandomCityPicker.eligible(
            directory.cities.map(\.place), continent: input.continent, country: input.country,
            minimumPopulation: input.minimumPopulation, countries: configuration.countries)
        let picker = RandomCityPicker(cities: eligible, weighting: input.weighting)
        // The city this user was shown last, whichever server showed it: the draw goes around it.
        var previous: PlaceID?
        if let viewer, let store = userData { previous = try await store.lastRandomCity(of: viewer).flatMap { try? PlaceID($0) } }
        guard let city = picker.pick(seed: UInt64(input.seed), avoiding: previous) else {
            throw APIProblem(
                .notFound,
                "no city matches: continent \(input.continent?.rawValue ?? "any"), country \(input.country ?? "any"), at least \(input.minimumPopulation) people"
            )
        }
        if let viewer, let store = userData { try await store.rememberRandomCity(city.id.rawValue, for: viewer) }
        let extras = await cityExtras(city, perGroup: input.perGroup, viewer: viewer, friends: friends, timeout: configuration.requestTimeout)
        return .writer(surpriseJSON(input, candidates: eligible.count, city: city, extras: extras))
    }

    /// The answer of "surprise me": the draw, the city, its picture, weather, airports and
    /// suggestions by group, and which providers failed.
    func surpriseJSON(_ input: SurpriseInput, candidates: Int, city: Place, extras: CityExtras) -> JSONWriter {
        var json = JSONWriter(capacity: 8_192)
        json.beginObject()
        json.key("seed")
        json.int(input.seed)
        json.key("weighting")
        json.string(input.weighting.rawValue)
        json.key("candidates")
        json.int(candidates)
        json.key("city")
        CityJSON.write(city, countries: configuration.countries, to: &json)
        json.key("image")
        if let image = extras.image { ImageAnswer.json(image).write(to: &json) } else { json.null() }
        json.key("weather")
        if let weather = extras.weather { WeatherAnswer.json(weather).write(to: &json) } else { json.null() }
        json.key("airports")
        json.beginArray()
        for airport in extras.airports { PlaceJSON.write(airport, to: &json, includeCoordinates: true) }
        json.endArray()
        json.key("suggestion_radius_m")
        json.double(extras.radius.meters)
        json.key("suggestions")
        json.beginArray()
        for (group, matches) in extras.groups {
            json.beginObject()
            json.key("group")
            json.string(group)
            json.key("places")
            json.beginArray()
            for match in matches { PlaceJSON.write(match, to: &json, includeCoordinates: true) }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.key("sources")
        json.beginArray()
        for (source, problem) in extras.problems {
            json.beginObject()
            json.key("provider")
            json.string(source)
            json.key("error")
            json.string(problem)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json
    }

    /// `POST /v1/me/favorites` `{"place_id", "suggestions": [ids], "title"}`: saves a place as a
    /// favourite and, with suggestions, a private one-day itinerary of them (a "surprise me"
    /// result kept as it was shown).
    func addSaveFavoriteRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        groups.creators.route(.post, "/v1/me/favorites", in: &table, bound: .queries(configuration.requestTimeout)) { try await saveFavorite($0, $1) }
    }

    /// `POST /v1/me/favorites`.
    func saveFavorite(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 65_536, allowed: ["place_id", "suggestions", "title"])
        let text = try body.requiredString("place_id", maxLength: 300)
        guard let id = try? PlaceID(text) else {
            throw APIProblem.badRequest("place_id '\(text)' is invalid: give an id such as geonames:2267057")
        }
        try await checkFavoritable(id, viewer: user.username)
        let suggestions = try (body.strings("suggestions", maxCount: 100, maxLength: 300) ?? []).map { text in
            guard let id = try? PlaceID(text) else { throw APIProblem.badRequest("suggestion '\(text)' is invalid: give place ids") }
            try Self.checkProviderID(id, field: "suggestion:")
            return id
        }
        var stops: [ItineraryStop] = []
        let suggested = try await searchIndex.places(suggestions)  // one read for them all
        for suggestion in suggestions {
            guard let place = suggested[suggestion], try await mayOpen(place, viewer: user.username) else {
                throw APIProblem.badRequest("suggestion \(suggestion) is not a place you can see")
            }
            stops.append(
                ItineraryStop(
                    id: "s_" + Self.shortID(), location: PlanLocation(placeID: place.id.rawValue, coordinate: place.coordinate, name: place.name),
                    day: 1, durationMinutes: ItinerarySuggester.visitLength(of: place, pace: .normal)))
        }
        let added = try await requireUserData().addFavorite(id, for: user.username, at: Date())
        if added { await countActivity(.favorite, [id.rawValue]) }
        var savedID: String?
        if !stops.isEmpty {
            guard let place = try await searchIndex.place(id) else { throw APIProblem(.notFound, "no place with id \(id)") }
            let destination = PlanLocation(placeID: id.rawValue, coordinate: place.coordinate, name: place.name)
            guard let zone = try await timeZone(of: destination) else {
                throw APIProblem.badRequest("the place's time zone is unknown, so its suggestions cannot be saved as a plan")
            }
            let today = LocalDate(Timestamp.iso8601(Date()).prefix(10).description)!
            var document = ItineraryDocument(
                title: try body.string("title", maxLength: 200) ?? "Surprise: \(place.name)", destination: destination,
                startDate: today.description, endDate: today.description, timeZone: zone)
            document.stops = stops
            let now = Date()
            let (starts, ends) = try Self.itineraryInstants(document)
            let record = PlanRecord(
                id: Self.newPlanID(.itinerary), kind: .itinerary, owner: user.username, visibility: .private,
                startsAt: starts, endsAt: ends, createdAt: now, updatedAt: now, document: try Self.encodeDocument(document))
            try await requireUserData().createPlan(record)
            savedID = record.id
        }
        return .json(
            .object([("place_id", .string(id.rawValue)), ("favorite", .bool(true)), ("itinerary_id", .optional(savedID))]),
            status: added || savedID != nil ? .created : .ok)
    }

    /// What is shown with a city: its picture, the weather now, the nearest airports and
    /// suggestions by group. The picture and the weather are niceties: each is asked with a
    /// share of the request's time and left out (named under `sources`) when it fails.
    struct CityExtras: Sendable {
        var image: PlaceImage?
        var weather: Weather?
        var airports: [PlaceMatch] = []
        var radius: Distance
        var groups: [(String, [PlaceMatch])] = []
        var problems: [(String, String)] = []
    }

    func cityExtras(_ city: Place, perGroup: Int, viewer: String?, friends: [String], timeout: Duration) async -> CityExtras {
        let radius = CityExtent.radius(population: RandomCityPicker.population(of: city))
        let seconds = max(1, Double(timeout.components.seconds) * 0.5)
        var settings = configuration.providers
        settings.timeout = min(settings.timeout, seconds)
        settings.retry = RetryPolicy(maxAttempts: 1, baseDelay: 0, maxDelay: 0)
        let search = imageSearch.adjusted(settings)
        let providerSettings = settings
        // The remote place providers whose keys are set add their places to the groups.
        let keyed = ProviderName.remotePlaces.filter { (try? providerSettings.environment.key(for: $0)) != nil }
        let groupCategories = Self.suggestionGroups.map { Category(trustedIdentifier: $0) }
        let title = [city.name, configuration.countries[city.address?.countryCode]?.name].compactMap { $0 }.joined(separator: " ")
        let parts = await withTaskGroup(of: CityExtraPart.self) { group -> [CityExtraPart] in
            group.addTask { await CityExtraPart.image(of: city, titled: title, search: search) }
            group.addTask { await CityExtraPart.weather(at: city.coordinate, settings: providerSettings) }
            group.addTask {
                do {
                    return .airports(try await self.nearestAirports(city.coordinate, count: 3, maxDistance: Distance(uncheckedMeters: 300_000)), nil)
                } catch {
                    return .airports([], String(describing: error))
                }
            }
            for (number, name) in Self.suggestionGroups.enumerated() {
                group.addTask {
                    var filter = PlaceFilter(categories: [Category(trustedIdentifier: name)])
                    filter.viewer = viewer
                    filter.viewerFriends = friends
                    do {
                        let page = try await self.searchIndex.near(city.coordinate, radius: radius, filter: filter, limit: perGroup, cursor: nil)
                        return .group(number, page.matches, nil)
                    } catch {
                        return .group(number, [], String(describing: error))
                    }
                }
            }
            if !keyed.isEmpty {
                group.addTask {
                    let sources = FederatedSearch.sources(keyed, settings: providerSettings, localIndex: nil)
                    let answer = await FederatedSearch(sources: sources, deadline: seconds)
                        .search(near: city.coordinate, radius: radius, categories: groupCategories, limit: 60)
                    let problems = answer.statuses.compactMap { status in status.error.map { (status.provider.rawValue, $0.description) } }
                    return .providers(answer.places, problems)
                }
            }
            var collected: [CityExtraPart] = []
            for await part in group { collected.append(part) }
            return collected
        }
        return Self.assemble(parts, into: CityExtras(radius: radius), perGroup: perGroup)
    }

    /// The parts of a city's extras put together: each found thing in its place, each failure
    /// among the problems, the provider places in the local groups.
    static func assemble(_ parts: [CityExtraPart], into extras: CityExtras, perGroup: Int) -> CityExtras {
        var extras = extras
        var groups: [(Int, [PlaceMatch])] = []
        var remote: [MergedPlace] = []
        for part in parts {
            switch part {
            case .image(let images, let failures):
                extras.image = images.first
                for (name, error) in failures.sorted(by: { $0.key < $1.key }) { extras.problems.append((name.rawValue, error.description)) }
            case .weather(let weather, let problem):
                extras.weather = weather
                if let problem { extras.problems.append((ProviderName.openMeteo.rawValue, problem)) }
            case .airports(let airports, let problem):
                extras.airports = airports
                if let problem { extras.problems.append(("local", problem)) }
            case .group(let number, let matches, let problem):
                if !matches.isEmpty { groups.append((number, matches)) }
                if let problem { extras.problems.append(("local", problem)) }
            case .providers(let places, let problems):
                remote = places
                extras.problems += problems
            }
        }
        // Each provider place joins the group of its first top-level category, unless it is a
        // local place already (by any source id) or outside the city's reach; each group stays
        // nearest first and capped.
        let localIDs = Set(groups.flatMap { $0.1.map(\.id) })
        for place in remote where place.distance.meters <= extras.radius.meters && !place.sourceIDs.contains(where: localIDs.contains) {
            guard let number = place.place.categories.lazy.compactMap({ Self.suggestionGroups.firstIndex(of: $0.topLevel.identifier) }).first
            else { continue }
            let match = PlaceMatch(place: place.place, distance: place.distance)
            if let slot = groups.firstIndex(where: { $0.0 == number }) { groups[slot].1.append(match) } else { groups.append((number, [match])) }
        }
        groups = groups.map { number, matches in
            (
                number,
                Array(matches.sorted { ($0.distance?.meters ?? 0, $0.id.rawValue) < ($1.distance?.meters ?? 0, $1.id.rawValue) }.prefix(perGroup))
            )
        }
        extras.groups = groups.sorted { $0.0 < $1.0 }.map { (Self.suggestionGroups[$0.0], $0.1) }
        return extras
    }
}

/// One part of a city's extras, as its task found it.
enum CityExtraPart: Sendable {
    case image([PlaceImage], [ProviderName: ProviderError])
    case weather(Weather?, String?)
    case airports([PlaceMatch], String?)
    /// The places of suggestion group `number`.
    case group(Int, [PlaceMatch], String?)
    case providers([MergedPlace], [(String, String)])

    /// The first image of `city` (searched as `title`), and each provider's failure.
    static func image(of city: Place, titled title: String, search: ImageSearch) async -> CityExtraPart {
        guard let query = try? ImageQuery(coordinate: city.coordinate, title: title, radius: Distance(uncheckedMeters: 5_000), limit: 1) else {
            return .image([], [:])
        }
        let (images, failures) = await search.firstImages(for: query)
        return .image(images, failures)
    }

    /// Today's weather at `coordinate`, or why there is none.
    static func weather(at coordinate: Coordinate, settings: ProviderSettings) async -> CityExtraPart {
        do { return .weather(try await OpenMeteoAdapter(settings: settings).weather(at: coordinate, days: 1), nil) } catch {
            return .weather(nil, String(describing: error))
        }
    }
}
