import Hummingbird

/// Which web pages on other origins may call the API from a browser (CORS).
///
/// A browser lets a page read an answer from another origin only when the answer names the
/// page's origin (or `*`) in `Access-Control-Allow-Origin`, and before a request with a bearer
/// token or a JSON body it asks first (an `OPTIONS` preflight). Apps on phones and servers are
/// not browsers and need none of this; the map page at `/` is on the service's own origin.
public enum AllowedOrigins: Sendable, Equatable {
    /// No other origin: answers carry no CORS headers (the default).
    case none
    /// Any origin (`*`). Bearer tokens still work, as they travel in a header the page sets;
    /// no cookie is ever asked for.
    case any
    /// These origins only, each as a browser writes it (`https://app.example.com`,
    /// `http://localhost:5173`): scheme and host in lower case, no default port.
    case only([String])

    /// A failure to read an origin list, naming the value and what is valid.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The part of the list that is not an origin.
        public var value: String
        public init(value: String) { self.value = value }
        public var description: String {
            "'\(value)' is not an origin: give scheme://host[:port] with http or https and no path "
                + "(such as https://app.example.com), several separated by commas, or * for any origin"
        }
    }

    /// Reads a comma-separated list of origins, `*` for any, or an empty text for none.
    /// - Throws: ``ParseError`` naming the first part that is not an `http` or `https` origin.
    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if parts == [""] {
            self = .none
            return
        }
        if parts == ["*"] {
            self = .any
            return
        }
        var origins: [String] = []
        for part in parts {
            guard let origin = Self.serialized(part) else { throw ParseError(value: part) }
            if !origins.contains(origin) { origins.append(origin) }
        }
        self = .only(origins)
    }

    /// Whether a page on `origin` (a request's `Origin` header) may read the answers.
    public func permits(_ origin: String) -> Bool {
        switch self {
        case .none: false
        case .any: origin != "null"
        case .only(let origins): origins.contains(origin)
        }
    }

    /// `origin` as a browser sends it in `Origin`, or nil when it is not an http(s) origin:
    /// lower-case scheme and host, the port only when it is not the scheme's default.
    static func serialized(_ text: String) -> String? {
        let lowered = text.lowercased()
        let scheme: String, defaultPort: String
        if lowered.hasPrefix("https://") {
            (scheme, defaultPort) = ("https", "443")
        } else if lowered.hasPrefix("http://") {
            (scheme, defaultPort) = ("http", "80")
        } else {
            return nil
        }
        let authority = lowered.dropFirst(scheme.count + 3)
        var host = Substring(authority), port: Substring?
        if authority.hasPrefix("[") {  // an IPv6 literal
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        let isIPv6 = host.hasPrefix("[")
        let hostCharacters = Set(isIPv6 ? "0123456789abcdef:.[]" : "abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard !host.isEmpty, host.allSatisfy(hostCharacters.contains), host.first != ".", host.last != ".",
            !isIPv6 || (host.count > 2 && host.dropFirst().dropLast().allSatisfy { $0 != "[" && $0 != "]" })
        else { return nil }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber),
                let number = Int(port), (1...65_535).contains(number)
            else { return nil }
            return String(number) == defaultPort ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(number)"
        }
        return "\(scheme)://\(host)"
    }
}

/// CORS for the origins a deployment allows: Hummingbird's `CORSMiddleware` answers the
/// preflights and adds the headers for a permitted origin; a request from any other origin
/// goes on without them, so the browser keeps its answer from the page (and a preflight from
/// it meets the router: 405 or 404, as without CORS).
///
/// Sits outside ``ProblemMiddleware``, so errors (400, 401, 404, 429 …) carry the headers too
/// and a page can read their problem+json. With a list of origins every answer says
/// `Vary: Origin`, so a shared cache never hands one origin's answer to another.
struct CrossOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowed: AllowedOrigins
    let cors: CORSMiddleware<Context>
    static var exposedHeaders: String { "Link, Retry-After, ETag, Location, WWW-Authenticate, Allow, Idempotent-Replayed" }

    /// What a page may send and read: every method the API answers, the bearer token and a
    /// JSON body, and the headers a client acts on (paging, retry, cache validation, where a
    /// new object lives, how to sign in).
    init(allowed: AllowedOrigins) {
        self.allowed = allowed
        cors = CORSMiddleware(
            allowOrigin: allowed == .any ? .all : .originBased,
            allowHeaders: [.accept, .authorization, .contentType, .ifNoneMatch, .ifMatch, IdempotencyMiddleware.header],
            allowMethods: [.get, .head, .post, .put, .patch, .delete, .options],
            allowCredentials: false,
            exposedHeaders: [Self.exposedHeaders],
            maxAge: .seconds(600))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let origin = request.headers[.origin], allowed.permits(origin) {
            var response = try await cors.handle(request, context: context, next: next)
            // The browser reads which headers a page may see from the answer itself, not from
            // the preflight (Fetch standard); Hummingbird's middleware sends them only there.
            if request.method != .options { response.headers[.accessControlExposeHeaders] = Self.exposedHeaders }
            return response
        }
        var response = try await next(request, context)
        if case .only = allowed { response.headers[values: .vary].append("Origin") }
        return response
    }
}
