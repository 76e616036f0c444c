import Discovery
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery

/// `GET /v1/discover/popular`, and the counting of what people do that feeds it.
extension GeoQueryService {
    /// Counts `activity` on the places `ids` (at most 20) and on their destinations: the place
    /// itself when it is a city, else the city within 30 km it is best described as near, as
    /// `/v1/where` says (``Whereabouts/bestCity(among:)``: the Louvre counts for Paris, not for
    /// the district GeoNames lists nearer). Popularity is a nicety: a
    /// failure here is logged and never fails the action that caused it.
    func countActivity(_ activity: PlaceActivity, _ ids: [String?]) async {
        guard let store = userData else { return }
        var subjects: [(kind: PopularKind, id: PlaceID)] = []
        for text in ids.compactMap({ $0 }).prefix(20) {
            guard let id = try? PlaceID(text) else { continue }
            subjects.append((.place, id))
            do {
                if let place = try await searchIndex.place(id), let destination = try await destination(of: place) {
                    subjects.append((.destination, destination))
                }
            } catch {
                logger.debug("popularity: no destination for \(text): \(error)")
            }
        }
        do { try await store.recordActivity(activity, subjects: subjects, at: Date()) } catch {
            logger.warning("popularity: \(activity.rawValue) not counted: \(error)")
        }
    }

    func destination(of place: Place) async throws -> PlaceID? {
        if place.categories.contains(.city) { return place.id }
        let nearby = try await cities.current(index).nearby
        let candidates = nearby.nearest(place.coordinate, count: Whereabouts.candidateCount, within: Distance(uncheckedMeters: 30_000))
        return Whereabouts.bestCity(among: candidates)?.id
    }

    func addPopularRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        groups.viewers.route(.get, "/v1/discover/popular", in: &table, bound: .queries(configuration.requestTimeout)) {
            try await listPopular($0, $1)
        }
    }

    /// `GET /v1/discover/popular`.
    func listPopular(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["kind", "region", "category", "period", "limit", "cursor"])
        let kind: PopularKind =
            switch try parameters.single("kind")?.lowercased() {
            case nil, "places", "place": .place
            case "destinations", "destination": .destination
            case let other?: throw APIProblem.badRequest("kind '\(other)' is invalid: use places or destinations")
            }
        let period =
            try parameters.single("period").map { text in
                guard let period = PopularityPeriod(text: text) else {
                    throw APIProblem.badRequest("period '\(text)' is invalid: use 7d, 30d or 365d")
                }
                return period
            } ?? .month
        let limit = try parameters.int("limit", range: 1...100) ?? 20
        var filter = PlaceFilter(categories: try parameters.list("category").map { try Category($0) })
        if kind == .destination, !filter.categories.isEmpty {
            throw APIProblem.badRequest("category applies to kind=places; destinations are cities")
        }
        let city = try await region(parameters, filter: &filter)
        (filter.viewer, filter.viewerFriends) = context.viewerScope
        // The cursor keeps the first page's instant, so every page reads scores at one moment.
        let after = try ListCursor.position(request, parameters).map { text in
            guard let position = PopularRanking.Position(text: text) else {
                throw APIProblem.badRequest("cursor '\(text.prefix(40))' is invalid: pass next_cursor of the previous page")
            }
            return position
        }
        let area = city.map { (center: $0.coordinate, meters: CityExtent.radius(population: RandomCityPicker.population(of: $0)).meters) }
        let ranking = PopularRanking(activity: try requireUserData(), places: searchIndex)
        let page = try await ranking.page(kind, period: period, filter: filter, within: area, after: after, limit: limit)
        let query: [(StaticString, String?)] = [
            ("kind", kind == .place ? "places" : "destinations"), ("period", "\(period.rawValue)d"), ("region", try parameters.single("region")),
        ]
        return .writer(Self.popularJSON(page, query: query, limit: limit, next: page.next.map { ListCursor.encode($0.text, for: request) }))
    }

    /// A page of popular places as the route answers it.
    static func popularJSON(_ page: PopularRanking.Page, query: [(StaticString, String?)], limit: Int, next: String?) -> JSONWriter {
        var json = JSONWriter(capacity: 2_048 + page.items.count * 700)
        json.beginObject()
        json.key("query")
        json.beginObject()
        for (key, value) in query {
            json.key(key)
            json.string(value)
        }
        json.key("limit")
        json.int(limit)
        json.endObject()
        json.key("count")
        json.int(page.items.count)
        json.key("results")
        json.beginArray()
        for item in page.items {
            json.beginObject()
            for (key, value) in [("score", item.score), ("activity", item.activity), ("prior", item.prior)] as [(StaticString, Double)] {
                json.key(key)
                json.double((value * 1_000).rounded() / 1_000)
            }
            json.key("events")
            json.int(item.entry.events)
            json.key("last_activity_at")
            json.timestamp(item.entry.lastActivity)
            json.key("place")
            PlaceJSON.write(item.place, distance: nil, to: &json, includeCoordinates: true)
            json.endObject()
        }
        json.endArray()
        json.key("next_cursor")
        json.string(next)
        json.endObject()
        return json
    }
}
