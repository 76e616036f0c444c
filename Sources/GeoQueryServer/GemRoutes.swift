import Accounts
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery

/// `/v1/gems…` and `/v1/me/gems`: hidden gems, their ratings, and the gems near a point.
///
/// Who may do what: anyone reads a public or unlisted gem; only the owner reads a private one,
/// the owner and their accepted friends a friends-only one (to anyone else it does not exist: 404). Only the owner changes or deletes a gem: another
/// signed-in user gets 403 for a gem they can see and 404 for one they cannot. Ratings are by
/// signed-in users who can see the gem, one each, never by the owner.
extension GeoQueryService {
    static let gemFields = ["name", "lat", "lon", "categories", "tags", "description", "visibility"]
    static let gemVisibilities: [HiddenGem.Visibility] = [.public, .unlisted, .friends, .private]

    func addGemRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.creators.route(.post, "/v1/gems", in: &table, bound: bound) { try await createGem($0, $1) }
        groups.viewers.route(.get, "/v1/gems/near", in: &table, bound: bound) { try await listGemsNear($0, $1) }
        groups.viewers.route(.get, "/v1/gems/{id}", in: &table, bound: bound) { try await showGem($0, $1) }
        groups.members.route(.patch, "/v1/gems/{id}", in: &table, bound: bound) { try await editGem($0, $1) }
        groups.members.route(.delete, "/v1/gems/{id}", in: &table, bound: bound) { try await deleteGem($0, $1) }
        groups.members.route(.get, "/v1/me/gems", in: &table, bound: bound) { try await listMyGems($0, $1) }
        groups.members.route(.put, "/v1/gems/{id}/rating", in: &table, bound: bound) { try await rateGem($0, $1) }
        groups.members.route(.delete, "/v1/gems/{id}/rating", in: &table, bound: bound) { try await withdrawGemRating($0, $1) }
        groups.members.route(.get, "/v1/gems/{id}/rating", in: &table, bound: bound) { try await showGemRating($0, $1) }
    }

    /// `POST /v1/gems`.
    func createGem(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 65_536, allowed: Self.gemFields)
        let now = Date()
        guard let latitude = try body.double("lat"), let longitude = try body.double("lon") else {
            throw APIProblem.badRequest("fields 'lat' and 'lon' are required (degrees, WGS84)")
        }
        let id = try PlaceID(source: "gem", localID: Self.newGemID())
        var gem = Place(
            id: id, name: "", coordinate: try Coordinate(latitude: latitude, longitude: longitude),
            provenance: Provenance(source: "gem", sourceID: id.localID),
            gem: HiddenGem(owner: user.username, visibility: .private, createdAt: now, updatedAt: now))
        try Self.apply(body, to: &gem, creating: true)
        configuration.regions?.annotate(&gem)
        try await requireUserData().createGem(gem)
        var response = gemAnswer(gem, request: request)
        response.status = .created
        response.headers[.location] = "/v1/gems/\(id.rawValue)"
        return response
    }

    /// `GET /v1/gems/near`.
    func listGemsNear(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["lat", "lon", "radius", "limit", "cursor", "format"] + Self.filterParameters)
        let center = try parameters.coordinate()
        let asked = try parameters.distance("radius") ?? configuration.gemRadiusCap
        let capped = asked.meters > configuration.gemRadiusCap.meters
        let radius = capped ? configuration.gemRadiusCap : asked
        var filter = try parameters.filter(countries: knownCountries)
        (filter.viewer, filter.viewerFriends) = context.viewerScope
        let limit = try pageLimit(parameters)
        let format = try AnswerFormat(parameters)
        let page = try await requireUserData().near(
            center, radius: radius, filter: filter, limit: limit,
            cursor: try parameters.single("cursor"))
        var extra: [(String, OrderedJSON)] = [("radius_capped", .bool(capped))]
        if capped { extra.append(("requested_radius_m", .double(asked.meters))) }
        let query = QueryDescription(
            kind: "gems_near", lat: center.latitude, lon: center.longitude, radiusMeters: radius.meters,
            filter: filter, limit: limit, extra: extra)
        return answer(PlaceAnswer(query: query, page: page), format: format, request: request)
    }

    /// `GET /v1/gems/{id}`.
    func showGem(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let viewer = context.identity?.username
        let gem = try await reachableGem(try gemID(context), viewer: viewer)
        return gemAnswer(gem, request: request, moderation: try await moderation(of: gem, shownTo: viewer))
    }

    /// `PATCH /v1/gems/{id}`.
    func editGem(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let id = try gemID(context)
        _ = try await ownedGem(id, by: user.username)
        let body = try await JSONBody(request, limit: 65_536, allowed: Self.gemFields)
        let gem = try await changeGem(id, by: user.username, request: request) { gem in
            try Self.apply(body, to: &gem, creating: false)
            try await checkNotHidden(gem)
            configuration.regions?.annotate(&gem)
        }
        let updated = try await requireUserData().place(gem.id) ?? gem
        return gemAnswer(updated, request: request, moderation: try await moderation(of: updated, shownTo: user.username))
    }

    /// `DELETE /v1/gems/{id}`.
    func deleteGem(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let gem = try await ownedGem(try gemID(context), by: user.username)
        try await removePhotoFiles(try await requireUserData().deleteGem(gem.id))
        return Response(status: .noContent)
    }

    /// `GET /v1/me/gems`.
    func listMyGems(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor", "format"])
        let limit = try pageLimit(parameters)
        let format = try AnswerFormat(parameters)
        let after = try ListCursor.position(request, parameters).map { text -> PlaceID in
            guard let id = try? PlaceID(text), id.source == "gem" else {
                throw APIProblem.badRequest("cursor '\(text)' is invalid: pass next_cursor of the previous page")
            }
            return id
        }
        let gems = try await requireUserData().gems(ownedBy: user.username, after: after, limit: limit + 1)
        let page = Array(gems.prefix(limit))
        let next = gems.count > limit ? page.last.map { ListCursor.encode($0.id.rawValue, for: request) } : nil
        let query = QueryDescription(kind: "my_gems", limit: limit)
        let answer = PlaceAnswer(query: query, page: PlacePage(matches: page.map { PlaceMatch(place: $0, distance: nil) }, nextCursor: next))
        // A hidden gem is private: only the page's private gems can carry a moderator's decision.
        let privateGems = page.filter { $0.gem?.visibility == .private }.map(\.id)
        guard format == .json, !privateGems.isEmpty else { return self.answer(answer, format: format, request: request) }
        return ownersAnswer(answer, moderations: try await requireUserData().moderations(of: privateGems), request: request)
    }

    /// `PUT /v1/gems/{id}/rating`.
    func rateGem(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let gem = try await reachableGem(try gemID(context), viewer: user.username)
        guard gem.gem?.owner != user.username else {
            throw APIProblem(.forbidden, "you cannot rate your own gem \(gem.id)")
        }
        let body = try await JSONBody(request, limit: 1_024, allowed: ["stars"])
        guard let stars = try? body.double("stars"), stars == stars.rounded(), (1...5).contains(stars) else {
            guard let given = body.members["stars"] else {
                throw APIProblem.badRequest("field 'stars' is required: a whole number from 1 to 5")
            }
            throw JSONBody.mistyped("stars", given, "a whole number from 1 to 5")
        }
        let previous = try await requireUserData().rating(of: gem.id, by: user.username)
        let rating = try await requireUserData().rate(gem.id, by: user.username, stars: Int(stars))
        if previous == nil { await countActivity(.rating, [gem.id.rawValue]) }  // a change of stars is not a new action
        return .json(Self.ratingJSON(gem.id, mine: Int(stars), rating: rating))
    }

    /// `DELETE /v1/gems/{id}/rating`.
    func withdrawGemRating(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let gem = try await reachableGem(try gemID(context), viewer: user.username)
        let rating = try await requireUserData().rate(gem.id, by: user.username, stars: nil)
        return .json(Self.ratingJSON(gem.id, mine: nil, rating: rating))
    }

    /// `GET /v1/gems/{id}/rating`.
    func showGemRating(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let gem = try await reachableGem(try gemID(context), viewer: user.username)
        let mine = try await requireUserData().rating(of: gem.id, by: user.username)
        return .json(Self.ratingJSON(gem.id, mine: mine, rating: gem.rating))
    }

    // MARK: - Helpers

    /// 96 random bits, hex: ids that say nothing of who made a gem or when.
    static func newGemID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.lowercase((0..<12).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    func gemID(_ context: some RequestContext) throws -> PlaceID {
        let raw = try context.parameters.require("id")
        let text = raw.removingPercentEncoding ?? raw
        guard let id = try? PlaceID(text), id.source == "gem" else {
            throw APIProblem.badRequest("'\(text)' is not a gem id: gem ids look like gem:0123456789abcdef01234567")
        }
        return id
    }

    /// The gem if `viewer` may open it; 404 otherwise, exactly as for a gem that does not exist.
    func reachableGem(_ id: PlaceID, viewer: String?) async throws -> Place {
        guard let gem = try await requireUserData().place(id), gem.gem != nil, try await mayOpen(gem, viewer: viewer) else {
            throw APIProblem(.notFound, "no gem with id \(id)")
        }
        return gem
    }

    /// The gem if `username` owns it: 404 when they cannot see it, 403 when they can but do not own it.
    func ownedGem(_ id: PlaceID, by username: String) async throws -> Place {
        let gem = try await reachableGem(id, viewer: username)
        guard gem.gem?.owner == username else {
            throw APIProblem(.forbidden, "only the owner of gem \(id) may change or delete it")
        }
        return gem
    }

    /// Sets the body's gem fields on `gem`. Creating, `name` is required.
    static func apply(_ body: JSONBody, to gem: inout Place, creating: Bool) throws {
        if let name = try body.string("name", maxLength: 200) {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw APIProblem.badRequest("name is empty: give the gem a name") }
            gem.name = trimmed
        } else if creating {
            throw APIProblem.badRequest("field 'name' is required")
        }
        if !creating, body.has("lat") || body.has("lon") {
            gem.coordinate = try Coordinate(
                latitude: try body.double("lat") ?? gem.coordinate.latitude,
                longitude: try body.double("lon") ?? gem.coordinate.longitude)
            gem.timeZone = nil
        }
        if let categories = try body.strings("categories", maxCount: 10) {
            gem.categories = try categories.map { try Category($0) }
        }
        if let tags = try body.stringMap("tags") { gem.tags = tags }
        if body.has("description") {
            let text = try body.string("description", maxLength: 5_000)
            gem.gem?.description = text?.isEmpty == true ? nil : text
        }
        if let text = try body.string("visibility", maxLength: 20) {
            guard let visibility = HiddenGem.Visibility(rawValue: text), Self.gemVisibilities.contains(visibility) else {
                throw APIProblem.badRequest("visibility '\(text)' is invalid: use public, unlisted, friends or private")
            }
            gem.gem?.visibility = visibility
        }
    }

    /// A gem answered as itself (docs/api-conventions.md): the place object the place lists
    /// hold, with `gem`; with a moderator's decision to hide it, `moderation` (when and why),
    /// which only its owner is shown. `ETag` carries the version an edit sends in `If-Match`.
    func gemAnswer(_ gem: Place, request: Request, moderation: GemModeration? = nil) -> Response {
        var json = JSONWriter(capacity: 2_048)
        PlaceJSON.write(gem, distance: nil, to: &json, includeCoordinates: true) { json in
            if let moderation { Self.write(moderation, to: &json) }
        }
        var headers = HTTPFields()
        if let tag = Self.gemETag(gem) { headers[.eTag] = tag }
        return .writer(json, headers: headers)
    }

    /// `"moderation": {"hidden": true, "reason", "hidden_at"}`, a member of an owner's gem.
    static func write(_ moderation: GemModeration, to json: inout JSONWriter) {
        json.key("moderation")
        json.beginObject()
        json.key("hidden")
        json.bool(true)
        json.key("reason")
        json.string(moderation.reason)
        json.key("hidden_at")
        json.timestamp(moderation.hiddenAt)
        json.endObject()
    }

    /// A JSON answer of the owner's own gems in which each hidden one carries `moderation`.
    func ownersAnswer(_ answer: PlaceAnswer, moderations: [PlaceID: GemModeration], request: Request) -> Response {
        guard !moderations.isEmpty else { return self.answer(answer, format: .json, request: request) }
        var json = JSONWriter(capacity: answer.estimatedSize + 256 * moderations.count)
        answer.write(to: &json) { match, json in
            if let moderation = moderations[match.place.id] { Self.write(moderation, to: &json) }
        }
        return .writer(json, headers: Self.pagingHeaders(answer, request: request))
    }

    /// The moderator's decision on `gem` when `viewer` owns it (a hidden gem is private, so
    /// only an owner's private gem asks the store); nil for everyone else.
    func moderation(of gem: Place, shownTo viewer: String?) async throws -> GemModeration? {
        guard let part = gem.gem, part.owner == viewer, part.visibility == .private else { return nil }
        return try await requireUserData().moderation(of: gem.id)
    }

    static func ratingJSON(_ id: PlaceID, mine: Int?, rating: Rating?) -> OrderedJSON {
        .object([
            ("gem", .string(id.rawValue)),
            ("your_stars", mine.map(OrderedJSON.int) ?? .null),
            ("rating", rating.map { .double($0.value) } ?? .null),
            ("rating_count", .int(rating?.count ?? 0)),
        ])
    }
}
