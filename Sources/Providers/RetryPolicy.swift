import Foundation

/// How transient failures (HTTP 429 and 5xx, timeouts, broken connections) are retried:
/// exponential backoff with full jitter, honouring `Retry-After` up to a ceiling.
public struct RetryPolicy: Sendable, Hashable {
    /// Total tries, the first included: 3 means at most two retries.
    public var maxAttempts: Int
    /// The backoff before the first retry; it doubles for each further one.
    public var baseDelay: TimeInterval
    /// No single wait is longer than this, `Retry-After` included.
    public var maxDelay: TimeInterval

    public init(maxAttempts: Int = 3, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 10) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    public static let `default` = RetryPolicy()
    /// One try, no retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before retry number `retry` (1 for the first retry). A server's `Retry-After`
    /// (seconds or an HTTP date) wins over the backoff; otherwise a uniformly random wait in
    /// `0...baseDelay·2^(retry-1)` ("full jitter"), so clients that failed together do not
    /// come back together.
    public func delay(
        beforeRetry retry: Int, retryAfter: String?, now: Date = Date(),
        random: Double = Double.random(in: 0...1)
    ) -> TimeInterval {
        if let retryAfter, let seconds = Self.seconds(retryAfter: retryAfter, now: now) {
            return min(maxDelay, max(0, seconds))
        }
        let ceiling = baseDelay * pow(2, Double(max(0, retry - 1)))
        return min(maxDelay, ceiling * min(1, max(0, random)))
    }

    /// `Retry-After` as seconds from `now`: either delay-seconds or an IMF-fixdate.
    static func seconds(retryAfter: String, now: Date) -> TimeInterval? {
        let text = retryAfter.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds.isFinite { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { $0.timeIntervalSince(now) }
    }
}
