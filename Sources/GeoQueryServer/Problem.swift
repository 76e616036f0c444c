import Accounts
import Discovery
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import Logging
import PlaceModel
import PlaceQuery
import Providers
import Routing

/// An answer that is not a success: an RFC 9457 problem (`application/problem+json`) whose
/// `detail` is the same sentence the CLI prints — the bad value and what is valid.
public struct APIProblem: Error, Sendable, HTTPResponseError {
    public var status: HTTPResponse.Status
    public var detail: String
    /// Extra headers: `Allow` for 405, `Retry-After` for 429 and 503.
    public var headers: HTTPFields = [:]
    /// Extension members after the standard ones (RFC 9457 §3.2), e.g. the stops that do not fit a day.
    var extensions: [(String, OrderedJSON)] = []

    public init(_ status: HTTPResponse.Status, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.detail = detail
        self.headers = headers
    }

    static func badRequest(_ detail: String) -> APIProblem { APIProblem(.badRequest, detail) }

    /// The problem+json body: `type`, `title`, `status`, `detail`, `instance`.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = OrderedJSON.object(
            [
                ("type", .string("about:blank")),
                ("title", .string(status.reasonPhrase)),
                ("status", .int(status.code)),
                ("detail", .string(detail)),
                ("instance", .string(request.uri.path)),
            ] + extensions
        ).rendered(pretty: false)
        var fields = headers
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// The problem of a library error of `kind`, its sentence the detail.
    static func problem(_ kind: FailureKind, _ detail: String) -> APIProblem {
        switch kind {
        case .invalidInput: return .badRequest(detail)
        case .notSignedIn: return APIProblem(.unauthorized, detail, headers: [.wwwAuthenticate: "Bearer"])
        case .forbidden: return APIProblem(.forbidden, detail)
        case .notFound: return APIProblem(.notFound, detail)
        case .conflict: return APIProblem(.conflict, detail)
        case .unprocessable: return APIProblem(.unprocessableContent, detail)
        case .rateLimited(let wait):
            return APIProblem(.tooManyRequests, detail, headers: [.retryAfter: String(max(1, Int((wait / .seconds(1)).rounded(.up))))])
        case .unavailable(let wait):
            return APIProblem(
                .serviceUnavailable, detail, headers: wait.map { [.retryAfter: String(max(1, Int(($0 / .seconds(1)).rounded(.up))))] } ?? [:])
        }
    }

    /// Maps any error to the problem a client sees. Bad input from any library becomes 400 with
    /// the library's sentence; Hummingbird's own errors keep their status; anything else is a 500
    /// whose detail says nothing of the internals (the log has them).
    static func from(_ error: any Error, request: Request, routes: RouteTable) -> APIProblem {
        switch error {
        case let problem as APIProblem:
            return problem
        case let error as any ClassifiedError:
            return problem(error.kind, error.description)
        case let error as HTTPError:
            if error.status == .notFound {
                let allowed = routes.methods(forPath: request.uri.path)
                if !allowed.isEmpty {
                    // HEAD answers wherever GET does (the router generates it).
                    let list = (allowed.map(\.rawValue) + (allowed.contains(.get) ? ["HEAD"] : [])).sorted()
                    return APIProblem(
                        .methodNotAllowed,
                        "\(request.method.rawValue) is not allowed on \(request.uri.path); use \(list.joined(separator: " or "))",
                        headers: [.allow: list.joined(separator: ", ")])
                }
                return APIProblem(.notFound, "no route \(request.method.rawValue) \(request.uri.path); the API is described at /openapi.json")
            }
            if error.status == .contentTooLarge {
                return APIProblem(.contentTooLarge, error.body ?? "the request body is larger than the service accepts")
            }
            return APIProblem(error.status, error.body ?? error.status.reasonPhrase)
        case let error as any HTTPResponseError:
            return APIProblem(error.status, error.status.reasonPhrase)
        default:
            return APIProblem(.internalServerError, "the service failed to answer this request; it has been logged")
        }
    }
}

/// Turns every error thrown below it into problem+json, and logs the ones that are the
/// service's fault (5xx) with their cause.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTableBox
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = APIProblem.from(error, request: request, routes: routes.table)
            if problem.status.code >= 500 && problem.status != .serviceUnavailable {
                logger.error("request failed", metadata: ["path": .string(request.uri.path), "error": .string(String(describing: error))])
            }
            return try problem.response(from: request, context: context)
        }
    }
}
