import Accounts
import Foundation
import GeoQueryWire
import Hummingbird
import PlaceQuery
import Social
import Trips

/// Friends (`/v1/me/friends…`), notifications (`/v1/me/notifications…`) and share links of
/// itineraries and trips (`/v1/{itineraries|trips}/{id}/shares…`, `/v1/shared/{token}`).
///
/// A share link's token is 256 random bits, shown once when it is made; only its SHA-256 is
/// stored. A revoked or expired link answers 404, exactly as a token that never existed (a
/// 410 would tell a guesser that the token was real once).
extension GeoQueryService {
    func addSocialRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.members.route(.get, "/v1/me/friends", in: &table, bound: bound) { try await listFriends($0, $1) }

        // Asks someone to be friends; asking someone who asked you accepts their request.
        groups.creators.route(.post, "/v1/me/friends/{username}", in: &table, bound: bound) { try await befriend($0, $1) }

        // Declines a request made to you, withdraws yours, or ends a friendship.
        groups.members.route(.delete, "/v1/me/friends/{username}", in: &table, bound: bound) { try await unfriend($0, $1) }
        groups.members.route(.get, "/v1/me/notifications", in: &table, bound: bound) { try await listNotifications($0, $1) }

        // `{"ids": […]}` marks those read; `{}` marks every one.
        groups.members.route(.post, "/v1/me/notifications/read", in: &table, bound: bound) { try await markNotificationsRead($0, $1) }

        for kind in PlanKind.allCases { addShareRoutes(kind, to: router, table: &table) }

