import Foundation

/// At most `limit` events per key within a sliding `window`, kept in this process's memory.
///
/// For a library user with one process. Several processes each keep their own counts, so
/// behind a load balancer a client would get up to `limit` attempts per process: the service
/// counts sign-ins in its store instead (``SharedAttemptLimiter``).
public final class RateLimiter: @unchecked Sendable {
    // @unchecked Sendable: `events` and `recorded` are touched only while `lock` is held.
    private let lock = NSLock()
    private var events: [String: [ContinuousClock.Instant]] = [:]
    private var recorded = 0
    public let limit: Int
    public let window: Duration
    /// The most keys remembered; the oldest half is dropped beyond it (a flood of addresses
    /// cannot grow memory without bound).
    public let maximumKeys: Int

    public init(limit: Int, window: Duration, maximumKeys: Int = 100_000) {
        self.limit = limit
        self.window = window
        self.maximumKeys = maximumKeys
    }

    /// How long until `key` may act again; nil when it may act now.
    public func wait(for key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        lock.withLock {
            let recent = (events[key] ?? []).filter { now - $0 < window }
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return window - (now - oldest)
        }
    }

    /// Counts one event for `key`.
    public func record(_ key: String, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            var recent = (events[key] ?? []).filter { now - $0 < window }
            recent.append(now)
            if recent.count > limit { recent.removeFirst(recent.count - limit) }
            events[key] = recent
            recorded += 1
            if recorded % 1024 == 0 || events.count > maximumKeys { prune(now) }
        }
    }

    /// Forgets `key` (after a successful sign-in, its failures no longer count).
    public func reset(_ key: String) {
        lock.withLock { _ = events.removeValue(forKey: key) }
    }

    private func prune(_ now: ContinuousClock.Instant) {
        events = events.filter { _, times in times.contains { now - $0 < window } }
        if events.count > maximumKeys {
            let newest = events.sorted { ($0.value.last ?? now) > ($1.value.last ?? now) }.prefix(maximumKeys / 2)
            events = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
        }
    }
}
