import GeoCore
import PlaceModel

/// Several indexes answered as one: imported places and hidden gems, which live in stores of
/// their own (a nightly import never waits for a gem write, nor a gem write for an import).
///
/// Each query goes to every part with the same filter and cursor, and the answers are merged in
/// the order the protocol defines (distance then id; id for boxes). Cursors are
/// ``PageCursor``s, which every store reads the same way, so the merged cursor continues each
/// part exactly: no place is repeated or skipped across pages.
///
/// Reads by id ask the parts in order and take the first answer; writes go to the first part.
public struct MergedPlaceIndex: PlaceIndex {
    public let parts: [any PlaceIndex]

    /// - Parameter parts: at least one index; the first takes writes.
    public init(_ parts: [any PlaceIndex]) {
        precondition(!parts.isEmpty, "a merged index needs at least one part")
        self.parts = parts
    }

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        if parts.count == 1 { return try await parts[0].near(center, radius: radius, filter: filter, limit: limit, cursor: cursor) }
        let pages = try await eachPart { try await $0.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor) }
        return Self.merge(pages, limit: limit) {
            PageCursor(
                distance: $0.distance?.meters ?? 0, id: $0.id.rawValue,
                queryFingerprint: PageCursor.nearFingerprint(center: center, radius: radius, filter: filter))
        }
    }

    public func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        if parts.count == 1 { return try await parts[0].within(box, filter: filter, limit: limit, cursor: cursor) }
        let pages = try await eachPart { try await $0.within(box, filter: filter, limit: limit, cursor: cursor) }
        return Self.merge(pages, limit: limit) {
            PageCursor(distance: 0, id: $0.id.rawValue, queryFingerprint: PageCursor.withinFingerprint(box: box, filter: filter))
        }
    }

    public func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        var all = try await eachPart { try await $0.nearest(center, count: count, maxDistance: maxDistance, filter: filter) }
            .flatMap { $0 }
        all.sort(by: Self.precedes)
        return Array(all.prefix(count))
    }

    public func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        if parts.count == 1 { return try await parts[0].ranked(filter: filter, limit: limit, cursor: cursor) }
        let pages = try await eachPart { try await $0.ranked(filter: filter, limit: limit, cursor: cursor) }
        var all = pages.flatMap(\.matches).map { (key: PlaceRank.key(of: $0.place), match: $0) }
        all.sort { PlaceRank.precedes($0.key, $0.match.id.rawValue, $1.key, $1.match.id.rawValue) }
        let partHasMore = pages.contains { $0.nextCursor != nil }
        guard let limit, all.count > limit || partHasMore else { return PlacePage(matches: all.map(\.match), nextCursor: nil) }
        let page = all.prefix(limit)
        guard let last = page.last else { return PlacePage(matches: [], nextCursor: nil) }
        return PlacePage(
            matches: page.map(\.match),
            nextCursor: PlaceRank.encodedCursor(key: last.key, id: last.match.id.rawValue, filter: filter))
    }

    public func place(_ id: PlaceID) async throws -> Place? {
        for part in parts {
            if let place = try await part.place(id) { return place }
        }
        return nil
    }

    /// Each id from the first part that holds it, as ``place(_:)``: one read per part at most.
    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] {
        var found: [PlaceID: Place] = [:]
        var missing = Array(Set(ids))
        for part in parts where !missing.isEmpty {
            found.merge(try await part.places(missing)) { first, _ in first }
            missing.removeAll { found[$0] != nil }
        }
        return found
    }

    @discardableResult
    public func upsert(_ places: [Place]) async throws -> Int { try await parts[0].upsert(places) }

    @discardableResult
    public func delete(_ ids: [PlaceID]) async throws -> Int { try await parts[0].delete(ids) }

    public func count(source: String?) async throws -> Int {
        var total = 0
        for part in parts { total += try await part.count(source: source) }
        return total
    }

    /// `body` on every part at once (each store answers on its own threads), in part order.
    private func eachPart<T: Sendable>(_ body: @escaping @Sendable (any PlaceIndex) async throws -> T) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for (offset, part) in parts.enumerated() { group.addTask { (offset, try await body(part)) } }
            var answers = [T?](repeating: nil, count: parts.count)
            for try await (offset, answer) in group { answers[offset] = answer }
            return answers.map { $0! }
        }
    }

    /// The protocol's order: distance (nil as 0), then id by UTF-8 bytes.
    static func precedes(_ a: PlaceMatch, _ b: PlaceMatch) -> Bool {
        let da = a.distance?.meters ?? 0, db = b.distance?.meters ?? 0
        if da != db { return da < db }
        return PlaceID.utf8Precedes(a.id.rawValue, b.id.rawValue)
    }

    /// The first `limit` matches of all pages in order; a cursor after the last one when any
    /// part has more, or when more matched than the page holds.
    static func merge(_ pages: [PlacePage], limit: Int?, cursor: (PlaceMatch) -> PageCursor) -> PlacePage {
        var all = pages.flatMap(\.matches)
        all.sort(by: precedes)
        let partHasMore = pages.contains { $0.nextCursor != nil }
        guard let limit, all.count > limit || partHasMore else { return PlacePage(matches: all, nextCursor: nil) }
        let page = Array(all.prefix(limit))
        guard let last = page.last else { return PlacePage(matches: [], nextCursor: nil) }
        return PlacePage(matches: page, nextCursor: cursor(last).encoded())
    }
}

