import Foundation
import GeoQueryWire
import Hummingbird
import PlaceQuery
import Social

/// The one cursor format of the lists that are not place queries (docs/api-conventions.md):
/// opaque base64url text holding a fingerprint of the query that issued it and the position
/// the next page resumes after. A cursor passed to another query (another route, filter or
/// order) is refused with a 400 that names it, never read as a position of this one.
///
/// Place queries' cursors (``PageCursor``) have the same form, made by the index.
enum ListCursor {
    /// A fingerprint (``PageCursor/fingerprint(_:)``) of the request's path and its query
    /// parameters but `cursor` and `limit` (the page size may change between pages), sorted.
    static func fingerprint(of request: Request) -> UInt64 {
        let pairs = QueryParameters.pairs(request).filter { $0.0 != "cursor" && $0.0 != "limit" }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        return PageCursor.fingerprint([request.uri.path] + pairs.flatMap { [$0.0, $0.1] })
    }

    /// The cursor a page of `request` gives for resuming after `position`.
    static func encode(_ position: String, for request: Request) -> String {
        Base64URL.encode(withUnsafeBytes(of: fingerprint(of: request).bigEndian, Array.init) + Array(position.utf8))
    }

    /// The position in the request's `cursor`, nil when none is given.
    /// - Throws: a 400 naming the cursor when it is not one this list issued for this query.
    static func position(_ request: Request, _ parameters: QueryParameters) throws -> String? {
        guard let text = try parameters.single("cursor") else { return nil }
        guard text.utf8.count <= 2_048, let bytes = Base64URL.decode(text), bytes.count > 8,
            let position = String(bytes: bytes.dropFirst(8), encoding: .utf8)
        else {
            throw APIProblem.badRequest(
                "cursor '\(text.prefix(60))' is invalid: it is not a cursor this list issued; pass next_cursor of the previous page")
        }
        let issuedFor = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard issuedFor == fingerprint(of: request) else {
            throw APIProblem.badRequest(
                "cursor '\(text.prefix(60))' is invalid: it belongs to a different query (another list, filter or order); pass next_cursor of the previous page of this one"
            )
        }
        return position
    }
}

extension GeoQueryService {
    /// A use case's page as every list answers (docs/api-conventions.md): `count`, `total`
    /// when known, the items under `name`, `next_cursor` (the page's position in the one
    /// cursor format) and a `Link: rel="next"` header with the next page's URL.
    static func listResponse<Item>(
        _ name: String, _ page: ListPage<Item>, request: Request, item: (Item) -> OrderedJSON
    ) -> Response {
        let next = page.nextPosition.map { ListCursor.encode($0, for: request) }
        var members: [(String, OrderedJSON)] = [("count", .int(page.items.count))]
        if let total = page.total { members.append(("total", .int(total))) }
        members += [(name, .array(page.items.map(item))), ("next_cursor", .optional(next))]
        var response = Response.json(.object(members))
        if let next { response.headers[linkHeader] = "<\(nextURL(request, cursor: next))>; rel=\"next\"" }
        return response
    }
}
