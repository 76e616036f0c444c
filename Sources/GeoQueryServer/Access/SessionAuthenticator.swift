import Accounts
import Hummingbird
import HummingbirdAuth
import PlaceQuery

/// A signed-in request: the account, the session its token opened and the account's accepted
/// friends (one read of the store).
public struct SignedIn: Sendable {
    public var account: UserAccount
    public var session: SessionRecord
    /// The usernames of the account's accepted friends, whose friends-only gems it may see;
    /// read on the routes whose answers depend on who asks (``RouteGroups/viewers``), empty
    /// on the others.
    public var friends: [String]
    public var username: String { account.username }
}

/// Reads the bearer token of `Authorization` into ``ServiceRequestContext/identity``: the
/// session and its account, with the account's friends in the same read where the routes
/// need them (`ViewerStore.sessionWithAccountAndFriends(tokenHash:)`). A request without the header
/// goes on anonymous; a token that is sent but unknown or ended is 401, never silently
/// anonymous; another scheme is 401.
struct SessionAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServiceRequestContext

    let service: GeoQueryService
    /// Whether the routes read the account's friends (what a query shows depends on them);
    /// a signed-in account's own routes do not, and their read is one join shorter.
    let readsFriends: Bool

    func authenticate(request: Request, context: Context) async throws -> SignedIn? {
        guard let token = try Self.bearerToken(request) else { return nil }
        let accounts = try service.requireAccounts()
        guard readsFriends else {
            let (account, session) = try await accounts.authenticate(token: token)
            return SignedIn(account: account, session: session, friends: [])
        }
        let store = try service.requireUserData()
        let (account, session, friends) = try await accounts.authenticate(token: token) { hash in
            try await store.sessionWithAccountAndFriends(tokenHash: hash).map { ($0.session, $0.account, $0.friends) }
        }
        return SignedIn(account: account, session: session, friends: friends)
    }

    /// The bearer token of `Authorization`; nil without the header, 401 for another scheme.
    static func bearerToken(_ request: Request) throws -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIProblem(.unauthorized, "the Authorization header must be 'Bearer <token>'", headers: [.wwwAuthenticate: "Bearer"])
        }
        return String(parts[1])
    }
}

/// Spends one of the signed-in account's creations this hour for each request of the routes
/// that create something (a gem, a photo, a favourite, a report, a friend request, an
/// itinerary, a trip, a share link), or answers 429 with `Retry-After` when none is left.
/// Every attempt counts, whether or not it then succeeds; a replayed `Idempotency-Key` spends
/// nothing (``IdempotencyMiddleware`` runs first).
struct CreationBudgetMiddleware: RouterMiddleware {
    typealias Context = SignedInRequestContext

    let limiter: (any BudgetLimiter)?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let limiter, let wait = try await limiter.spend(context.user.username) {
            let seconds = max(1, Int((wait / .seconds(1)).rounded(.up)))
            throw APIProblem(
                .tooManyRequests,
                """
                \(context.user.username) has created \(limiter.capacity) things (gems, photos, favourites, reports, friend requests, \
                itineraries, trips, share links) within the hour, the most an account may: try again in \(seconds) s
                """, headers: [.retryAfter: String(seconds)])
        }
        return try await next(request, context)
    }
}

/// The routes of one capability, by who may call them.
struct RouteGroups {
    /// Anyone; the handler reads no account.
    let anyone: Router<ServiceRequestContext>
    /// Anyone; ``ServiceRequestContext/identity`` is the account when a token is sent (what
    /// a query shows depends on who asks).
    let viewers: RouterGroup<ServiceRequestContext>
    /// Signed-in accounts only (401 otherwise); `Idempotency-Key` is honoured on POSTs.
    let members: RouterGroup<SignedInRequestContext>
    /// ``members`` whose request creates something: each spends one creation of the account's
    /// hourly budget.
    let creators: RouterGroup<SignedInRequestContext>
    /// The accounts granted moderation (403 for any other account).
    let moderators: RouterGroup<SignedInRequestContext>
}

/// Lets only the accounts granted moderation through: 403 for any other signed-in account.
struct ModeratorsOnlyMiddleware: RouterMiddleware {
    typealias Context = SignedInRequestContext

    let roster: ModeratorRoster

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard roster.isModerator(context.user.account) else {
            throw APIProblem(.forbidden, "only this service's moderators may do this; \(context.user.username) is not one")
        }
        return try await next(request, context)
    }
}

extension GeoQueryService {
    /// The groups a capability's routes are added to.
    func routeGroups(_ router: Router<ServiceRequestContext>) -> RouteGroups {
        let viewers = router.group().add(middleware: SessionAuthenticator(service: self, readsFriends: true))
        let signedIn = router.group().add(middleware: SessionAuthenticator(service: self, readsFriends: false))
        let members = signedIn.group(context: SignedInRequestContext.self).add(middleware: IdempotencyMiddleware(service: self))
        let creators = signedIn.group(context: SignedInRequestContext.self).add(middleware: IdempotencyMiddleware(service: self))
            .add(middleware: CreationBudgetMiddleware(limiter: creationLimiter))
        let moderators = signedIn.group(context: SignedInRequestContext.self).add(middleware: ModeratorsOnlyMiddleware(roster: moderatorRoster))
            .add(middleware: IdempotencyMiddleware(service: self))
        return RouteGroups(anyone: router, viewers: viewers, members: members, creators: creators, moderators: moderators)
    }
}
