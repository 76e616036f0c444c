import Foundation
import GeoCore
import PlaceModel

/// A person's account. The username is its identity: lower case, unique, never renamed, and
/// what gems, favourites and ratings name as their owner.
public struct UserAccount: Sendable, Hashable {
    public var username: String
    /// Stored in lower case; unique.
    public var email: String
    /// The bcrypt hash (never the password).
    public var passwordHash: String
    public var profile: UserProfile
    public var createdAt: Date

    public init(username: String, email: String, passwordHash: String, profile: UserProfile = UserProfile(), createdAt: Date) {
        self.username = username
        self.email = email
        self.passwordHash = passwordHash
        self.profile = profile
        self.createdAt = createdAt
    }
}

/// What a person says about themselves, and how they like answers.
public struct UserProfile: Sendable, Hashable, Codable {
    public var displayName: String?
    public var bio: String?
    /// The id of the avatar photo (``PhotoRecord/id``).
    public var avatarPhoto: String?
    /// A BCP 47 language tag (`fr`, `pt-BR`).
    public var language: String?
    public var homeLocation: Coordinate?
    /// `metric` or `imperial`.
    public var units: String?
    /// Where notifications are also POSTed, signed (never shown on the public profile).
    public var webhookURL: String?
    /// Names the current webhook registration; its signing secret is derived from it.
    public var webhookID: String?
    /// Which notifications reach the person, over which channels, and their quiet hours (nil:
    /// every kind over every channel, at any hour).
    public var notifications: NotificationSettings?

    public init(
        displayName: String? = nil, bio: String? = nil, avatarPhoto: String? = nil, language: String? = nil,
        homeLocation: Coordinate? = nil, units: String? = nil
    ) {
        self.displayName = displayName
        self.bio = bio
        self.avatarPhoto = avatarPhoto
        self.language = language
        self.homeLocation = homeLocation
        self.units = units
    }
}

/// A signed-in session. Only the SHA-256 of its bearer token is kept.
public struct SessionRecord: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the token.
    public var tokenHash: String
    public var username: String
    public var createdAt: Date
    /// The session ends here unless it is used again before (sliding expiry).
    public var expiresAt: Date
    /// What signed in, as it said (its `User-Agent`, shortened): so a person can tell their
    /// sessions apart. Read only by ``AccountStore/sessions(of:)``.
    public var client: String?

    public init(tokenHash: String, username: String, createdAt: Date, expiresAt: Date, client: String? = nil) {
        self.tokenHash = tokenHash
        self.username = username
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.client = client
    }
}

/// A place a person keeps. Provider places are kept by id only (their terms forbid caching the
/// rest); the place is looked up again whenever the favourite is listed.
public struct Favorite: Sendable, Hashable {
    public var placeID: PlaceID
    public var createdAt: Date

    public init(placeID: PlaceID, createdAt: Date) {
        self.placeID = placeID
        self.createdAt = createdAt
    }
}

/// A stored photo: content-addressed (its id is the SHA-256 of its bytes), metadata removed.
public struct PhotoRecord: Sendable, Hashable {
    public var id: String
    /// `image/jpeg`, `image/png` or `image/webp`, from the bytes themselves.
    public var contentType: String
    public var byteCount: Int
    /// Whose storage it counts against: who uploaded it first while they show it, then one of
    /// those who show it; empty when only objects of no one (a deleted account's public gems) do.
    public var owner: String
    public var createdAt: Date
    /// Its size in pixels, as decoded on upload; nil for photos stored before sizes were kept.
    public var width: Int?
    public var height: Int?

    public init(id: String, contentType: String, byteCount: Int, owner: String, createdAt: Date, width: Int? = nil, height: Int? = nil) {
        self.id = id
        self.contentType = contentType
        self.byteCount = byteCount
        self.owner = owner
        self.createdAt = createdAt
        self.width = width
        self.height = height
    }
}

/// One place a person shows a photo.
public struct PhotoUse: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case gem, avatar, album
    }

    public var photoID: String
    public var kind: Kind
    /// The gem's id or the plan's; nil for the avatar.
    public var objectID: String?

    public init(photoID: String, kind: Kind, objectID: String?) {
        self.photoID = photoID
        self.kind = kind
        self.objectID = objectID
    }
}

