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
        router.route(.get, "/v1/me/blocks", in: &table, bound: bound) { request, _ in
            let user = try await signedIn(request)
            _ = try QueryParameters(request, allowed: [])
            let blocks = try await requireUserData().blocks(by: user.username)
            return .json(.object([("count", .int(blocks.count)), ("blocks", .array(blocks.map(Self.blockJSON)))]))
        }

        router.route(.put, "/v1/me/blocks/{username}", in: &table, bound: bound) { request, context in
            let user = try await signedIn(request)
            let name = try context.parameters.require("username").lowercased()
            guard name != user.username else { throw APIProblem.badRequest("you cannot block yourself") }
            // Blocking someone who blocked you first is allowed: only existence is checked.
            guard try await requireUserData().user(named: name) != nil else { throw APIProblem(.notFound, "no user named '\(name.prefix(60))'") }
            let now = Date()
            let added = try await requireUserData().block(name, by: user.username, at: now)
            let block = try await requireUserData().blocks(by: user.username).first { $0.blocked == name }
                ?? UserBlock(blocker: user.username, blocked: name, createdAt: now)
            return .json(Self.blockJSON(block), status: added ? .created : .ok)
        }

        router.route(.delete, "/v1/me/blocks/{username}", in: &table, bound: bound) { request, context in
            let user = try await signedIn(request)
            let name = try context.parameters.require("username").lowercased()
            guard try await requireUserData().unblock(name, by: user.username) else {
                throw APIProblem(.notFound, "you have not blocked '\(name.prefix(60))'")
            }
            return Response(status: .noContent)
        }
    }

    static func blockJSON(_ block: UserBlock) -> OrderedJSON {
        .object([("username", .string(block.blocked)), ("blocked_at", timestampJSON(block.createdAt))])
    }
}
