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

/// Tells a person that something happened: stored for `GET /v1/me/notifications` and sent to
/// their webhook. Use cases say what and to whom; the service decides how.
public protocol Notifier: Sendable {
    /// Notifies `username` of a `kind` of event with its `data`. With an `id`, a second
    /// notification of the same id is not made (one per asker, however often they ask).
    func notify(_ username: String, kind: String, data: [String: String], id: String?) async
}
