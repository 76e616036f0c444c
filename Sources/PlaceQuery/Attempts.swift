import Foundation

/// Attempts (sign-ins, sign-ups, password guesses) counted per key, and budgets (creations an
/// hour) spent per key, where every server of a deployment sees them, so that several
/// `geoquery serve` processes on one database share one limit instead of each granting its own.
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

    /// Spends one unit of `key`'s budget in `scope`, in one step however many servers spend
    /// at once: a bucket of `capacity` units that refills at `refillPerSecond` (full for a key
    /// never seen), so a burst may spend all of it and over a long stretch no more than the
    /// refill rate is spent.
    /// - Returns: nil when a unit was spent; otherwise how many seconds until one is there
    ///   (nothing is spent).
    func spendBudget(scope: String, key: String, capacity: Int, refillPerSecond: Double, at time: Date) async throws -> Double?
    /// Forgets the budgets that are full again by `now` (the same as never spent).
    /// - Returns: how many were forgotten.
    @discardableResult
    func deleteFullBudgets(asOf now: Date) async throws -> Int
}

/// The arithmetic of a budget (a token bucket), shared by every ``AttemptStore``.
public enum BudgetArithmetic {
    /// The units in a bucket that held `units` at `updated`, at `now`.
    public static func refilled(_ units: Double, updated: Date, now: Date, capacity: Int, refillPerSecond: Double) -> Double {
        min(Double(capacity), units + max(0, now.timeIntervalSince(updated)) * refillPerSecond)
    }

    /// When a bucket holding `units` at `now` is full again.
    public static func fullAt(_ units: Double, now: Date, capacity: Int, refillPerSecond: Double) -> Date {
        now.addingTimeInterval(max(0, Double(capacity) - units) / refillPerSecond)
    }
}
