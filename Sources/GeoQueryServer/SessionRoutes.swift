import Accounts
import Foundation
import GeoQueryWire
import Hummingbird
import PlaceQuery

/// `/v1/me/sessions`: the places a person is signed in — what signed in, when, when last
/// used — and ending one (a lost phone) or all but the one asking.
extension GeoQueryService {
    func addSessionRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.members.route(.get, "/v1/me/sessions", in: &table, bound: bound) { try await listSessions($0, $1) }
        groups.members.route(.delete, "/v1/me/sessions/{sessionId}", in: &table, bound: bound) { try await endSession($0, $1) }
        groups.members.route(.delete, "/v1/me/sessions", in: &table, bound: bound) { try await endOtherSessions($0, $1) }
    }

    /// `GET /v1/me/sessions`.
    func listSessions(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        _ = try QueryParameters(request, allowed: [])
        let accounts = try requireAccounts()
        let open = try await openSessions(of: user.username)
        var response = Response.json(
            .object([
                ("count", .int(open.count)),
                ("sessions", .array(open.map { Self.sessionJSON($0, asking: user.session, accounts: accounts) })),
            ]))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `DELETE /v1/me/sessions/{sessionId}`.
    func endSession(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let id = try context.parameters.require("sessionId")
        // Only the asker's own sessions are searched: another's id is simply not found.
        guard let session = try await openSessions(of: user.username).first(where: { SessionToken.publicID(ofHash: $0.tokenHash) == id }) else {
            throw APIProblem(.notFound, "no session \(id.prefix(64)) among yours: GET /v1/me/sessions lists them")
        }
        try await requireAccounts().signOut(tokenHash: session.tokenHash)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/me/sessions`.
    func endOtherSessions(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        _ = try QueryParameters(request, allowed: [])
        let ended = try await requireUserData().deleteSessions(of: user.username, keeping: user.session.tokenHash)
        return .json(.object([("ended", .int(ended))]))
    }

    /// A session as `/v1/me/sessions` and the export show it: never its token or its hash.
    static func sessionJSON(_ session: SessionRecord, asking: SessionRecord, accounts: AccountService) -> OrderedJSON {
        .object([
            ("id", .string(SessionToken.publicID(ofHash: session.tokenHash))),
            ("current", .bool(session.tokenHash == asking.tokenHash)),
            ("client", .optional(session.client)),
            ("created_at", timestampJSON(session.createdAt)),
            ("last_used_at", timestampJSON(accounts.lastUsed(session))),
            ("expires_at", timestampJSON(session.expiresAt)),
        ])
    }

    /// The user's sessions that have not expired, the newest first: the 500 newest (expired
    /// ones are deleted at each sign-in, and sign-ins are rate limited).
    func openSessions(of username: String) async throws -> [SessionRecord] {
        try await requireUserData().sessions(of: username, openAt: Date(), limit: 500)
    }
}

extension GeoQueryService {
    /// Deletes the sessions of every account that expired by `now`. A sign-in clears its own
    /// account's expired sessions; this clears those of accounts that never sign in again.
    /// - Returns: how many were deleted.
    @discardableResult
    public func deleteExpiredSessions(now: Date = Date()) async throws -> Int {
        guard let store = userData else { return 0 }
        return try await store.deleteExpiredSessions(asOf: now)
    }

    /// Deletes every account's notifications older than
    /// ``ServiceConfiguration/notificationRetention``, read or not. - Returns: how many.
    @discardableResult
    public func deleteOldNotifications(now: Date = Date()) async throws -> Int {
        guard let store = userData else { return 0 }
        return try await store.deleteNotifications(createdBefore: now.addingTimeInterval(-configuration.notificationRetention))
    }

    /// Forgets the sign-in and sign-up attempts whose window has passed (they no longer count
    /// against any limit), the budgets of creations that are full again, and the idempotency
    /// keys older than a day.
    /// - Returns: how many attempts, budgets and keys.
    @discardableResult
    public func deleteExpiredAttempts(now: Date = Date()) async throws -> Int {
        guard let store = userData else { return 0 }
        return try await store.deleteAttempts(expiredBy: now) + store.deleteFullBudgets(asOf: now)
            + store.deleteIdempotencyKeys(expiredBy: now)
    }
}
