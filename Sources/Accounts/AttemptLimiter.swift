import Foundation
import PlaceQuery

/// At most ``limit`` attempts per key within a sliding ``window``: how sign-ins, sign-ups and
/// password guesses are limited. ``RateLimiter`` counts in this process's memory;
/// ``SharedAttemptLimiter`` counts in the database every server of a deployment shares.
public protocol AttemptLimiter: Sendable {
    var limit: Int { get }
    var window: Duration { get }
    /// How long until `key` may try again; nil when it may try now.
    func retryAfter(for key: String) async throws -> Duration?
    /// Counts one attempt of `key`.
    func recordAttempt(_ key: String) async throws
    /// Forgets `key`'s attempts (after a successful sign-in, its failures no longer count).
    func clearAttempts(_ key: String) async throws
}

extension RateLimiter: AttemptLimiter {
    public func retryAfter(for key: String) async throws -> Duration? { wait(for: key) }
    public func recordAttempt(_ key: String) async throws { record(key) }
    public func clearAttempts(_ key: String) async throws { reset(key) }
}

/// Attempts counted in an ``AttemptStore`` (the user data store), so that every
/// `geoquery serve` process on one database counts the same attempts and a limit holds
/// however many servers a client spreads its guesses over, and across restarts.
///
/// The store sees only a hash of each key: a login (which may be an email) or a client
/// address is never stored in the clear.
public struct SharedAttemptLimiter: AttemptLimiter {
    public let store: any AttemptStore
    /// Which limit the attempts count against (``AttemptStore`` keeps scopes apart).
    public let scope: String
    public let limit: Int
    public let window: Duration

    public init(store: any AttemptStore, scope: String, limit: Int, window: Duration) {
        self.store = store
        self.scope = scope
        self.limit = limit
        self.window = window
    }

    public func retryAfter(for key: String) async throws -> Duration? {
        let now = Date()
        let recent = try await store.attempts(scope: scope, key: Self.storedKey(key), since: now.addingTimeInterval(-seconds), limit: limit)
        guard recent.count >= limit, let oldest = recent.last else { return nil }
        let remaining = max(0, seconds - now.timeIntervalSince(oldest))
        return .milliseconds(Int64((remaining * 1_000).rounded(.up)))
    }

    public func recordAttempt(_ key: String) async throws {
        let now = Date()
        try await store.recordAttempt(scope: scope, key: Self.storedKey(key), at: now, keptUntil: now.addingTimeInterval(seconds))
    }

    public func clearAttempts(_ key: String) async throws {
        try await store.clearAttempts(scope: scope, key: Self.storedKey(key))
    }

    private var seconds: Double { window.timeInterval }

    /// What the store keeps of a key: its SHA-256, in hex.
    static func storedKey(_ key: String) -> String { SessionToken.hash(key) }
}

/// A budget of events per key that refills steadily (a token bucket): ``TokenBucketLimiter``
/// keeps it in this process's memory, ``SharedBudget`` in the store every server shares.
public protocol BudgetLimiter: Sendable {
    /// The most events a key may spend at once; as many come back over each period.
    var capacity: Int { get }
    /// Spends one event of `key`'s budget.
    /// - Returns: nil when it was spent; otherwise how long until one is there (nothing is spent).
    func spend(_ key: String) async throws -> Duration?
}

extension TokenBucketLimiter: BudgetLimiter {
    public func spend(_ key: String) async throws -> Duration? { take(key) }
}

/// A budget kept in an ``AttemptStore``, so every `geoquery serve` process on one database
/// spends from the same one: an account behind N servers gets one budget, not N.
public struct SharedBudget: BudgetLimiter {
    public let store: any AttemptStore
    /// Which budget (``AttemptStore`` keeps scopes apart).
    public let scope: String
    public let capacity: Int
    public let period: Duration

    public init(store: any AttemptStore, scope: String, capacity: Int, period: Duration) {
        precondition(capacity > 0, "a budget needs room for one event")
        self.store = store
        self.scope = scope
        self.capacity = capacity
        self.period = period
    }

    public func spend(_ key: String) async throws -> Duration? {
        let wait = try await store.spendBudget(
            scope: scope, key: key, capacity: capacity,
            refillPerSecond: Double(capacity) / period.timeInterval, at: Date())
        return wait.map { .milliseconds(Int64(($0 * 1_000).rounded(.up))) }
    }
}
