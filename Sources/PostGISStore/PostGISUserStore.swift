import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresNIO

/// What people make — accounts, sessions, hidden gems, ratings, favourites, photo records — in
/// the PostgreSQL database, beside the places: the scale-out twin of `SQLiteUserStore`, with the
/// same semantics (each call one transaction).
///
/// Sessions live in the database, so a token one `geoquery serve` process issued works on every
/// other process on the same database. The gems are a place table of their own (`gems`),
/// queried by ``PostGISPlaceIndex`` and listed per ``PlaceFilter/viewer``. Reads of the gems as
/// places may go to a replica; everything a user reads about their own account goes to the
/// primary, so they always see their own writes.
public final class PostGISUserStore: UserDataStore, Sendable {
    let database: PostGISDatabase
    /// The gems as places: queries on the replica (signed-in viewers' on the primary).
    let gemIndex: PostGISPlaceIndex
    /// The gems as places, always on the primary: a gem opened by id after an edit.
    let gemsOnPrimary: PostGISPlaceIndex

    /// The user store of an open (migrated) database; `readReplica` serves gem queries.
    public init(database: PostGISDatabase, readReplica: PostGISDatabase? = nil) {
        self.database = database
        gemIndex = PostGISPlaceIndex(primary: database, reader: readReplica, table: "gems")
        gemsOnPrimary = PostGISPlaceIndex(primary: database, table: "gems")
    }

    /// The user store of the database a place index was opened on (same pools).
    public convenience init(sharingPoolsOf index: PostGISPlaceIndex) {
        self.init(database: index.primary, readReplica: index.reader === index.primary ? nil : index.reader)
    }

