import Foundation
import PlaceQuery

/// One page of a list a use case answers: the items, how many the whole list holds when that
/// costs nothing, and the position the next page resumes after (nil on the last page). The
/// faces turn the position into the one cursor format (`next_cursor`).
public struct ListPage<Item: Sendable>: Sendable {
    public var items: [Item]
    public var total: Int?
    public var nextPosition: String?

    public init(items: [Item], total: Int?, nextPosition: String?) {
        self.items = items
        self.total = total
        self.nextPosition = nextPosition
    }

    /// The first `limit` of `matching` (the list after the cursor, in order), with the
    /// position of the last item shown when more follow.
    init(_ matching: [Item], limit: Int, total: Int?, position: (Item) -> String) {
        let items = Array(matching.prefix(limit))
        self.init(items: items, total: total, nextPosition: matching.count > limit ? items.last.map(position) : nil)
    }
}

/// The position of a list ordered newest first, then by username, as text: the instant's
/// seconds since 1970 (a `Double`'s shortest text, which reads back exactly), `_`, the name.
enum TimeAndName {
    static func text(_ instant: Date, _ username: String) -> String { "\(instant.timeIntervalSince1970)_\(username)" }

    /// - Throws: ``SocialError/invalidCursor(_:)`` for text ``text(_:_:)`` did not make.
    static func position(_ text: String) throws -> FollowPosition {
        let parts = text.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let seconds = Double(parts[0]), seconds.isFinite else { throw SocialError.invalidCursor(text) }
        return FollowPosition(createdAt: Date(timeIntervalSince1970: seconds), username: String(parts[1]))
    }
}

/// Who an asker may reach by name.
enum Reachability {
    /// The username of an account `asker` may reach (by any case of it): not one that either
    /// blocked the other.
    /// - Throws: ``SocialError/noSuchUser(_:)`` otherwise, the same whether the account is
    ///   missing or blocked.
    static func user(_ name: String, reachableBy asker: String, in store: any AccountStore & BlockStore) async throws -> String {
        let folded = name.lowercased()
        guard try await store.user(named: folded) != nil, try await !store.isBlocked(between: asker, and: folded) else {
            throw SocialError.noSuchUser(name)
        }
        return folded
    }
}
