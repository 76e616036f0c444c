import Discovery
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery

/// `GET /v1/discover/popular`, and the counting of what people do that feeds it.
extension GeoQueryService {
    /// The most a provider's ratings add to a place's popularity (what ten thousand 5-star
    /// reviews earn; one favourite today is worth 3).
    static let maximumPrior = 2.0

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

    /// A place's prior from its provider ratings: up to ``maximumPrior``, by how many ratings
    /// (log scale) and how good they are.
    static func prior(_ place: Place) -> Double {
        guard let rating = place.rating else { return 0 }
        return min(maximumPrior, 0.5 * log10(1 + Double(rating.count ?? 0))) * rating.value / 5
    }

    func addPopularRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        router.route(.get, "/v1/discover/popular", in: &table, bound: .queries(configuration.requestTimeout)) { try await listPopular($0, $1) }
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
        (filter.viewer, filter.viewerFriends) = try await viewerScope(request)
        // The cursor keeps the first page's instant, so every page reads scores at one moment.
        let cursor = try parameters.single("cursor").map { text -> (time: Double, score: Double, id: String) in
            let parts = text.split(separator: "~", maxSplits: 2)
            guard parts.count == 3, let time = Double(parts[0]), time.isFinite, let score = Double(parts[1]), score.isFinite else {
                throw APIProblem.badRequest("cursor '\(text.prefix(40))' is invalid: pass next_cursor of the previous page")
            }
            return (time, score, String(parts[2]))
        }
        let after = cursor.map { (score: $0.score, id: $0.id) }
        let store = try requireUserData()
        let now = cursor.map { Date(timeIntervalSince1970: $0.time) } ?? Date()
        let reach = city.map { CityExtent.radius(population: RandomCityPicker.population(of: $0)) }

        // Read in activity order; a place's final score is its activity plus a bounded prior,
        // so reading stops once no unread entry can still make the page.
        struct Ranked {
            var place: Place
            var score: Double
            var activity: Double
            var prior: Double
            var entry: PopularEntry
        }
        var ranked: [Ranked] = []
        var position: PopularEntry?
        var read = 0
        reading: while read < 5_000 {
            // The page's last place so far: an entry that cannot beat it even with the
            // largest prior, nor can any after it.
            let eligible = ranked.filter { Self.isAfter($0.score, $0.place.id.rawValue, after) }.map(\.score).sorted(by: >)
            let threshold = eligible.count > limit ? eligible[limit] : -Double.infinity
            let page = try await store.popular(
                kind, period: period, activeSince: now.addingTimeInterval(-period.seconds),
                after: position, limit: 200)
            let places = try await searchIndex.places(page.map(\.subject))  // one read per page of entries
            for entry in page {
                read += 1
                position = entry
                let activity = PopularityMath.value(entry.key, at: now, period: period)
                if activity + Self.maximumPrior < threshold { break reading }
                guard let place = places[entry.subject], filter.matchesAttributes(of: place) else { continue }
                if let city, let reach, Geodesic.distance(city.coordinate, place.coordinate) > reach.meters { continue }
                let prior = Self.prior(place)
                ranked.append(Ranked(place: place, score: activity + prior, activity: activity, prior: prior, entry: entry))
            }
            if page.count < 200 { break }
        }
        let page = ranked.filter { Self.isAfter($0.score, $0.place.id.rawValue, after) }
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.place.id.rawValue < $1.place.id.rawValue }
            .prefix(limit + 1)
        let shown = Array(page.prefix(limit))
        var json = JSONWriter(capacity: 2_048 + shown.count * 700)
        json.beginObject()
        json.key("query")
        json.beginObject()
        json.key("kind")
        json.string(kind == .place ? "places" : "destinations")
        json.key("period")
        json.string("\(period.rawValue)d")
        json.key("region")
        json.string(try parameters.single("region"))
        json.key("limit")
        json.int(limit)
        json.endObject()
        json.key("count")
        json.int(shown.count)
        json.key("results")
        json.beginArray()
        for item in shown {
            json.beginObject()
            json.key("score")
            json.double((item.score * 1_000).rounded() / 1_000)
            json.key("activity")
            json.double((item.activity * 1_000).rounded() / 1_000)
            json.key("prior")
            json.double((item.prior * 1_000).rounded() / 1_000)
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
        if page.count > limit, let last = shown.last {
            json.string("\(now.timeIntervalSince1970)~\(last.score)~\(last.place.id.rawValue)")
        } else {
            json.null()
        }
        json.endObject()
        return .writer(json)
    }

    /// Whether (score, id) comes after the cursor in the order score descending, then id.
    static func isAfter(_ score: Double, _ id: String, _ cursor: (score: Double, id: String)?) -> Bool {
        guard let cursor else { return true }
        return score < cursor.score || (score == cursor.score && id > cursor.id)
    }
}