/// Why a user-data store refused a write.
public enum UserDataError: ClassifiedError, Equatable, Sendable {
    case usernameTaken(String)
    case emailTaken(String)
    case notFound(String)
    /// Someone else changed the object since it was read: read it again and redo the change.
    case conflict(String)
    /// A new photo would take the photos `owner` holds past their storage limit (bytes).
    case storageFull(owner: String, used: Int, adding: Int, limit: Int)
    /// Accepting a friendship would give `username` more than `limit` friends.
    case friendLimit(username: String, limit: Int)

    public var description: String {
        switch self {
        case .conflict(let what): return "\(what) was changed by someone else since it was read: read it again and retry"
        case .usernameTaken(let name): return "the username '\(name)' is taken: choose another"
        case .emailTaken(let email): return "an account with the email '\(email)' exists: sign in instead"
        case .notFound(let what): return "\(what) does not exist"
        case let .storageFull(owner, used, adding, limit):
            return "\(owner)'s photos take \(ByteCountText.text(used)) of the \(ByteCountText.text(limit)) an account may store, "
                + "and this one needs \(ByteCountText.text(adding)): take photos off gems or trips, or delete them, to make room"
        case let .friendLimit(username, limit):
            return "\(username) has \(limit) \(limit == 1 ? "friend" : "friends"), the most an account may have: "
                + "a friendship of theirs must end before they make another"
        }
    }
}

/// Accounts and sessions. Implementations: SQLite under the data directory (`SQLiteUserStore`) and
/// PostgreSQL (`PostGISUserStore`).
public protocol AccountStore: Sendable {
    /// - Throws: ``UserDataError/usernameTaken(_:)`` or ``UserDataError/emailTaken(_:)``.
    func createUser(_ account: UserAccount) async throws
    func user(named username: String) async throws -> UserAccount?
    /// The account whose username or email is `login` (case-insensitive).
    func user(login: String) async throws -> UserAccount?
    /// Accounts whose username begins with `prefix`, in username order, after `after`.
    func users(withPrefix prefix: String, after: String?, limit: Int) async throws -> [UserAccount]
    /// Replaces the profile (and email and password hash) of an existing account; with
    /// `expected`, only while the stored account is still exactly that one (the version the
    /// change started from), decided in the write's transaction.
    /// - Throws: ``UserDataError/emailTaken(_:)``, ``UserDataError/notFound(_:)``,
    ///   ``UserDataError/conflict(_:)`` when the account changed since `expected` was read.
    func updateUser(_ account: UserAccount, expected: UserAccount?) async throws
    /// Deletes the account and everything it made: sessions, favourites, ratings (the rated
    /// gems' means are recomputed), gems of every visibility, its plans (itineraries and trips
    /// with their links), its places on others' plans, its friendships, notifications and album
    /// photos, and the photos nothing else uses.
    /// - Returns: the ids of the photos no longer used, for the caller to remove their bytes.
    func deleteUser(named username: String) async throws -> [String]

    /// Stores a new session, and deletes the user's sessions that have expired by its
    /// creation (so a user's sessions do not pile up).
    func createSession(_ session: SessionRecord) async throws
    func session(tokenHash: String) async throws -> SessionRecord?
    /// The session of a token hash with its account, read together: what every signed-in
    /// request asks first. Nil when either is missing.
    func sessionWithAccount(tokenHash: String) async throws -> (session: SessionRecord, account: UserAccount)?
    func extendSession(tokenHash: String, until expiresAt: Date) async throws
    func deleteSession(tokenHash: String) async throws
    /// Ends every session of the user but `keeping` (after a password change).
    /// - Returns: how many sessions ended.
    @discardableResult
    func deleteSessions(of username: String, keeping: String?) async throws -> Int
    /// The user's sessions still open at `now`, the newest first, at most `limit`.
    func sessions(of username: String, openAt now: Date, limit: Int) async throws -> [SessionRecord]
    /// Deletes every session of every user that expired by `now` (a sweep for accounts that
    /// never sign in again, whose old sessions a sign-in would otherwise clear).
    /// - Returns: how many sessions were deleted.
    @discardableResult
    func deleteExpiredSessions(asOf now: Date) async throws -> Int
}

extension AccountStore {
    /// ``session(tokenHash:)`` and then ``user(named:)``: two reads, for stores that have no
    /// cheaper way.
    public func sessionWithAccount(tokenHash: String) async throws -> (session: SessionRecord, account: UserAccount)? {
        guard let session = try await session(tokenHash: tokenHash), let account = try await user(named: session.username) else {
            return nil
        }
        return (session, account)
    }
}

