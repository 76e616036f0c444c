import Foundation
import GeoQueryWire
import Hummingbird
import PlaceQuery
import Social

/// `/v1/me/blocks`: the people a user blocked. Blocking ends any friendship or request between
/// the two; afterwards neither can ask the other to be a friend, invite them to a trip or add
/// them to an itinerary (the other is answered as an unknown user).
extension GeoQueryService {
    func addBlockRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.members.route(.get, "/v1/me/blocks", in: &table, bound: bound) { try await listBlocks($0, $1) }
        groups.members.route(.put, "/v1/me/blocks/{username}", in: &table, bound: bound) { try await block($0, $1) }
        groups.members.route(.delete, "/v1/me/blocks/{username}", in: &table, bound: bound) { try await unblock($0, $1) }
    }

    /// `GET /v1/me/blocks`: newest first.
    func listBlocks(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor"])
        let page = try await requireFriendService().blocks(
            by: context.user.username, after: try ListCursor.position(request, parameters), limit: try pageLimit(parameters))
        return Self.listResponse("blocks", page, request: request, item: Self.blockJSON)
    }

    /// `PUT /v1/me/blocks/{username}`.
    func block(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let (block, isNew) = try await requireFriendService().block(
            try context.parameters.require("username"), by: context.user.username, at: Date())
        return .json(Self.blockJSON(block), status: isNew ? .created : .ok)
    }

    /// `DELETE /v1/me/blocks/{username}`.
    func unblock(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        try await requireFriendService().unblock(try context.parameters.require("username"), by: context.user.username)
        return Response(status: .noContent)
    }

    static func blockJSON(_ block: UserBlock) -> OrderedJSON {
        .object([("username", .string(block.blocked)), ("blocked_at", timestampJSON(block.createdAt))])
    }
}
