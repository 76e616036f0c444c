import Foundation
import GeoCore
import PlaceModel

/// The most popular places or destinations: what people did lately (``PopularityStore``),
/// plus a bounded prior from each place's provider ratings, filtered and paged.
///
/// Entries are read in activity order; a place's score is its activity plus its prior (at most
/// ``maximumPrior``), so reading stops once no unread entry can still make the page — and in any
/// case after ``maximumEntriesRead`` entries, which bounds one request's work.
public struct PopularRanking: Sendable {
    /// The most a provider's ratings add to a place's popularity (what ten thousand 5-star
    /// reviews earn; one favourite today is worth 3).
    public static let maximumPrior = 2.0
    /// The most activity entries one page reads.
    public static let maximumEntriesRead = 5_000
    /// Entries read from the store at once.
    static let entriesPerRead = 200

    let activity: any PopularityStore
    let places: any PlaceIndex

    /// Ranks `activity`'s entries, reading each page's places from `places`.
    public init(activity: any PopularityStore, places: any PlaceIndex) {
        self.activity = activity
        self.places = places
    }

    /// Where a page of popular places resumes: after the place ranked `score`, `id`, with every
    /// page's scores read at the first page's instant `time`.
    public struct Position: Sendable, Hashable {
        public var time: Date
        public var score: Double
        public var id: String

        public init(time: Date, score: Double, id: String) {
            self.time = time
            self.score = score
            self.id = id
        }

        /// Reads a position written by ``text``, or nil when `text` is not one.
        public init?(text: String) {
            let parts = text.split(separator: "~", maxSplits: 2)
            guard parts.count == 3, let time = Double(parts[0]), time.isFinite, let score = Double(parts[1]), score.isFinite else {
                return nil
            }
            self.init(time: Date(timeIntervalSince1970: time), score: score, id: String(parts[2]))
        }

        /// The position as a cursor's text.
        public var text: String { "\(time.timeIntervalSince1970)~\(score)~\(id)" }

        /// Whether a place ranked `score`, `id` comes after this position (score descending,
        /// then id ascending).
        func precedes(score other: Double, id otherID: String) -> Bool {
            other < score || (other == score && otherID > id)
        }
    }

    /// One ranked place and why it ranks there.
    public struct Item: Sendable {
        public var place: Place
        /// ``activity`` plus ``prior``.
        public var score: Double
        public var activity: Double
        public var prior: Double
        public var entry: PopularEntry
    }

    /// A page of ranked places, best first, and where the next one starts (nil on the last).
    public struct Page: Sendable {
        public var items: [Item]
        public var next: Position?
    }

    /// The `limit` most popular subjects of `kind` over `period` that `filter` keeps (its
    /// attributes: categories, viewer), within `meters` of `center` when given, after `after`.
    public func page(
        _ kind: PopularKind, period: PopularityPeriod, filter: PlaceFilter, within area: (center: Coordinate, meters: Double)?,
        after: Position?, limit: Int, now: Date = Date()
    ) async throws -> Page {
        let now = after?.time ?? now
        func isShown(_ item: Item) -> Bool { after?.precedes(score: item.score, id: item.place.id.rawValue) ?? true }
        var ranked: [Item] = []
        var position: PopularEntry?
        var read = 0
        reading: while read < Self.maximumEntriesRead {
            // The page's last place so far: an entry that cannot beat it even with the largest
            // prior, nor can any after it.
            let eligible = ranked.filter(isShown).map(\.score).sorted(by: >)
            let threshold = eligible.count > limit ? eligible[limit] : -Double.infinity
            let entries = try await activity.popular(
                kind, period: period, activeSince: now.addingTimeInterval(-period.seconds), after: position, limit: Self.entriesPerRead)
            let found = try await places.places(entries.map(\.subject))  // one read per page of entries
            for entry in entries {
                read += 1
                position = entry
                let activity = PopularityMath.value(entry.key, at: now, period: period)
                if activity + Self.maximumPrior < threshold { break reading }
                guard let place = found[entry.subject], filter.matchesAttributes(of: place) else { continue }
                if let area, Geodesic.distance(area.center, place.coordinate) > area.meters { continue }
                let prior = Self.prior(place)
                ranked.append(Item(place: place, score: activity + prior, activity: activity, prior: prior, entry: entry))
            }
            if entries.count < Self.entriesPerRead { break }
        }
        let page = ranked.filter(isShown)
            .sorted { $0.score != $1.score ? $0.score > $1.score : $0.place.id.rawValue < $1.place.id.rawValue }
            .prefix(limit + 1)
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { Position(time: now, score: $0.score, id: $0.place.id.rawValue) } : nil
        return Page(items: shown, next: next)
    }

    /// A place's prior from its provider ratings: up to ``maximumPrior``, by how many ratings
    /// (log scale) and how good they are.
    public static func prior(_ place: Place) -> Double {
        guard let rating = place.rating else { return 0 }
        return min(maximumPrior, 0.5 * log10(1 + Double(rating.count ?? 0))) * rating.value / 5
    }
}