/// Who a signed-in request is, read at once: the session of a token hash, its account, and the
/// account's accepted friends, whose friends-only gems the viewer's queries list.
public protocol ViewerStore: AccountStore, FriendStore {
    /// The session of `tokenHash` with its account and the usernames of the account's accepted
    /// friends, in one read where the store can. Nil when the session or the account is missing.
    func sessionWithAccountAndFriends(
        tokenHash: String
    ) async throws
        -> (session: SessionRecord, account: UserAccount, friends: [String])?
}

/// Hidden gems: places people made, with owners and visibility. The store is also a
/// ``PlaceIndex`` over the gems, which lists each gem by ``PlaceFilter/viewer``.
public protocol GemStore: PlaceIndex {
    /// Stores a new gem (its ``Place/gem`` set, its id `gem:…`).
    func createGem(_ gem: Place) async throws
    /// Replaces a gem; its rating is kept from the store's ratings, whatever `gem` says.
    ///
    /// With `expectedUpdatedAt`, only while the stored gem's ``HiddenGem/updatedAt`` is that
    /// instant (the version the edit started from), decided in the write's transaction; nil
    /// writes whatever is stored. The stored ``HiddenGem/updatedAt`` always moves forward
    /// (past the old one should `gem`'s not be later), so each write is a new version.
    /// - Throws: ``UserDataError/notFound(_:)``; ``UserDataError/conflict(_:)`` when the gem
    ///   changed since.
    func updateGem(_ gem: Place, expectedUpdatedAt: Date?) async throws
    /// Deletes a gem with its ratings and its favourites' links (favourites list it as gone).
    /// - Returns: the ids of photos no longer used by anything.
    func deleteGem(_ id: PlaceID) async throws -> [String]
    /// The gems `owner` made, every visibility, newest first, after the gem id `after`.
    func gems(ownedBy owner: String, after: PlaceID?, limit: Int) async throws -> [Place]
    /// Sets (`stars` 1–5) or removes (nil) one user's rating of a gem and updates the gem's
    /// mean in the same transaction. - Returns: the gem's rating afterwards (nil when unrated).
    func rate(_ gem: PlaceID, by username: String, stars: Int?) async throws -> Rating?
    /// The stars `username` gave the gem.
    func rating(of gem: PlaceID, by username: String) async throws -> Int?
    /// Every rating `username` gave, newest first (for an export of their data).
    func ratings(by username: String) async throws -> [GivenRating]
}

/// One user's rating of one gem.
public struct GivenRating: Sendable, Hashable {
    public var gemID: PlaceID
    /// 1–5.
    public var stars: Int
    public var ratedAt: Date

    public init(gemID: PlaceID, stars: Int, ratedAt: Date) {
        self.gemID = gemID
        self.stars = stars
        self.ratedAt = ratedAt
    }
}

/// Favourites: any place id, per user.
public protocol FavoriteStore: Sendable {
    /// - Returns: false when it was a favourite already.
    func addFavorite(_ placeID: PlaceID, for username: String, at: Date) async throws -> Bool
    /// - Returns: false when it was not a favourite.
    func removeFavorite(_ placeID: PlaceID, for username: String) async throws -> Bool
    /// Newest first; `after` is the last place id of the previous page.
    func favorites(of username: String, after: PlaceID?, limit: Int) async throws -> [Favorite]
}

