import Foundation
import PlaceModel

/// What people do with a place that makes it popular, and how much each counts.
public enum PlaceActivity: String, Sendable, CaseIterable {
    case favorite, rating
    /// A stop of an itinerary or a trip.
    case planStop = "plan_stop"
    /// A view of a shared plan, for its destination and stops.
    case shareView = "share_view"

    public var weight: Double {
        switch self {
        case .favorite: 3
        case .rating, .planStop: 2
        case .shareView: 1
        }
    }
}

/// Over what time popularity is judged: activity within the period counts, decaying with a
/// half-life of a third of it (an action at the period's start counts an eighth of one now).
public enum PopularityPeriod: Int, Sendable, CaseIterable {
    case week = 7, month = 30, year = 365

    public var seconds: Double { Double(rawValue) * 86_400 }
    public var halfLife: Double { seconds / 3 }

    /// `7d`, `30d`, `365d` (also `week`, `month`, `year`).
    public init?(text: String) {
        switch text.lowercased() {
        case "7d", "week": self = .week
        case "30d", "month": self = .month
        case "365d", "year": self = .year
        default: return nil
        }
    }
}

/// Whose popularity: a place's own, or a destination's (the city a place lies in or by).
public enum PopularKind: String, Sendable, CaseIterable {
    case place, destination
}

/// Time-decayed sums kept as one number each, so that a store orders them with an index and
/// updates them in place: a weight `w` at time `t` is `log2(w) + t / halfLife`, and a sum of
/// such terms is their log-sum-exp. Every score decays by the same factor as time passes, so
/// the order of two sums never depends on when it is read; ``value(_:at:period:)`` gives the
/// sum's worth at a moment.
public enum PopularityMath {
    /// Seconds are counted from 2020-01-01 so the exponents stay small.
    static let epoch = 1_577_836_800.0

    public static func key(weight: Double, at date: Date, period: PopularityPeriod) -> Double {
        log2(weight) + (date.timeIntervalSince1970 - epoch) / period.halfLife
    }

    /// The key of the sum of two keys' terms.
    public static func combine(_ a: Double, _ b: Double) -> Double {
        let high = max(a, b), low = min(a, b)
        return high + log2(1 + exp2(low - high))
    }

    /// What a key is worth at `date`: the decayed sum of its weights.
    public static func value(_ key: Double, at date: Date, period: PopularityPeriod) -> Double {
        exp2(key - (date.timeIntervalSince1970 - epoch) / period.halfLife)
    }
}

/// One popular subject: its key (order by it, highest first), when it was last acted on, and
/// how many actions it had.
public struct PopularEntry: Sendable, Hashable {
    public var subject: PlaceID
    public var key: Double
    public var lastActivity: Date
    public var events: Int

    public init(subject: PlaceID, key: Double, lastActivity: Date, events: Int) {
        self.subject = subject
        self.key = key
        self.lastActivity = lastActivity
        self.events = events
    }
}

/// Counters of what people do, updated with each action (never a scan per request).
public protocol PopularityStore: Sendable {
    /// Adds `activity`'s weight at `date` to each subject's sum, for every period.
    func recordActivity(_ activity: PlaceActivity, subjects: [(kind: PopularKind, id: PlaceID)], at date: Date) async throws
    /// The most popular subjects of `kind` over `period`, highest key first (ties by id), acted
    /// on since `activeSince`; after `after` (the last entry of the previous page).
    func popular(
        _ kind: PopularKind, period: PopularityPeriod, activeSince: Date, after: PopularEntry?, limit: Int
    ) async throws
        -> [PopularEntry]
}