        router.route(.get, "/v1/shared/{token}", in: &table, bound: .cancelling(configuration.requestTimeout)) { try await showSharedPlan($0, $1) }
    }

    /// `GET /v1/shared/{token}`.
    func showSharedPlan(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["format"])
        let token = try context.parameters.require("token")
        let store = try requireUserData()
        let now = Date()
        guard token.count <= 100, let link = try await store.share(tokenHash: SessionToken.hash(token)), link.isLive(at: now),
            let record = try await store.plan(id: link.planID)
        else {
            throw APIProblem(.notFound, "no shared plan for this link: it may have been revoked or have expired")
        }
        // A HEAD (a link checker, a chat app's preview probe) reads nothing: it is not a view,
        // tells the owner nothing and counts for no place.
        let views = request.method == .head ? 0 : try await store.recordShareView(id: link.id, at: now)
        if views == 1 {
            await notify(record.owner, "share_viewed", ["plan": record.id, "share": link.id])
        }
        switch record.kind {
        case .itinerary:
            // The first view of each link counts: reloading a link does not make its places popular.
            if views == 1, let document = try? Self.decodeDocument(ItineraryDocument.self, record) {
                await countActivity(.shareView, [document.destination.placeID] + document.stops.map(\.location.placeID))
            }
            return try Self.itineraryAnswer(record, access: nil, format: try parameters.single("format"))
        case .trip:
            if let format = try parameters.single("format"), format != "json" {
                throw APIProblem.badRequest("format '\(format.prefix(20))' is invalid for a trip: use json")
            }
            return Self.planResponse(try await tripJSON(record, access: nil), revision: record.revision)
        }
    }

    /// `GET /v1/me/friends`.
    func listFriends(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["state", "limit", "cursor"])
        let page = try await requireFriendService().friends(
            of: context.user.username, states: try parameters.single("state").map(FriendService.states),
            after: try ListCursor.position(request, parameters), limit: try pageLimit(parameters))
        return Self.listResponse("friends", page, request: request, item: Self.friendshipJSON)
    }

    /// `POST /v1/me/friends/{username}`.
    func befriend(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let (friendship, isNew) = try await requireFriendService().befriend(
            try context.parameters.require("username"), by: context.user.username, at: Date())
        return .json(Self.friendshipJSON(friendship), status: isNew ? .created : .ok)
    }

    /// `DELETE /v1/me/friends/{username}`.
    func unfriend(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        try await requireFriendService().unfriend(try context.parameters.require("username"), by: context.user.username)
        return Response(status: .noContent)
    }

    /// `GET /v1/me/notifications`.
    func listNotifications(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["unread", "limit", "cursor"])
        let unread: Bool
        switch try parameters.single("unread") {
        case nil, "false": unread = false
        case "true": unread = true
        case let other?: throw APIProblem.badRequest("unread '\(other.prefix(20))' is invalid: use true or false")
        }
        let page = try await NotificationService(store: try requireUserData()).notifications(
            of: context.user.username, unreadOnly: unread, after: try ListCursor.position(request, parameters), limit: try pageLimit(parameters))
        return Self.listResponse("notifications", page, request: request, item: Self.notificationJSON)
    }

    /// `POST /v1/me/notifications/read`.
    func markNotificationsRead(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let body = try await JSONBody(request, limit: 65_536, allowed: ["ids"])
        let changed = try await NotificationService(store: try requireUserData()).markRead(
            of: context.user.username, ids: try body.strings("ids", maxCount: 500, maxLength: 200), at: Date())
        return .json(.object([("marked_read", .int(changed))]))
    }

    func addShareRoutes(_ kind: PlanKind, to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        let base = kind == .itinerary ? "/v1/itineraries/{id}/shares" : "/v1/trips/{id}/shares"
        groups.creators.route(.post, base, in: &table, bound: bound) { try await createShare(kind, $0, $1) }
        groups.members.route(.get, base, in: &table, bound: bound) { try await listShares(kind, $0, $1) }
        groups.members.route(.delete, base + "/{shareId}", in: &table, bound: bound) { try await revokeShare(kind, $0, $1) }
    }

    /// `POST /v1/{itineraries|trips}/{id}/shares`.
    func createShare(_ kind: PlanKind, _ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let (record, _) = try await plan(try planID(context, kind), kind, viewer: user.username, needs: .own, action: "share")
        let body =
            request.headers[.contentLength] == "0" || (request.headers[.contentLength] == nil && request.headers[.transferEncoding] == nil)
            ? JSONBody(members: [:]) : try await JSONBody(request, limit: 1_024, allowed: ["expires_at"])
        let now = Date()
        var expires: Date?
        if let text = try body.string("expires_at", maxLength: 40) {
            guard let date = Self.instant(text), date > now else {
                throw APIProblem.badRequest("expires_at '\(text.prefix(40))' is invalid: give a future RFC 3339 time, e.g. 2027-06-30T00:00:00Z")
            }
            expires = date
        }
        let token = SessionToken.make()
        let link = ShareLink(
            id: "sh_" + Self.newGemID(), tokenHash: SessionToken.hash(token), planID: record.id, createdAt: now,
            expiresAt: expires)
        try await requireUserData().createShare(link)
        var answer = Self.shareJSON(link)
        if case .object(var members) = answer {
            members.insert(("token", .string(token)), at: 1)
            members.insert(("url", .string(PublicURL.absolute("/v1/shared/\(token)"))), at: 2)
            members.insert(("map_url", .string(PublicURL.absolute("/s/\(token)"))), at: 3)
            answer = .object(members)
        }
        return .json(answer, status: .created)
    }

    /// `GET /v1/{itineraries|trips}/{id}/shares`.
    func listShares(_ kind: PlanKind, _ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        _ = try QueryParameters(request, allowed: [])
        let (record, _) = try await plan(try planID(context, kind), kind, viewer: user.username, needs: .own, action: "see the links of")
        let links = try await requireUserData().shares(of: record.id)
        return .json(.object([("shares", .array(links.map(Self.shareJSON)))]))
    }

    /// `DELETE /v1/{itineraries|trips}/{id}/shares/{shareId}`.
    func revokeShare(_ kind: PlanKind, _ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let (record, _) = try await plan(try planID(context, kind), kind, viewer: user.username, needs: .own, action: "revoke links of")
        let shareID = try context.parameters.require("shareId")
        guard try await requireUserData().revokeShare(id: shareID, of: record.id, at: Date()) else {
            throw APIProblem(.notFound, "\(Self.noun(kind)) \(record.id) has no live link \(shareID.prefix(60))")
        }
        return Response(status: .noContent)
    }

    static func notificationJSON(_ note: UserNotification) -> OrderedJSON {
        .object([
            ("id", .string(note.id)), ("kind", .string(note.kind)),
            ("data", .object(note.data.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ("created_at", timestampJSON(note.createdAt)), ("read_at", timestampJSON(note.readAt)),
        ])
    }

    static func friendshipJSON(_ friendship: Friendship) -> OrderedJSON {
        .object([
            ("username", .string(friendship.username)), ("state", .string(friendship.state.rawValue)),
            ("since", timestampJSON(friendship.since)),
        ])
    }

    static func shareJSON(_ link: ShareLink) -> OrderedJSON {
        .object([
            ("id", .string(link.id)), ("plan", .string(link.planID)), ("created_at", timestampJSON(link.createdAt)),
            ("expires_at", timestampJSON(link.expiresAt)), ("revoked_at", timestampJSON(link.revokedAt)),
            ("live", .bool(link.isLive(at: Date()))), ("view_count", .int(link.viewCount)),
            ("last_viewed_at", timestampJSON(link.lastViewedAt)),
        ])
    }

    // MARK: - Reminders

    /// Reminds of the itineraries and trips that start within the next 24 hours (Trips'
    /// `PlanReminders`): each once, however often this runs and on however many servers.
    /// - Returns: how many reminders were made.
    @discardableResult
    public func sendPlanReminders(now: Date = Date()) async throws -> Int {
        guard let store = userData else { return 0 }
        return try await PlanReminders(store: store, notifier: ServiceNotifier(service: self)).send(now: now)
    }
}
