import Foundation

/// How a person wants to be told: which kinds of notification reach them over which channels,
/// and hours in which nothing is pushed.
///
/// A kind is kept in the app (`in_app`: `GET /v1/me/notifications`, and what streams push) and
/// may also be POSTed to the account's webhook (`webhook`). A kind with no channel is not made
/// at all. During quiet hours a webhook delivery waits for their end; the notification is kept
/// at once.
public struct NotificationSettings: Sendable, Hashable, Codable {
    public enum Channel: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        case inApp = "in_app"
        case webhook

        public static func < (lhs: Channel, rhs: Channel) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Hours of the day in a time zone: from `start` to `end` minutes after local midnight,
    /// across midnight when `end` is not after `start` (22:00–07:00).
    public struct QuietHours: Sendable, Hashable, Codable {
        public var start: Int
        public var end: Int
        /// An IANA time zone name.
        public var timeZone: String

        public init(start: Int, end: Int, timeZone: String) {
            self.start = start
            self.end = end
            self.timeZone = timeZone
        }

        /// When the quiet period `now` falls in ends; nil when `now` is not quiet (or the time
        /// zone is unknown).
        public func end(after now: Date) -> Date? {
            guard let zone = TimeZone(identifier: timeZone), start != end else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let parts = calendar.dateComponents([.hour, .minute], from: now)
            let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
            let quiet = start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
            guard quiet else { return nil }
            return calendar.nextDate(
                after: now, matching: DateComponents(hour: end / 60, minute: end % 60), matchingPolicy: .nextTime)
        }
    }

    /// The kinds of notification the service makes.
    public static let kinds = [
        "friend_request", "friend_accepted", "new_follower", "trip_invitation", "trip_answer", "share_viewed", "trip_reminder",
        "itinerary_reminder", "gem_hidden", "gem_restored",
    ]

    /// The channels of each kind that does not use every channel.
    public var channels: [String: Set<Channel>]
    public var quietHours: QuietHours?

    public init(channels: [String: Set<Channel>] = [:], quietHours: QuietHours? = nil) {
        self.channels = channels
        self.quietHours = quietHours
    }

    /// The channels `kind` reaches: every channel unless the person chose.
    public func channels(for kind: String) -> Set<Channel> {
        channels[kind] ?? Set(Channel.allCases)
    }
}