    // MARK: - The gems as a place index

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await gemIndex.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
    }

    public func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await gemIndex.within(box, filter: filter, limit: limit, cursor: cursor)
    }

    public func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        try await gemIndex.nearest(center, count: count, maxDistance: maxDistance, filter: filter)
    }

    public func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await gemIndex.ranked(filter: filter, limit: limit, cursor: cursor)
    }

    /// The gem with this id, whoever may see it (callers check ``HiddenGem/isReachable(by:)``);
    /// read from the primary, so an owner sees their edit at once.
    public func place(_ id: PlaceID) async throws -> Place? { try await gemsOnPrimary.place(id) }
    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] { try await gemsOnPrimary.places(ids) }

    /// Writes gems as they are (no owner bookkeeping): use ``createGem(_:)``.
    @discardableResult
    public func upsert(_ places: [Place]) async throws -> Int { try await gemIndex.upsert(places) }

    @discardableResult
    public func delete(_ ids: [PlaceID]) async throws -> Int { try await gemIndex.delete(ids) }

    /// Gems everyone may list (public ones).
    public func count(source: String?) async throws -> Int {
        guard source == nil || source == "gem" else { return 0 }
        return try await database.scalarInt("SELECT count(*)::bigint FROM gems WHERE gem_visibility = 'public'") ?? 0
    }

    // MARK: - Accounts and sessions

    static let userColumns = "username, email, password_hash, profile, created_at"

    public func createUser(_ account: UserAccount) async throws {
        let profile = try Self.encode(account.profile)
        try await database.transaction { connection in
            if try await !connection.all("SELECT 1 FROM users WHERE username = \(account.username)").isEmpty {
                throw UserDataError.usernameTaken(account.username)
            }
            if try await !connection.all("SELECT 1 FROM users WHERE email = \(account.email)").isEmpty {
                throw UserDataError.emailTaken(account.email)
            }
            do {
                try await connection.all(
                    """
                    INSERT INTO users VALUES (\(account.username), \(account.email), \(account.passwordHash), \(profile),
                                              \(account.createdAt.timeIntervalSince1970))
                    """)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                // Another server signed the same name or email up between the checks and here.
                if error.serverInfo?[.constraintName] == "users_email_key" { throw UserDataError.emailTaken(account.email) }
                throw UserDataError.usernameTaken(account.username)
            }
        }
    }

    public func user(named username: String) async throws -> UserAccount? {
        try await users("SELECT \(unescaped: Self.userColumns) FROM users WHERE username = \(username)").first
    }

    public func user(login: String) async throws -> UserAccount? {
        let folded = login.lowercased()
        return try await users("SELECT \(unescaped: Self.userColumns) FROM users WHERE username = \(folded) OR email = \(folded)").first
    }

    public func users(withPrefix prefix: String, after: String?, limit: Int) async throws -> [UserAccount] {
        // Usernames are ASCII, so every name that begins with the prefix sorts below prefix + DEL.
        let start = max(prefix, after ?? prefix)
        // After a cursor inside the prefix's range, the cursor's own name is left out.
        let excluded = after.map { $0 >= prefix } == true ? start : ""
        let end = prefix + "\u{7F}"
        return try await users(
            """
            SELECT \(unescaped: Self.userColumns) FROM users WHERE username >= \(start) AND username < \(end)
            AND username <> \(excluded) ORDER BY username LIMIT \(limit)
            """)
    }

    public func updateUser(_ account: UserAccount, expected: UserAccount?) async throws {
        let profile = try Self.encode(account.profile)
        try await database.transaction { connection in
            if let expected {
                let rows = try await connection.all(
                    """
                    SELECT username, email, password_hash, profile, created_at FROM users WHERE username = \(account.username) FOR UPDATE
                    """)
                guard let row = rows.first else { throw UserDataError.notFound("the user '\(account.username)'") }
                let (username, email, hash, storedProfile, created) = try row.decode((String, String, String, String, Double).self)
                let stored = UserAccount(
                    username: username, email: email, passwordHash: hash, profile: Self.decode(storedProfile),
                    createdAt: Date(timeIntervalSince1970: created))
                guard stored == expected else { throw UserDataError.conflict("the account '\(account.username)'") }
            }
            if try await !connection.all("SELECT 1 FROM users WHERE email = \(account.email) AND username <> \(account.username)").isEmpty {
                throw UserDataError.emailTaken(account.email)
            }
            let updated = try await connection.all(
                """
                UPDATE users SET email = \(account.email), password_hash = \(account.passwordHash), profile = \(profile)
                WHERE username = \(account.username) RETURNING 1
                """)
            guard updated.count == 1 else { throw UserDataError.notFound("the user '\(account.username)'") }
            let avatarUse = "avatar:" + account.username
            try await connection.all("DELETE FROM photo_uses WHERE user_object = \(avatarUse)")
            if let avatar = account.profile.avatarPhoto {
                try await connection.all("INSERT INTO photo_uses VALUES (\(avatar), \(avatarUse)) ON CONFLICT DO NOTHING")
            }
        }
    }

    public func createSession(_ session: SessionRecord) async throws {
        try await database.execute(
            """
            WITH expired AS (DELETE FROM sessions WHERE username = \(session.username) AND expires_at <= \(session.createdAt.timeIntervalSince1970))
            INSERT INTO sessions (token_hash, username, created_at, expires_at, client)
            VALUES (\(session.tokenHash), \(session.username), \(session.createdAt.timeIntervalSince1970),
                    \(session.expiresAt.timeIntervalSince1970), \(session.client))
            """)
    }

    public func sessions(of username: String, openAt now: Date, limit: Int) async throws -> [SessionRecord] {
        let rows = try await database.rows(
            """
            SELECT token_hash, created_at, expires_at, client FROM sessions WHERE username = \(username) AND expires_at > \(now.timeIntervalSince1970)
            ORDER BY created_at DESC, token_hash COLLATE "C" LIMIT \(limit)
            """)
        return try rows.map { row in
            let (hash, created, expires, client) = try row.decode((String, Double, Double, String?).self)
            return SessionRecord(
                tokenHash: hash, username: username, createdAt: Date(timeIntervalSince1970: created),
                expiresAt: Date(timeIntervalSince1970: expires), client: client)
        }
    }

    public func session(tokenHash: String) async throws -> SessionRecord? {
        let rows = try await database.rows("SELECT username, created_at, expires_at FROM sessions WHERE token_hash = \(tokenHash)")
        guard let row = rows.first else { return nil }
        let (username, created, expires) = try row.decode((String, Double, Double).self)
        return SessionRecord(
            tokenHash: tokenHash, username: username, createdAt: Date(timeIntervalSince1970: created),
            expiresAt: Date(timeIntervalSince1970: expires))
    }

    public func sessionWithAccount(tokenHash: String) async throws -> (session: SessionRecord, account: UserAccount)? {
        try await sessionWithAccountAndFriends(tokenHash: tokenHash).map { ($0.session, $0.account) }
    }

    /// One prepared statement: the session joined to its account, with the accepted friends.
    public func sessionWithAccountAndFriends(
        tokenHash: String
    ) async throws
        -> (session: SessionRecord, account: UserAccount, friends: [String])?
    {
        guard
            let (username, email, hash, profile, created, sessionCreated, expires, friends) =
                try await database.rows(SessionAccountStatement(tokenHash: tokenHash)).first
        else { return nil }
        let account = UserAccount(
            username: username, email: email, passwordHash: hash, profile: Self.decode(profile),
            createdAt: Date(timeIntervalSince1970: created))
        return (
            SessionRecord(
                tokenHash: tokenHash, username: username, createdAt: Date(timeIntervalSince1970: sessionCreated),
                expiresAt: Date(timeIntervalSince1970: expires)), account, friends
        )
    }

    public func extendSession(tokenHash: String, until expiresAt: Date) async throws {
        try await database.execute(
            """
            UPDATE sessions SET expires_at = greatest(expires_at, \(expiresAt.timeIntervalSince1970)) WHERE token_hash = \(tokenHash)
            """)
    }

    public func deleteSession(tokenHash: String) async throws {
        try await database.execute("DELETE FROM sessions WHERE token_hash = \(tokenHash)")
    }

    @discardableResult
    public func deleteSessions(of username: String, keeping: String?) async throws -> Int {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM sessions WHERE username = \(username) AND token_hash <> \(keeping ?? "") RETURNING expires_at)
            SELECT count(*) FILTER (WHERE expires_at > \(Date().timeIntervalSince1970)) FROM gone
            """
        ).first?.decode(Int.self) ?? 0
    }

    public func deleteExpiredSessions(asOf now: Date) async throws -> Int {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM sessions WHERE expires_at <= \(now.timeIntervalSince1970) RETURNING 1) SELECT count(*) FROM gone
            """
        ).first?.decode(Int.self) ?? 0
    }

    public func deleteNotifications(createdBefore cutoff: Date) async throws -> Int {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM notifications WHERE created_at < \(cutoff.timeIntervalSince1970) RETURNING 1) SELECT count(*) FROM gone
            """
        ).first?.decode(Int.self) ?? 0
    }

    // MARK: - Favourites

    public func addFavorite(_ placeID: PlaceID, for username: String, at date: Date) async throws -> Bool {
        let rows = try await database.rows(
            """
            INSERT INTO favorites VALUES (\(username), \(placeID.rawValue), \(date.timeIntervalSince1970))
            ON CONFLICT DO NOTHING RETURNING 1
            """)
        return rows.count == 1
    }

    public func removeFavorite(_ placeID: PlaceID, for username: String) async throws -> Bool {
        let rows = try await database.rows("DELETE FROM favorites WHERE username = \(username) AND place_id = \(placeID.rawValue) RETURNING 1")
        return rows.count == 1
    }

    public func favorites(of username: String, after: PlaceID?, limit: Int) async throws -> [Favorite] {
        let rows: [PostgresRow]
        if let after {
            rows = try await database.rows(
                """
                SELECT f.place_id, f.created_at FROM favorites f, favorites a
                WHERE f.username = \(username) AND a.username = f.username AND a.place_id = \(after.rawValue)
                AND (f.created_at < a.created_at OR (f.created_at = a.created_at AND f.place_id > a.place_id))
                ORDER BY f.created_at DESC, f.place_id LIMIT \(limit)
                """)
        } else {
            rows = try await database.rows(
                """
                SELECT place_id, created_at FROM favorites WHERE username = \(username) ORDER BY created_at DESC, place_id LIMIT \(limit)
                """)
        }
        return try rows.compactMap { row in
            let (id, created) = try row.decode((String, Double).self)
            return (try? PlaceID(id)).map { Favorite(placeID: $0, createdAt: Date(timeIntervalSince1970: created)) }
        }
    }

    // MARK: - Photos

    public func savePhoto(_ photo: PhotoRecord, storageLimit: Int?) async throws {
        try await database.transaction { connection in
            // The owner's uploads take turns (on every server of the database), so two at once
            // cannot both slip under the limit.
            if storageLimit != nil {
                try await connection.all("SELECT pg_advisory_xact_lock(hashtext(\("photos\u{1}" + photo.owner)))")
            }
            // An upload nothing took up (stored, never attached) is this upload's to take over.
            try await connection.all(
                """
                DELETE FROM photos p WHERE p.id = \(photo.id) AND NOT EXISTS (SELECT 1 FROM photo_uses u WHERE u.photo_id = p.id)
                """)
            if let storageLimit, try await connection.all("SELECT 1 FROM photos WHERE id = \(photo.id)").isEmpty {
                let used =
                    try await connection.all("SELECT coalesce(sum(byte_count), 0)::bigint FROM photos WHERE owner = \(photo.owner)")
                    .first?.decode(Int.self) ?? 0
                guard used + photo.byteCount <= storageLimit else {
                    throw UserDataError.storageFull(owner: photo.owner, used: used, adding: photo.byteCount, limit: storageLimit)
                }
            }
            try await connection.all(
                """
                INSERT INTO photos (id, content_type, byte_count, owner, created_at, width, height)
                VALUES (\(photo.id), \(photo.contentType), \(photo.byteCount), \(photo.owner), \(photo.createdAt.timeIntervalSince1970),
                        \(photo.width), \(photo.height)) ON CONFLICT DO NOTHING
                """)
        }
    }

    public func photoUses(by username: String, among photoIDs: [String]?) async throws -> [PhotoUse] {
        let avatar = "avatar:" + username
        // Only the uses of the ids asked about (a page of photos) when given.
        let everyUse = photoIDs == nil
        let wanted = photoIDs ?? []
        let rows = try await database.rows(
            """
            SELECT photo_id, kind, object FROM (
              SELECT uses.photo_id AS photo_id, 'gem'::text AS kind, uses.user_object AS object
                FROM photo_uses AS uses JOIN gem_owners ON gem_owners.id = uses.user_object WHERE gem_owners.owner = \(username)
              UNION ALL SELECT photo_id, 'avatar', NULL FROM photo_uses WHERE user_object = \(avatar)
              UNION ALL SELECT photo_id, 'album', plan_id FROM album WHERE uploader = \(username)) AS shown
            WHERE \(everyUse) OR photo_id = ANY(\(wanted))
            """)
        return try rows.compactMap { row in
            let (photoID, kind, object) = try row.decode((String, String, String?).self)
            return PhotoUse.Kind(rawValue: kind).map { PhotoUse(photoID: photoID, kind: $0, objectID: object) }
        }
    }

    public func photoBytes(ownedBy owner: String) async throws -> Int {
        try await database.rows("SELECT coalesce(sum(byte_count), 0)::bigint FROM photos WHERE owner = \(owner)").first?.decode(Int.self) ?? 0
    }

    public func photo(id: String) async throws -> PhotoRecord? {
        try Self.photoRecords(
            await database.rows("SELECT id, content_type, byte_count, owner, created_at, width, height FROM photos WHERE id = \(id)")
        ).first
    }

    public func photos(ownedBy owner: String, after: (uploadedAt: Date, id: String)?, limit: Int) async throws -> [PhotoRecord] {
        let rows: [PostgresRow]
        if let after {
            let time = after.uploadedAt.timeIntervalSince1970
            rows = try await database.rows(
                """
                SELECT id, content_type, byte_count, owner, created_at, width, height FROM photos
                WHERE owner = \(owner) AND (created_at < \(time) OR (created_at = \(time) AND id COLLATE "C" > \(after.id)))
                ORDER BY created_at DESC, id COLLATE "C" LIMIT \(limit)
                """)
        } else {
            rows = try await database.rows(
                """
                SELECT id, content_type, byte_count, owner, created_at, width, height FROM photos WHERE owner = \(owner)
                ORDER BY created_at DESC, id COLLATE "C" LIMIT \(limit)
                """)
        }
        return try Self.photoRecords(rows)
    }

    static func photoRecords(_ rows: [PostgresRow]) throws -> [PhotoRecord] {
        try rows.map { row in
            let (photoID, type, bytes, owner, created, width, height) = try row.decode((String, String, Int, String, Double, Int?, Int?).self)
            return PhotoRecord(
                id: photoID, contentType: type, byteCount: bytes, owner: owner, createdAt: Date(timeIntervalSince1970: created), width: width,
                height: height)
        }
    }

    public func removeUnusedPhotos(_ ids: [String]) async throws -> [String] {
        try await database.transaction { connection in try await Self.removeUnused(ids, connection) }
    }

    public func removeUnusedPhotos(storedBefore cutoff: Date) async throws -> [String] {
        let rows = try await database.rows(
            """
            DELETE FROM photos p WHERE p.created_at < \(cutoff.timeIntervalSince1970)
            AND NOT EXISTS (SELECT 1 FROM photo_uses u WHERE u.photo_id = p.id) RETURNING p.id
            """)
        return try rows.map { try $0.decode(String.self) }.sorted()
    }

    // MARK: - Plumbing

    func users(_ query: PostgresQuery) async throws -> [UserAccount] {
        try await database.rows(query).map { row in
            let (username, email, hash, profile, created) = try row.decode((String, String, String, String, Double).self)
            return UserAccount(
                username: username, email: email, passwordHash: hash, profile: Self.decode(profile),
                createdAt: Date(timeIntervalSince1970: created))
        }
    }

    /// A stored profile (an empty one if it cannot be read).
    static func decode(_ profile: String) -> UserProfile {
        (try? JSONDecoder().decode(UserProfile.self, from: Data(profile.utf8))) ?? UserProfile()
    }

    static func encode(_ profile: UserProfile) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(profile), as: UTF8.self)
    }

    /// Removes the photos of `ids` nothing uses any more, and settles the owners of the rest
    /// (``settleOwners(of:_:)``). - Returns: the ids removed, sorted.
    static func removeUnused(_ ids: [String], _ connection: PostgresConnection) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let rows = try await connection.all(
            """
            DELETE FROM photos p WHERE p.id = ANY(\(Array(Set(ids))))
            AND NOT EXISTS (SELECT 1 FROM photo_uses u WHERE u.photo_id = p.id) RETURNING p.id
            """)
        let removed = try rows.map { try $0.decode(String.self) }.sorted()
        try await settleOwners(of: Array(Set(ids).subtracting(removed)), connection)
        return removed
    }

    /// Hands each used photo of `ids` whose owner no longer shows it to the first (in code point
    /// order) of those who do, or to no one ('') when no account does.
    static func settleOwners(of ids: [String], _ connection: PostgresConnection) async throws {
        guard !ids.isEmpty else { return }
        try await connection.all(
            """
            WITH showers AS (
                SELECT uses.photo_id, gem_owners.owner AS username FROM photo_uses AS uses
                  JOIN gem_owners ON gem_owners.id = uses.user_object WHERE uses.photo_id = ANY(\(ids))
                UNION SELECT photo_id, substr(user_object, 8) FROM photo_uses
                  WHERE photo_id = ANY(\(ids)) AND user_object LIKE 'avatar:%'
                UNION SELECT uses.photo_id, album.uploader FROM photo_uses AS uses
                  JOIN album ON album.plan_id = substr(uses.user_object, 6) AND album.photo_id = uses.photo_id
                  WHERE uses.photo_id = ANY(\(ids)) AND uses.user_object LIKE 'plan:%'
            )
            UPDATE photos p SET owner = coalesce((SELECT min(s.username COLLATE "C") FROM showers s
                                                  WHERE s.photo_id = p.id AND s.username <> ''), '')
            WHERE p.id = ANY(\(ids))
              AND NOT EXISTS (SELECT 1 FROM showers s WHERE s.photo_id = p.id AND s.username = p.owner AND s.username <> '')
              AND p.owner <> coalesce((SELECT min(s.username COLLATE "C") FROM showers s
                                       WHERE s.photo_id = p.id AND s.username <> ''), '')
            """)
    }
}
