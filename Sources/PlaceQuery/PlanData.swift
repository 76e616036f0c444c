import Foundation
import GeoCore

/// Who may see a plan (an itinerary or a trip) beyond its owner and members.
public enum PlanVisibility: String, Sendable, Hashable, CaseIterable, Codable {
    /// The owner and the members the owner named.
    case `private`
    /// Also the owner's accepted friends.
    case friends
    /// Anyone, signed in or not.
    case `public`
}

/// A plan's kind: what its ``PlanRecord/document`` holds.
public enum PlanKind: String, Sendable, Hashable, CaseIterable {
    /// Places' and MyVacation's itineraries: transport, lodging, stops by day.
    case itinerary
    /// Let's Go's group outings: invitees who answer, a meeting time, an album.
    case trip
}

/// What a member of a plan may do.
public enum PlanRole: String, Sendable, Hashable, CaseIterable, Codable {
    /// Changes the itinerary (not its members, links or visibility: only the owner does).
    case editor
    /// Reads the itinerary.
    case viewer
    /// Invited to a trip: reads it, answers, gives availability, adds photos to its album.
    case invitee
}

/// An invitee's answer to a trip.
public enum PlanAnswer: String, Sendable, Hashable, CaseIterable, Codable {
    case invited, accepted, declined, maybe
}

/// Someone the owner named on a plan.
public struct PlanMember: Sendable, Hashable {
    public var username: String
    public var role: PlanRole
    /// Invitees' answers (nil for editors and viewers).
    public var answer: PlanAnswer?

    public init(username: String, role: PlanRole, answer: PlanAnswer? = nil) {
        self.username = username
        self.role = role
        self.answer = answer
    }
}

/// A stored plan. The store keeps the columns it lists and authorises by (owner, members,
/// visibility, dates) and the ``document`` as opaque JSON that the layer above owns.
public struct PlanRecord: Sendable, Hashable {
    /// Opaque and unguessable (`it_…` or `tr_…` plus 96 random bits).
    public var id: String
    public var kind: PlanKind
    public var owner: String
    public var visibility: PlanVisibility
    /// Sorted by username.
    public var members: [PlanMember]
    public var startsAt: Date
    public var endsAt: Date
    /// Counts writes from 1: ``PlanStore/updatePlan(_:expectedRevision:)`` refuses a write made
    /// from an older read, so two editors never silently overwrite each other.
    public var revision: Int
    public var createdAt: Date
    public var updatedAt: Date
    /// The plan's JSON, as the layer above encodes it.
    public var document: Data

    public init(
        id: String, kind: PlanKind, owner: String, visibility: PlanVisibility, members: [PlanMember] = [],
        startsAt: Date, endsAt: Date, revision: Int = 1, createdAt: Date, updatedAt: Date, document: Data
    ) {
        self.id = id
        self.kind = kind
        self.owner = owner
        self.visibility = visibility
        self.members = members.sorted { $0.username < $1.username }
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.revision = revision
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.document = document
    }

    /// The member entry of `username`, if the owner named them.
    public func member(_ username: String?) -> PlanMember? {
        guard let username else { return nil }
        return members.first { $0.username == username }
    }
}

/// Which plans a listing returns, and in which order.
public enum PlanWindow: Sendable, Hashable {
    /// Every plan, earliest start first.
    case all
    /// Plans that have not ended at the instant, earliest start first.
    case upcoming(Date)
    /// Plans that ended before the instant, latest start first.
    case past(Date)
}

/// Where a plan listing resumes: the sort key of the last plan of the previous page.
public struct PlanListPosition: Sendable, Hashable {
    public var startsAt: Date
    public var id: String

    public init(startsAt: Date, id: String) {
        self.startsAt = startsAt
        self.id = id
    }
}

/// A friendship as one of its two people sees it.
public struct Friendship: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Asked by this user, not yet answered.
        case requested
        /// Asked of this user, not yet answered.
        case incoming
        case accepted
    }

    /// The other person.
    public var username: String
    public var state: State
    /// When the request was made.
    public var since: Date

    public init(username: String, state: State, since: Date) {
        self.username = username
        self.state = state
        self.since = since
    }
}

/// A share link of a plan. The token itself is shown once, when the link is made; only its
/// SHA-256 is kept.
public struct ShareLink: Sendable, Hashable {
    /// The link's public id, which the owner revokes it by (not the token).
    public var id: String
    /// Lower-case hex SHA-256 of the token.
    public var tokenHash: String
    public var planID: String
    public var createdAt: Date
    public var expiresAt: Date?
    public var revokedAt: Date?
    public var viewCount: Int
    public var lastViewedAt: Date?

