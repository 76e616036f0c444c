import Foundation
import GeoQueryWire
import PlaceQuery

/// `notifications` of `PATCH /v1/me` (at the top level or in `settings`) and of `GET /v1/me`:
/// which kinds reach the person over which channels, and their quiet hours.
extension GeoQueryService {
    /// The settings after `body`'s `notifications`: each kind it names gets the channels given
    /// (`[]` turns it off), the others keep theirs; `quiet_hours` replaces them (`null` ends
    /// them); `"notifications": null` goes back to every kind over every channel.
    static func notificationSettings(_ body: JSONBody, current: NotificationSettings?) throws -> NotificationSettings? {
        guard let object = try body.object("notifications", allowed: ["channels", "quiet_hours"]) else { return nil }
        var settings = current ?? NotificationSettings()
        if let channels = try object.object("channels", allowed: NotificationSettings.kinds) {
            for kind in channels.members.keys.sorted() {
                var chosen: Set<NotificationSettings.Channel> = []
                for name in try channels.strings(kind, maxCount: 5, maxLength: 20) ?? [] {
                    guard let channel = NotificationSettings.Channel(rawValue: name) else {
                        throw APIProblem.badRequest(
                            "notifications.channels.\(kind) '\(name.prefix(20))' is invalid: use in_app and webhook (or [] for none)")
                    }
                    chosen.insert(channel)
                }
                if chosen == [.webhook] {
                    throw APIProblem.badRequest(
                        "notifications.channels.\(kind) is [webhook] alone: a notification is sent to the webhook as it is kept, so give [in_app, webhook], [in_app] or []"
                    )
                }
                settings.channels[kind] = chosen.count == NotificationSettings.Channel.allCases.count ? nil : chosen
            }
        }
        if object.has("quiet_hours") {
            settings.quietHours = try object.object("quiet_hours", allowed: ["start", "end", "time_zone"]).map { hours in
                let zone = try hours.requiredString("time_zone", maxLength: 60)
                guard TimeZone(identifier: zone) != nil else {
                    throw APIProblem.badRequest(
                        "notifications.quiet_hours.time_zone '\(zone.prefix(60))' is invalid: give an IANA name such as Europe/Paris")
                }
                return NotificationSettings.QuietHours(
                    start: try minuteOfDay(hours, "start"), end: try minuteOfDay(hours, "end"), timeZone: zone)
            }
        }
        return settings.channels.isEmpty && settings.quietHours == nil ? nil : settings
    }

    /// `HH:MM` as minutes after midnight.
    private static func minuteOfDay(_ body: JSONBody, _ name: String) throws -> Int {
        let text = try body.requiredString(name, maxLength: 10)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else {
            throw APIProblem.badRequest("notifications.quiet_hours.\(name) '\(text.prefix(10))' is invalid: give a time of day as HH:MM, e.g. 22:00")
        }
        return hour * 60 + minute
    }

    /// The settings as `GET /v1/me` shows them: every kind with its channels.
    static func notificationSettingsJSON(_ settings: NotificationSettings?) -> OrderedJSON {
        let settings = settings ?? NotificationSettings()
        let hours = settings.quietHours.map { hours -> OrderedJSON in
            let text = { (minute: Int) in String(format: "%02d:%02d", minute / 60, minute % 60) }
            return .object([("start", .string(text(hours.start))), ("end", .string(text(hours.end))), ("time_zone", .string(hours.timeZone))])
        }
        return .object([
            (
                "channels",
                .object(NotificationSettings.kinds.map { kind in (kind, .array(settings.channels(for: kind).sorted().map { .string($0.rawValue) })) })
            ),
            ("quiet_hours", hours ?? .null),
        ])
    }
}
