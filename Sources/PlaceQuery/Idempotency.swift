import Foundation

/// The answer kept for a request sent with an `Idempotency-Key`, given again to a retry of the
/// same request instead of doing it twice.
public struct IdempotentResponse: Sendable, Hashable {
    /// The HTTP status (a success: only those are kept).
    public var status: Int
    public var contentType: String
    /// The `Location` of what the request created, if it answered one.
    public var location: String?
    /// The `ETag` of what the request created, if it answered one.
    public var eTag: String?
    /// The answer's body as it was sent (UTF-8 text: the service's answers to writes are JSON).
    public var body: String

    public init(status: Int, contentType: String, location: String?, eTag: String?, body: String) {
        self.status = status
        self.contentType = contentType
        self.location = location
        self.eTag = eTag
        self.body = body
    }
}

/// What ``IdempotencyStore/claimIdempotencyKey(account:key:fingerprint:at:keptUntil:staleBefore:)``
/// decided.
public enum IdempotencyClaim: Sendable, Hashable {
    /// The key is this request's: do the request, then complete or release the key.
    case claimed
    /// The first request with this key has not finished.
    case inProgress
    /// The first request with this key finished with this answer: give it again.
    case replay(IdempotentResponse)
    /// The key was used for a different request (another route or another body).
    case differentRequest
}

/// Idempotency keys per account, where every server of a deployment sees them: a retried
/// create (a phone that lost the answer) answers what the first one answered instead of
/// creating twice. Keys are the client's; the store keeps each for a day.
///
/// Implementations: `SQLiteUserStore` and `PostGISUserStore`; ``IdempotencyConformance`` (in
/// the conformance suite) states the behaviour.
public protocol IdempotencyStore: Sendable {
    /// Claims `key` of `account` for the request whose fingerprint (method, path and a hash of
    /// the body) is `fingerprint`, in one step however many servers claim at once. A key whose
    /// first request never finished (its server died) is claimed anew once it was claimed
    /// before `staleBefore`; a key kept only until before `time` is free again.
    func claimIdempotencyKey(
        account: String, key: String, fingerprint: String, at time: Date, keptUntil: Date, staleBefore: Date
    ) async throws -> IdempotencyClaim
    /// Keeps `response` as the answer of `key`'s request.
    func completeIdempotencyKey(account: String, key: String, response: IdempotentResponse) async throws
    /// Frees a claimed key whose request failed, so a retry does it again.
    func releaseIdempotencyKey(account: String, key: String) async throws
    /// Forgets every key kept only until before `now` (the hourly sweep).
    /// - Returns: how many were forgotten.
    @discardableResult
    func deleteIdempotencyKeys(expiredBy now: Date) async throws -> Int
}