    public init(
        id: String, tokenHash: String, planID: String, createdAt: Date, expiresAt: Date? = nil,
        revokedAt: Date? = nil, viewCount: Int = 0, lastViewedAt: Date? = nil
    ) {
        self.id = id
        self.tokenHash = tokenHash
        self.planID = planID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.viewCount = viewCount
        self.lastViewedAt = lastViewedAt
    }

    /// Whether the link opens its plan at `instant`.
    public func isLive(at instant: Date) -> Bool {
        revokedAt == nil && (expiresAt.map { instant < $0 } ?? true)
    }
}

/// Something that happened that a user should hear of.
public struct UserNotification: Sendable, Hashable {
    /// Unique per user. Made from what it is about when it must be made only once (a trip's
    /// reminder), so a second attempt, even after a restart, is a no-op.
    public var id: String
    public var username: String
    /// `friend_request`, `friend_accepted`, `new_follower`, `trip_invitation`, `trip_answer`,
    /// `share_viewed`, `trip_reminder`, `itinerary_reminder`, `gem_hidden`, `gem_restored`.
    public var kind: String
    /// What it is about, by name (`from`, `plan`, `answer`…).
    public var data: [String: String]
    public var createdAt: Date
    public var readAt: Date?

    public init(id: String, username: String, kind: String, data: [String: String], createdAt: Date, readAt: Date? = nil) {
        self.id = id
        self.username = username
        self.kind = kind
        self.data = data
        self.createdAt = createdAt
        self.readAt = readAt
    }
}

/// A span of time someone is busy.
public struct BusyInterval: Sendable, Hashable, Codable {
    public var start: Date
    public var end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }
}

