import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PlaceQuery

/// `Idempotency-Key` on a `POST` by a signed-in account (docs/api-conventions.md): the first
/// request with a key is done and its successful answer kept for a day; a retry with the same
/// key, route and body gets that answer again (with `Idempotent-Replayed: true`) and creates
/// nothing, spends no budget, notifies no one. The same key with another route or body is a
/// 422; while the first is still running, a 409. A failed request frees its key.
///
/// Keys belong to an account (its username and creation instant, so a later account of the
/// same name never sees an earlier one's answers) and live in the user store, so every server
/// of a deployment honours them.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = SignedInRequestContext

    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!
    /// How long a key and its answer are kept.
    static let keptFor: TimeInterval = 86_400
    /// A key whose request has run this long without an answer belongs to a server that died.
    static let staleAfter: TimeInterval = 120
    /// The largest body a keyed request to `path` may send: the route's own limit (a photo's on
    /// the photo routes, the JSON limit elsewhere), so that a key never makes the service hold
    /// more of a body than the route itself would.
    static func largestBody(path: String, configuration: ServiceConfiguration) -> Int {
        path.hasSuffix("/photos") ? configuration.maximumPhotoBytes : configuration.maximumBodyBytes
    }

    let service: GeoQueryService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Only the routes of signed-in accounts honour keys (sign-up and sign-in take none):
        // the account is the one ``SessionAuthenticator`` read.
        guard request.method == .post, let key = request.headers[Self.header], let store = service.userData else {
            return try await next(request, context)
        }
        let user = context.user
        guard (1...200).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIProblem.badRequest(
                "Idempotency-Key '\(key.prefix(40))' is invalid: give 1 to 200 visible ASCII characters, e.g. a UUID")
        }
        let limit = Self.largestBody(path: request.uri.path, configuration: service.configuration)
        if let problem = APIProblem.declaredTooLarge(request, limit: limit) { throw problem }
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: limit) } catch {
            throw APIProblem(.contentTooLarge, "the request body is larger than \(limit) bytes, the most this route accepts")
        }
        request.body = RequestBody(buffer: body)
        let account = user.username + "@" + String(user.account.createdAt.timeIntervalSince1970)
        let digest = SHA256.hash(data: Data(body.readableBytesView)).map { String(format: "%02x", $0) }.joined()
        let fingerprint = "POST " + request.uri.description + " " + digest
        let now = Date()
        switch try await store.claimIdempotencyKey(
            account: account, key: key, fingerprint: fingerprint, at: now, keptUntil: now.addingTimeInterval(Self.keptFor),
            staleBefore: now.addingTimeInterval(-Self.staleAfter))
        {
        case .replay(let kept):
            return Self.response(kept)
        case .inProgress:
            throw APIProblem(
                .conflict, "a request with Idempotency-Key '\(key)' is still being done: wait for its answer, then retry",
                headers: [.retryAfter: "1"])
        case .differentRequest:
            throw APIProblem(
                .unprocessableContent,
                "Idempotency-Key '\(key)' was used for a different request (another route or body): use a new key for a new request")
        case .claimed:
            break
        }
        let response: Response
        do { response = try await next(request, context) } catch {
            try? await store.releaseIdempotencyKey(account: account, key: key)
            throw error
        }
        guard (200..<300).contains(response.status.code) else {
            try? await store.releaseIdempotencyKey(account: account, key: key)
            return response
        }
        // The answers of creations are small JSON: read whole, kept, and sent as read.
        let collector = BodyCollector()
        try await response.body.write(collector)
        let text = String(decoding: collector.storage.buffer.readableBytesView, as: UTF8.self)
        let kept = IdempotentResponse(
            status: response.status.code, contentType: response.headers[.contentType] ?? "application/json",
            location: response.headers[.location], eTag: response.headers[.eTag], body: text)
        try await store.completeIdempotencyKey(account: account, key: key, response: kept)
        var answered = response
        answered.body = ResponseBody(byteBuffer: collector.storage.buffer)
        return answered
    }

    /// A kept answer, as it was first sent.
    static func response(_ kept: IdempotentResponse) -> Response {
        var headers: HTTPFields = [.contentType: kept.contentType, Self.replayed: "true"]
        if let location = kept.location { headers[.location] = location }
        if let tag = kept.eTag { headers[.eTag] = tag }
        return Response(
            status: HTTPResponse.Status(code: kept.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: kept.body)))
    }
}

/// A response body read into memory.
private struct BodyCollector: ResponseBodyWriter {
    /// Where the bytes go (a reference: `ResponseBody.write` consumes the writer).
    final class Storage: @unchecked Sendable {
        // @unchecked Sendable: written by one body writer at a time, read after it finished.
        var buffer = ByteBuffer()
    }
    let storage = Storage()

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        storage.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
