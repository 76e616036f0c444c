import Foundation
import GeoQueryWire
import Hummingbird
import PlaceQuery
import Social

/// `/v1/me/following…` and `/v1/users/{username}/followers`: following accounts (Social's
/// ``FollowService``). A follow needs no acceptance; a block between two ends it.
extension GeoQueryService {
    func addFollowRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.members.route(.get, "/v1/me/following", in: &table, bound: bound) { try await listFollowing($0, $1) }
        groups.creators.route(.put, "/v1/me/following/{username}", in: &table, bound: bound) { try await follow($0, $1) }
        groups.members.route(.delete, "/v1/me/following/{username}", in: &table, bound: bound) { try await unfollow($0, $1) }
        groups.viewers.route(.get, "/v1/users/{username}/followers", in: &table, bound: bound) { try await listFollowers($0, $1) }
    }

    /// `GET /v1/me/following`: newest first.
    func listFollowing(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor"])
        let page = try await requireFollowService().following(
            of: context.user.username, after: try ListCursor.position(request, parameters), limit: try pageLimit(parameters))
        return Self.listResponse("following", page, request: request) { Self.followJSON($0.followee, $0) }
    }

    /// `PUT /v1/me/following/{username}`.
    func follow(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let (follow, isNew) = try await requireFollowService().follow(
            try context.parameters.require("username"), by: context.user.username, at: Date())
        return .json(Self.followJSON(follow.followee, follow), status: isNew ? .created : .ok)
    }

    /// `DELETE /v1/me/following/{username}`.
    func unfollow(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        try await requireFollowService().unfollow(try context.parameters.require("username"), by: context.user.username)
        return Response(status: .noContent)
    }

    /// `GET /v1/users/{username}/followers`: newest first.
    func listFollowers(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor"])
        let page = try await requireFollowService().followers(
            of: try context.parameters.require("username"), viewer: context.identity?.username,
            after: try ListCursor.position(request, parameters), limit: try pageLimit(parameters))
        return Self.listResponse("followers", page, request: request) { Self.followJSON($0.follower, $0) }
    }

    /// Follows over the user store; 503 on a service without one.
    func requireFollowService() throws -> FollowService {
        FollowService(store: try requireUserData(), notifier: ServiceNotifier(service: self))
    }

    /// A follow as one side sees it: the other account and when the follow was made.
    static func followJSON(_ other: String, _ follow: Follow) -> OrderedJSON {
        .object([("username", .string(other)), ("followed_at", timestampJSON(follow.createdAt))])
    }
}