extension BusyInterval {
    /// A list as the stores keep it: `[{"start":…,"end":…}]`, each instant in seconds since
    /// 2001-01-01 (what `JSONEncoder` writes for a `Date`, so lists written before read the
    /// same). Written byte by byte, whole seconds as integers: `JSONEncoder` took a quarter of a
    /// 10 000-period request's CPU, and string interpolation of `Double`s still a quarter of
    /// what was left, on the request's own task.
    public static func storedText(_ list: [BusyInterval]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(list.count * 44 + 2)
        bytes.append(UInt8(ascii: "["))
        for (index, interval) in list.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"start":"#.utf8)
            appendNumber(interval.start.timeIntervalSinceReferenceDate, to: &bytes)
            bytes.append(contentsOf: #","end":"#.utf8)
            appendNumber(interval.end.timeIntervalSinceReferenceDate, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as JSON: a whole number of seconds in decimal digits, any other as Swift writes
    /// a `Double` (the shortest text that reads back as the same value).
    private static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        guard value.rounded(.towardZero) == value, abs(value) < 1e15 else {
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        DecimalText.append(Int64(value), to: &bytes)
    }

    /// A list read back from ``storedText(_:)``; nil when the text is not one.
    public static func list(storedText text: String) -> [BusyInterval]? {
        guard case .array(let items)? = try? JSONScanner.parse(Array(text.utf8)) else { return nil }
        var list: [BusyInterval] = []
        list.reserveCapacity(items.count)
        for item in items {
            guard case .object(let members) = item, let start = members["start"]?.doubleValue,
                let end = members["end"]?.doubleValue
            else { return nil }
            list.append(BusyInterval(start: Date(timeIntervalSinceReferenceDate: start), end: Date(timeIntervalSinceReferenceDate: end)))
        }
        return list
    }
}

/// A photo in a trip's shared album.
public struct AlbumPhoto: Sendable, Hashable {
    public var photoID: String
    public var uploader: String
    public var addedAt: Date
    /// The photo's size in pixels, when the store knows it (read from the photo's record).
    public var width: Int?
    public var height: Int?

    public init(photoID: String, uploader: String, addedAt: Date, width: Int? = nil, height: Int? = nil) {
        self.photoID = photoID
        self.uploader = uploader
        self.addedAt = addedAt
        self.width = width
        self.height = height
    }
}

extension FriendStore {
    /// ``requestFriendship(from:to:at:friendLimit:)`` with no limit on friends.
    public func requestFriendship(from requester: String, to addressee: String, at date: Date) async throws -> Friendship {
        try await requestFriendship(from: requester, to: addressee, at: date, friendLimit: nil)
    }

    /// ``answerFriendship(of:from:accept:at:friendLimit:)`` with no limit on friends.
    public func answerFriendship(of addressee: String, from requester: String, accept: Bool, at date: Date) async throws -> Bool {
        try await answerFriendship(of: addressee, from: requester, accept: accept, at: date, friendLimit: nil)
    }
}

/// Friends: requests, answers, the list. A friendship is one request, accepted or not.
public protocol FriendStore: Sendable {
    /// Asks `addressee` to be friends with `requester`. When `addressee` had already asked
    /// `requester`, that request is accepted instead — with a `friendLimit`, only when neither
    /// has that many friends already, decided in the write's transaction.
    /// - Returns: the friendship as `requester` sees it afterwards.
    /// - Throws: ``UserDataError/friendLimit(username:limit:)``.
    func requestFriendship(from requester: String, to addressee: String, at: Date, friendLimit: Int?) async throws -> Friendship
    /// Accepts or declines (deletes) the request `requester` made of `addressee`; with a
    /// `friendLimit`, an acceptance only when neither has that many friends already.
    /// - Returns: false when there was no such unanswered request.
    /// - Throws: ``UserDataError/friendLimit(username:limit:)``.
    func answerFriendship(of addressee: String, from requester: String, accept: Bool, at: Date, friendLimit: Int?) async throws -> Bool
    /// Ends a friendship or withdraws a request, whichever way it was made.
    /// - Returns: false when there was none.
    func removeFriendship(between username: String, and other: String) async throws -> Bool
    /// Every friendship and request of `username`, by the other's username.
    func friendships(of username: String) async throws -> [Friendship]
    /// Whether the two have an accepted friendship.
    func areFriends(_ username: String, _ other: String) async throws -> Bool
}

/// When plans start: what reminders read.
public protocol PlanSchedule: Sendable {
    /// Plans of `kind` starting in `[from, to)`, earliest first (for reminders).
    func plans(of kind: PlanKind, startingFrom from: Date, to: Date, limit: Int) async throws -> [PlanRecord]
}

/// Itineraries and trips with their members, share links, availability and albums; and the
/// notifications of every user.
public protocol PlanStore: FriendStore, NotificationStore, PlanSchedule {
    func createPlan(_ plan: PlanRecord) async throws
    func plan(id: String) async throws -> PlanRecord?
    /// Replaces a plan (members too) when its stored revision is `expectedRevision`; the
    /// stored revision becomes `expectedRevision + 1`.
    /// - Throws: ``UserDataError/notFound(_:)``, ``UserDataError/conflict(_:)`` when someone
    ///   wrote it since it was read.
    func updatePlan(_ plan: PlanRecord, expectedRevision: Int) async throws
    /// Deletes a plan with its members, links, availability and album.
    /// - Returns: the ids of photos no longer used by anything; nil when there was no plan.
    func deletePlan(id: String) async throws -> [String]?
    /// Plans of `kind` that `username` owns or is a member of, in the window's order, after `after`.
    func plans(
        of kind: PlanKind, involving username: String, window: PlanWindow, after: PlanListPosition?,
        limit: Int
    ) async throws -> [PlanRecord]

    func createShare(_ link: ShareLink) async throws
    /// The plan's links, newest first, revoked ones included.
    func shares(of planID: String) async throws -> [ShareLink]
    /// The link whose token hashes to `tokenHash`.
    func share(tokenHash: String) async throws -> ShareLink?
    /// - Returns: false when the plan has no live link with this id.
    func revokeShare(id: String, of planID: String, at: Date) async throws -> Bool
    /// Counts one view. - Returns: the view count afterwards (1 for the first view).
    func recordShareView(id: String, at: Date) async throws -> Int

    /// Replaces `username`'s busy times for a plan.
    func setAvailability(of username: String, for planID: String, busy: [BusyInterval], at: Date) async throws
    /// Every member's busy times for a plan, by username (those who gave none are absent).
    func availability(for planID: String) async throws -> [String: [BusyInterval]]

    /// Adds a stored photo to a plan's album. - Returns: false when it is there already.
    func addAlbumPhoto(_ photo: AlbumPhoto, to planID: String) async throws -> Bool
    /// Removes a photo from an album. - Returns: the photo's id when nothing else uses it any
    /// more (its bytes may go), an empty array when it is still used, nil when it was not there.
    func removeAlbumPhoto(_ photoID: String, from planID: String) async throws -> [String]?
    /// The album, oldest first.
    func album(of planID: String) async throws -> [AlbumPhoto]
}

/// What people are told: kept per account, newest first, read or not.
public protocol NotificationStore: Sendable {
    /// Adds a notification. - Returns: false when the user already has one with its id.
    @discardableResult
    func addNotification(_ notification: UserNotification) async throws -> Bool
    /// Deletes every account's notifications made before `cutoff`, read or not (the service
    /// keeps a notification for a retention period). - Returns: how many.
    @discardableResult
    func deleteNotifications(createdBefore cutoff: Date) async throws -> Int
    /// Newest first, after the notification with id `after`.
    func notifications(of username: String, unreadOnly: Bool, after: String?, limit: Int) async throws -> [UserNotification]
    /// Marks the given notifications (every one when nil) read. - Returns: how many changed.
    func markNotificationsRead(of username: String, ids: [String]?, at: Date) async throws -> Int
}
