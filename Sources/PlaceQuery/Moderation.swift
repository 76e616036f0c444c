import Foundation
import PlaceModel

/// Why someone reports a gem.
public enum ReportReason: String, Sendable, Hashable, CaseIterable {
    case spam, offensive, dangerous, privateProperty = "private_property", wrongLocation = "wrong_location", closed, other
}

/// One user's report of a gem (one per user and gem; a second replaces the first).
public struct GemReport: Sendable, Hashable {
    public var gemID: PlaceID
    public var username: String
    public var reason: ReportReason
    /// What the reporter adds, in their words.
    public var note: String?
    public var createdAt: Date

    public init(gemID: PlaceID, username: String, reason: ReportReason, note: String?, createdAt: Date) {
        self.gemID = gemID
        self.username = username
        self.reason = reason
        self.note = note
        self.createdAt = createdAt
    }
}

/// A gem in the moderators' queue: its open reports, the newest first.
/// Where a page of the report queue ends: its last gem's report count and id.
public struct ReportQueuePosition: Sendable, Hashable {
    public var reportCount: Int
    public var gemID: PlaceID

    public init(reportCount: Int, gemID: PlaceID) {
        self.reportCount = reportCount
        self.gemID = gemID
    }
}

extension ModerationStore {
    /// The first `limit` gems of the queue.
    public func reportedGems(limit: Int) async throws -> [ReportedGem] {
        try await reportedGems(after: nil, limit: limit)
    }
}

public struct ReportedGem: Sendable, Hashable {
    public var gemID: PlaceID
    public var reports: [GemReport]

    public init(gemID: PlaceID, reports: [GemReport]) {
        self.gemID = gemID
        self.reports = reports
    }
}

/// A moderator's decision to hide a gem: it is private, and its owner cannot publish it again
/// until a moderator restores it.
public struct GemModeration: Sendable, Hashable {
    public var hiddenAt: Date
    public var moderator: String
    public var reason: String

    public init(hiddenAt: Date, moderator: String, reason: String) {
        self.hiddenAt = hiddenAt
        self.moderator = moderator
        self.reason = reason
    }
}

/// Reports of gems and moderators' decisions. Deleting a gem deletes its reports and its
/// moderation; deleting an account deletes the reports it made.
public protocol ModerationStore: Sendable {
    /// Records `report`, replacing the reporter's earlier report of the gem.
    /// - Returns: true when the reporter had not reported the gem before.
    func report(_ report: GemReport) async throws -> Bool
    /// The gems with open reports, most reports first, then by id; at most `limit`, after
    /// `after` (the report count and id of the previous page's last gem; it need not be in the
    /// queue any more).
    func reportedGems(after: ReportQueuePosition?, limit: Int) async throws -> [ReportedGem]
    /// The reports `username` made, the newest first.
    func reports(by username: String) async throws -> [GemReport]
    /// Closes the gem's reports. - Returns: how many there were.
    func dismissReports(of gem: PlaceID) async throws -> Int
    /// Hides the gem, in one transaction: it becomes private, the decision is kept, and its
    /// reports are closed. - Returns: the gem as it is now; nil when there is no such gem.
    func hideGem(_ gem: PlaceID, _ moderation: GemModeration) async throws -> Place?
    /// Lifts a moderator's decision (the gem stays private until its owner publishes it).
    /// - Returns: false when the gem was not hidden.
    func restoreGem(_ gem: PlaceID) async throws -> Bool
    /// The moderators' decision on the gem, if it is hidden.
    func moderation(of gem: PlaceID) async throws -> GemModeration?
    /// The decisions on those of `gems` that are hidden (one read for a page of gems).
    func moderations(of gems: [PlaceID]) async throws -> [PlaceID: GemModeration]
}