/// Photo metadata and which objects use each photo; the bytes live beside the store.
public protocol PhotoStore: Sendable {
    /// Records a photo. A photo something uses already (whoever uploaded it) is left as it is
    /// and costs nothing; one stored but used by nothing (an upload that was never attached)
    /// is taken over: new owner, new time, and the limit applies as to a new photo.
    ///
    /// With a `storageLimit`, a new photo is recorded only when the bytes of the photos its
    /// owner holds stay within the limit, decided in the same transaction as the write
    /// (two uploads at once cannot both slip under it).
    /// - Throws: ``UserDataError/storageFull(owner:used:adding:limit:)``.
    func savePhoto(_ photo: PhotoRecord, storageLimit: Int?) async throws
    func photo(id: String) async throws -> PhotoRecord?
    /// The bytes of the photos `owner` holds (what counts against a storage limit).
    func photoBytes(ownedBy owner: String) async throws -> Int
    /// Where `username` shows photos: their gems, their avatar, and the plan albums they added
    /// photos to (never another person's objects); only the uses of `photoIDs` when given.
    func photoUses(by username: String, among photoIDs: [String]?) async throws -> [PhotoUse]
    /// A page of the photos `owner` holds, newest first (ties by id); `after` is the upload time
    /// and id of the last photo of the previous page (it need not exist any more).
    func photos(ownedBy owner: String, after: (uploadedAt: Date, id: String)?, limit: Int) async throws -> [PhotoRecord]
    /// Removes the photos of `ids` that nothing uses any more; of those still used, a photo
    /// whose owner no longer shows it passes to one who does (the first username in code
    /// point order), so a photo counts against the storage of someone who can remove it.
    /// - Returns: the ids removed, sorted.
    func removeUnusedPhotos(_ ids: [String]) async throws -> [String]
    /// Removes every photo that nothing uses and that was stored before `cutoff`: uploads whose
    /// attach never happened (the process stopped between the two). - Returns: the ids, sorted.
    func removeUnusedPhotos(storedBefore cutoff: Date) async throws -> [String]
}

extension AccountStore {
    /// Replaces an account whatever is stored (``updateUser(_:expected:)``).
    public func updateUser(_ account: UserAccount) async throws {
        try await updateUser(account, expected: nil)
    }
}

extension GemStore {
    /// Replaces a gem whatever version is stored (``updateGem(_:expectedUpdatedAt:)``).
    public func updateGem(_ gem: Place) async throws {
        try await updateGem(gem, expectedUpdatedAt: nil)
    }
}

extension PhotoStore {
    /// Every use `username` makes of photos.
    public func photoUses(by username: String) async throws -> [PhotoUse] {
        try await photoUses(by: username, among: nil)
    }

    /// Records a photo with no storage limit.
    public func savePhoto(_ photo: PhotoRecord) async throws {
        try await savePhoto(photo, storageLimit: nil)
    }
}

/// Sizes as people read them: `950 KB`, `12.5 MB`, `1 GB` (decimal units, as disks are sold).
public enum ByteCountText {
    public static func text(_ bytes: Int) -> String {
        let units: [(Double, String)] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB")]
        for (size, name) in units where Double(bytes) >= size {
            let value = Double(bytes) / size
            let rounded = (value * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded)) \(name)" : "\(rounded) \(name)"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }

    /// A size as people write it: `500MB`, `1GB`, `2.5 GB`, `750kb`, or bytes alone (`1000000`);
    /// decimal units. Nil for anything else, or a size that is negative or too large.
    public static func bytes(parsing text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("tb", 1e12), ("gb", 1e9), ("mb", 1e6), ("kb", 1e3), ("b", 1)]
        var number = Substring(trimmed)
        var scale = 1.0
        if let (suffix, size) = units.first(where: { trimmed.hasSuffix($0.0) }) {
            number = trimmed.dropLast(suffix.count)
            scale = size
        }
        let digits = number.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(digits), value.isFinite, value * scale < 9e18
        else { return nil }
        return Int((value * scale).rounded())
    }
}

/// Everything people make, in one store (one backend serves all of it).
public typealias UserDataStore = GemStore & ViewerStore & FavoriteStore & PhotoStore & PlanStore & PopularityStore & ModerationStore & BlockStore
    & FollowStore & IdempotencyStore
    & AttemptStore & WebhookDeliveryStore & RandomCityMemory

/// A gem's version is its ``HiddenGem/updatedAt``: how every store checks and moves it.
public enum GemVersions {
    /// The `updatedAt` a write of `gem` over the stored `current` keeps: `gem`'s own, or just
    /// past `current`'s when it is not later (a clock that went back), so a write is always a
    /// new version. - Throws: ``UserDataError/conflict(_:)`` when `expected` is given and
    /// `current` is at another version.
    public static func next(_ gem: Place, over current: Place, expected: Date?) throws -> Date? {
        let stored = current.gem?.updatedAt
        if let expected, stored != expected {
            throw UserDataError.conflict("the gem \(gem.id) changed since it was read")
        }
        guard let new = gem.gem?.updatedAt else { return stored }
        guard let stored, new <= stored else { return new }
        return stored.addingTimeInterval(0.000_001)
    }
}

extension UserDataError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        switch self {
        case .usernameTaken, .emailTaken, .conflict, .friendLimit: .conflict
        case .notFound: .notFound
        case .storageFull: .forbidden
        }
    }
}
