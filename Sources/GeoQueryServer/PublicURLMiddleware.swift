import GeoQueryWire
import Hummingbird

/// Binds ``PublicURL/base`` for each request, so that the URLs answers hold are absolute: the
/// configured `--public-url` when set (what a deployment behind a proxy or TLS terminator
/// sets), else `http://` and the request's `Host` (what a client reached, on a bare server).
/// `X-Forwarded-*` headers are not read: any client may send them.
struct PublicURLMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    /// The configured base, or nil to use each request's `Host`.
    let configured: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let base = configured ?? PublicURL.base(scheme: "http", host: request.head.authority)
        return try await PublicURL.$base.withValue(base) { try await next(request, context) }
    }
}
