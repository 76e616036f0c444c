import HTTPTypes
import Hummingbird
import NIOCore

/// Headers every answer carries, so that a browser neither guesses a type, nor frames an answer,
/// nor sends a page's address (which may hold a share token) elsewhere:
/// `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, and, unless the route set
/// a policy of its own (the map page, which may be embedded), `Content-Security-Policy:
/// default-src 'none'; frame-ancestors 'none'` with `X-Frame-Options: DENY`.
///
/// An answer to a request that carried credentials depends on who asked: it is never stored by
/// a cache (`Cache-Control: no-store`), whatever the route said.
///
/// A request refused for its declared size (413 with `Connection: close`), or refused for any
/// other reason while declaring more than 64 KiB, is not read on: the connection's input is
/// closed, so a client that declared a terabyte and sends nothing does not hold the socket until
/// the idle timeout.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let frameOptions = HTTPField.Name("X-Frame-Options")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    /// A refused request declaring a larger body than this closes its connection rather than
    /// have the server read the body to its end.
    static let drainedBodyBytes = 64 << 10

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.contentTypeOptions] = "nosniff"
        if response.headers[Self.referrerPolicy] == nil { response.headers[Self.referrerPolicy] = "no-referrer" }
        if response.headers[Self.contentSecurityPolicy] == nil {
            response.headers[Self.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
            response.headers[Self.frameOptions] = "DENY"
        }
        if request.headers[.authorization] != nil { response.headers[.cacheControl] = "no-store" }
        if response.status == .contentTooLarge, response.headers[.connection] == "close" {
            context.channel?.close(mode: .input, promise: nil)
        } else if response.status.code >= 400, let declared = request.headers[.contentLength].flatMap({ Int($0) }),
            declared > Self.drainedBodyBytes
        {
            // Refused before its body was read (a 401, 403 or 404 first): the server would read
            // the whole declared body before the next request; close instead.
            response.headers[.connection] = "close"
            context.channel?.close(mode: .input, promise: nil)
        }
        return response
    }
}

extension APIProblem {
    /// A 413 for a body whose declared `Content-Length` is over `limit`, before a byte of it is
    /// read; nil when none is declared or it fits. The connection closes after the answer.
    static func declaredTooLarge(_ request: Request, limit: Int, what: String = "the request body") -> APIProblem? {
        guard let text = request.headers[.contentLength] else { return nil }
        guard let declared = Int(text), declared >= 0 else {
            return APIProblem(.badRequest, "Content-Length '\(text.prefix(40))' is not a number of bytes", headers: [.connection: "close"])
        }
        guard declared > limit else { return nil }
        return APIProblem(
            .contentTooLarge, "\(what) is \(declared) bytes; the most this service accepts is \(limit) bytes",
            headers: [.connection: "close"])
    }
}
