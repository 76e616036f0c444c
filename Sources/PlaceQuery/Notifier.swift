/// Tells a person that something happened: stored for `GET /v1/me/notifications` and sent to
/// their webhook. Use cases say what and to whom; the service decides how.
public protocol Notifier: Sendable {
    /// Notifies `username` of a `kind` of event with its `data`. With an `id`, a second
    /// notification of the same id is not made (one per asker, however often they ask; one
    /// reminder per plan and start, however many servers send reminders).
    /// - Returns: whether a notification was made (false for a repeated id, or when it could
    ///   not be stored, which the notifier logs; the event that caused it goes on).
    @discardableResult
    func notify(_ username: String, kind: String, data: [String: String], id: String?) async -> Bool
}