/// An index that knows a cheaper way to answer together with another store's index than
/// ``MergedPlaceIndex`` asking both — two tables of one database read by one statement, say.
public protocol MergeablePlaceIndex: PlaceIndex {
    /// An index that answers exactly as `MergedPlaceIndex([self, other])` would, or nil when this
    /// index knows no cheaper way with `other`.
    func merged(with other: any PlaceIndex) -> (any PlaceIndex)?
}

/// An index over several stores that answers some queries a cheaper way of its own (one
/// statement over two tables or files, say) and every other query as their ``merged`` index:
/// each query it does not implement itself goes to ``merged``.
public protocol MergedIndexRefinement: PlaceIndex {
    /// The stores answered as one; the refinement must answer exactly as this does.
    var merged: MergedPlaceIndex { get }
}

extension MergedIndexRefinement {
    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await merged.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
    }

    public func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await merged.within(box, filter: filter, limit: limit, cursor: cursor)
    }

    public func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        try await merged.nearest(center, count: count, maxDistance: maxDistance, filter: filter)
    }

    public func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await merged.ranked(filter: filter, limit: limit, cursor: cursor)
    }

    public func place(_ id: PlaceID) async throws -> Place? { try await merged.place(id) }

    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] { try await merged.places(ids) }

    @discardableResult
    public func upsert(_ places: [Place]) async throws -> Int { try await merged.upsert(places) }

    @discardableResult
    public func delete(_ ids: [PlaceID]) async throws -> Int { try await merged.delete(ids) }

    public func count(source: String?) async throws -> Int { try await merged.count(source: source) }
}

extension MergedPlaceIndex {
    /// `first` and `second` as one index: the cheaper combination `first` offers
    /// (``MergeablePlaceIndex``), or else a merged index of the two.
    public static func combining(_ first: any PlaceIndex, _ second: any PlaceIndex) -> any PlaceIndex {
        (first as? any MergeablePlaceIndex)?.merged(with: second) ?? MergedPlaceIndex([first, second])
    }
}

/// An index whose queries all list gems as `viewer` sees them, whatever filter a caller passes
/// (for code that builds its own filters, such as a federated search).
public struct ViewerScopedIndex: PlaceIndex {
    public let base: any PlaceIndex
    public let viewer: String?
    /// The viewer's accepted friends (their friends-only gems are listed too).
    public let viewerFriends: [String]

    public init(base: any PlaceIndex, viewer: String?, viewerFriends: [String] = []) {
        self.base = base
        self.viewer = viewer
        self.viewerFriends = viewerFriends
    }

    private func scoped(_ filter: PlaceFilter) -> PlaceFilter {
        var filter = filter
        filter.viewer = viewer
        filter.viewerFriends = viewerFriends
        return filter
    }

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await base.near(center, radius: radius, filter: scoped(filter), limit: limit, cursor: cursor)
    }

    public func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await base.within(box, filter: scoped(filter), limit: limit, cursor: cursor)
    }

    public func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        try await base.nearest(center, count: count, maxDistance: maxDistance, filter: scoped(filter))
    }

    public func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await base.ranked(filter: scoped(filter), limit: limit, cursor: cursor)
    }

    /// The place, unless it is a gem `viewer` may not open.
    public func place(_ id: PlaceID) async throws -> Place? {
        guard let place = try await base.place(id), place.gem?.isReachable(by: viewer, viewerFriends: viewerFriends) ?? true else { return nil }
        return place
    }

    /// The places, but gems `viewer` may not open.
    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] {
        try await base.places(ids).filter { $0.value.gem?.isReachable(by: viewer, viewerFriends: viewerFriends) ?? true }
    }

    public func upsert(_ places: [Place]) async throws -> Int { try await base.upsert(places) }
    public func delete(_ ids: [PlaceID]) async throws -> Int { try await base.delete(ids) }
    public func count(source: String?) async throws -> Int { try await base.count(source: source) }
}
