import Foundation

/// Attempts (sign-ins, sign-ups, password guesses) counted per key where every server of a
/// deployment sees them, so that several `geoquery serve` processes on one database share one
/// limit instead of each granting its own.
///
/// A key is opaque to the store; callers pass a hash, never a login or an address in the clear.
/// Implementations: `SQLiteUserStore` and `PostGISUserStore`; ``AttemptConformance`` (in the
/// conformance suite) states the behaviour.
public protocol AttemptStore: Sendable {
    /// Counts one attempt of `key` in `scope` at `time`; the store may forget it after `keptUntil`.
    func recordAttempt(scope: String, key: String, at time: Date, keptUntil: Date) async throws
    /// The times of the newest attempts of `key` in `scope` at or after `since`, newest first,
    /// at most `limit` of them.
    func attempts(scope: String, key: String, since: Date, limit: Int) async throws -> [Date]
    /// Forgets every attempt of `key` in `scope` (a success clears the failures before it).
    func clearAttempts(scope: String, key: String) async throws
    /// Forgets every attempt kept only until before `now` (the hourly sweep).
    /// - Returns: how many were forgotten.
    @discardableResult
    func deleteAttempts(expiredBy now: Date) async throws -> Int
}
