import Foundation
import PlaceQuery

/// What a person was told: their notifications, newest first, and marking them read.
public struct NotificationService: Sendable {
    let store: any NotificationStore

    public init(store: any NotificationStore) {
        self.store = store
    }

    /// `username`'s notifications (only the unread ones with `unreadOnly`), newest first, after
    /// the position `after` (a notification's id, as ``ListPage/nextPosition`` gave it).
    public func notifications(of username: String, unreadOnly: Bool, after: String?, limit: Int) async throws -> ListPage<UserNotification> {
        if let after, after.isEmpty || after.utf8.count > 200 { throw SocialError.invalidCursor(after) }
        let found = try await store.notifications(of: username, unreadOnly: unreadOnly, after: after, limit: limit + 1)
        return ListPage(found, limit: limit, total: nil) { $0.id }
    }

    /// Marks `username`'s notifications of `ids` read (every one when nil); another account's
    /// ids are not theirs and change nothing. - Returns: how many changed.
    public func markRead(of username: String, ids: [String]?, at now: Date) async throws -> Int {
        try await store.markNotificationsRead(of: username, ids: ids, at: now)
    }
}
