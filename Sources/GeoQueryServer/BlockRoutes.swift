import Foundation
import GeoQueryWire
import Hummingbird
import PlaceQuery

/// `/v1/me/blocks`: the people a user blocked. Blocking ends any friendship or request between
/// the two; afterwards neither can ask the other to be a friend, invite them to a trip or add
/// them to an itinerary (the other is answered as an unknown user).
extension GeoQueryService {
    func addBlockRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let bound = RequestBound.queries(configuration.requestTimeout)
        router.route(.get, "/v1/me/blocks", in: &table, bound: bound) { try await listBlocks($0, $1) }
        router.route(.put, "/v1/me/blocks/{username}", in: &table, bound: bound) { try await block($0, $1) }
        router.route(.delete, "/v1/me/blocks/{username}", in: &table, bound: bound) { try await unblock($0, $1) }
    }

    /// `GET /v1/me/blocks`.
    func listBlocks(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await signedIn(request)
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor"])
        let limit = try pageLimit(parameters)
        // Newest first; the cursor is the last block's time and username.
        let after = try ListCursor.position(request, parameters).map { text -> (Double, String) in
            let parts = text.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let seconds = Double(parts[0]), seconds.isFinite else {
                throw APIProblem.badRequest("cursor '\(text.prefix(60))' is invalid: pass next_cursor of the previous page")
            }
            return (seconds, String(parts[1]))
        }
        // The whole list is read, so the total costs nothing.
        let listed = try await requireUserData().blocks(by: user.username)
        let matching = listed.filter { block in
            guard let (seconds, name) = after else { return true }
            let time = block.createdAt.timeIntervalSince1970
            return time < seconds || (time == seconds && block.blocked > name)
        }
        let page = Array(matching.prefix(limit))
        let next =
            matching.count > limit ? page.last.map { ListCursor.encode("\($0.createdAt.timeIntervalSince1970)_\($0.blocked)", for: request) } : nil
        var response = Response.json(
            .object([
                ("count", .int(page.count)), ("total", .int(listed.count)), ("blocks", .array(page.map(Self.blockJSON))),
                ("next_cursor", .optional(next)),
            ]))
        if let next { response.headers[Self.linkHeader] = "<\(Self.nextURL(request, cursor: next))>; rel=\"next\"" }
        return response
    }

    /// `PUT /v1/me/blocks/{username}`.
    func block(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await signedIn(request)
        let name = try context.parameters.require("username").lowercased()
        guard name != user.username else { throw APIProblem.badRequest("you cannot block yourself") }
        // Blocking someone who blocked you first is allowed: only existence is checked.
        guard try await requireUserData().user(named: name) != nil else { throw APIProblem(.notFound, "no user named '\(name.prefix(60))'") }
        let now = Date()
        let added = try await requireUserData().block(name, by: user.username, at: now)
        let block =
            try await requireUserData().blocks(by: user.username).first { $0.blocked == name }
            ?? UserBlock(blocker: user.username, blocked: name, createdAt: now)
        return .json(Self.blockJSON(block), status: added ? .created : .ok)
    }

    /// `DELETE /v1/me/blocks/{username}`.
    func unblock(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await signedIn(request)
        let name = try context.parameters.require("username").lowercased()
        guard try await requireUserData().unblock(name, by: user.username) else {
            throw APIProblem(.notFound, "you have not blocked '\(name.prefix(60))'")
        }
        return Response(status: .noContent)
    }

    static func blockJSON(_ block: UserBlock) -> OrderedJSON {
        .object([("username", .string(block.blocked)), ("blocked_at", timestampJSON(block.createdAt))])
    }
}
