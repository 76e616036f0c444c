import Foundation

/// A budget per key of `capacity` events that refills at `capacity` per `period` (a token
/// bucket): a burst may spend the whole budget at once, and over any long stretch a key acts
/// no more than `capacity` times a period. Kept in this process's memory, a few dozen bytes per
/// key, unlike ``RateLimiter``, which remembers every event of its window. The service spends
/// its budgets in the store instead (``SharedBudget``), so that several servers share them.
public final class TokenBucketLimiter: @unchecked Sendable {
    // @unchecked Sendable: `buckets` and `taken` are touched only while `lock` is held.
    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    private var taken = 0
    public let capacity: Int
    public let period: Duration
    /// The most keys remembered; beyond it the fullest half is forgotten (which only hands
    /// those keys their whole budget back: a flood of keys cannot grow memory without bound).
    public let maximumKeys: Int

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    public init(capacity: Int, period: Duration, maximumKeys: Int = 100_000) {
        precondition(capacity > 0, "a budget needs room for one event")
        self.capacity = capacity
        self.period = period
        self.maximumKeys = maximumKeys
    }

    /// Tokens per second.
    private var rate: Double { Double(capacity) / period.timeInterval }

    private func refilled(_ bucket: Bucket?, _ now: ContinuousClock.Instant) -> Bucket {
        guard let bucket else { return Bucket(tokens: Double(capacity), updated: now) }
        let elapsed = now - bucket.updated
        return Bucket(tokens: min(Double(capacity), bucket.tokens + max(0, elapsed.timeInterval) * rate), updated: now)
    }

    /// Spends one event of `key`'s budget.
    /// - Returns: nil when it was spent; otherwise how long until one is there (nothing is spent).
    public func take(_ key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        lock.withLock {
            var bucket = refilled(buckets[key], now)
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return .milliseconds(Int64(((1 - bucket.tokens) / rate * 1_000).rounded(.up)))
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            taken += 1
            if taken % 1_024 == 0 || buckets.count > maximumKeys { prune(now) }
            return nil
        }
    }

    /// What is left of `key`'s budget now (whole events).
    public func remaining(_ key: String, now: ContinuousClock.Instant = .now) -> Int {
        lock.withLock { Int(refilled(buckets[key], now).tokens) }
    }

    private func prune(_ now: ContinuousClock.Instant) {
        // A bucket that has refilled is the same as no bucket.
        buckets = buckets.filter { refilled($0.value, now).tokens < Double(capacity) }
        if buckets.count > maximumKeys {
            let emptiest = buckets.sorted { refilled($0.value, now).tokens < refilled($1.value, now).tokens }.prefix(maximumKeys / 2)
            buckets = Dictionary(uniqueKeysWithValues: emptiest.map { ($0.key, $0.value) })
        }
    }
}
