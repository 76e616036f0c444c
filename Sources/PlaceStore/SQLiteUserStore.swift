import CSpatiaLite
import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// What people make — accounts, sessions, hidden gems, ratings, favourites, photos, friends,
/// itineraries and trips, notifications — in one
/// SQLite file of its own (`users.sqlite` under the data directory), apart from the imported
/// places: a nightly import writes the places file and never waits for a gem write, nor a gem
/// write for an import.
///
/// The file is a place index (the gems, queried exactly as imported places are, each listed by
/// the query's ``PlaceFilter/viewer``) plus the user tables, so a rating and its gem's new mean
/// commit in one transaction. Threading is ``SpatiaLitePlaceStore``'s: every call runs on the
/// store's thread pool, reads on per-thread read-only connections, writes on one writer.
///
/// The user tables are versioned in `user_data_schema` and migrated on open (``migrations``).
public final class SQLiteUserStore: UserDataStore, Sendable {
    let store: SpatiaLitePlaceStore
    public var path: String { store.path }

    /// The user tables' migrations, oldest first; the schema version is how many have run.
    static let migrations: [String] = [
        // 1: accounts, sessions, gems, ratings, favourites.
        """
        CREATE TABLE users (username TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
                            profile TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE sessions (token_hash TEXT PRIMARY KEY, username TEXT NOT NULL, created_at REAL NOT NULL,
                               expires_at REAL NOT NULL);
        CREATE INDEX sessions_by_user ON sessions(username);
        CREATE TABLE gems (id TEXT PRIMARY KEY, owner TEXT NOT NULL, visibility TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE INDEX gems_by_owner ON gems(owner, created_at DESC, id);
        CREATE TABLE ratings (gem_id TEXT NOT NULL, username TEXT NOT NULL, stars INTEGER NOT NULL, rated_at REAL NOT NULL,
                              PRIMARY KEY (gem_id, username));
        CREATE INDEX ratings_by_user ON ratings(username);
        CREATE TABLE favorites (username TEXT NOT NULL, place_id TEXT NOT NULL, created_at REAL NOT NULL,
                                PRIMARY KEY (username, place_id));
        CREATE INDEX favorites_by_time ON favorites(username, created_at DESC, place_id);
        """,
        // 2: photos, and what uses each (a gem id, or `avatar:` and a username).
        """
        CREATE TABLE photos (id TEXT PRIMARY KEY, content_type TEXT NOT NULL, byte_count INTEGER NOT NULL,
                             owner TEXT NOT NULL, created_at REAL NOT NULL);
        CREATE TABLE photo_uses (photo_id TEXT NOT NULL, user_object TEXT NOT NULL, PRIMARY KEY (photo_id, user_object));
        CREATE INDEX photo_uses_by_object ON photo_uses(user_object);
        """,
        // 3: friends; itineraries and trips (plans) with members, share links, availability and
        // albums; notifications.
        """
        CREATE TABLE friendships (requester TEXT NOT NULL, addressee TEXT NOT NULL, created_at REAL NOT NULL, accepted_at REAL,
                                  PRIMARY KEY (requester, addressee));
        CREATE INDEX friendships_by_addressee ON friendships(addressee);
        CREATE TABLE plans (id TEXT PRIMARY KEY, kind TEXT NOT NULL, owner TEXT NOT NULL, visibility TEXT NOT NULL,
                            starts_at REAL NOT NULL, ends_at REAL NOT NULL, revision INTEGER NOT NULL,
                            created_at REAL NOT NULL, updated_at REAL NOT NULL, document TEXT NOT NULL);
        CREATE INDEX plans_by_owner ON plans(owner, kind, starts_at, id);
        CREATE INDEX plans_by_start ON plans(kind, starts_at);
        CREATE TABLE plan_members (plan_id TEXT NOT NULL, username TEXT NOT NULL, role TEXT NOT NULL, answer TEXT,
                                   PRIMARY KEY (plan_id, username));
        CREATE INDEX plan_members_by_user ON plan_members(username);
        CREATE TABLE shares (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, plan_id TEXT NOT NULL, created_at REAL NOT NULL,
                             expires_at REAL, revoked_at REAL, view_count INTEGER NOT NULL, last_viewed_at REAL);
        CREATE INDEX shares_by_plan ON shares(plan_id);
        CREATE TABLE availability (plan_id TEXT NOT NULL, username TEXT NOT NULL, busy TEXT NOT NULL, updated_at REAL NOT NULL,
                                   PRIMARY KEY (plan_id, username));
        CREATE TABLE album (plan_id TEXT NOT NULL, photo_id TEXT NOT NULL, uploader TEXT NOT NULL, added_at REAL NOT NULL,
                            PRIMARY KEY (plan_id, photo_id));
        CREATE INDEX album_by_uploader ON album(uploader);
        CREATE TABLE notifications (username TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
                                    created_at REAL NOT NULL, read_at REAL, PRIMARY KEY (username, id));
        CREATE INDEX notifications_by_time ON notifications(username, created_at DESC, id);
        """,
        // 4: popularity: per place or destination and period, the key of a time-decayed sum
        // (PopularityMath), ordered by an index so the most popular are read, not computed.
        """
        CREATE TABLE popularity (kind TEXT NOT NULL, subject TEXT NOT NULL, period INTEGER NOT NULL, score_key REAL NOT NULL,
                                 last_at REAL NOT NULL, events INTEGER NOT NULL, PRIMARY KEY (kind, subject, period));
        CREATE INDEX popularity_by_key ON popularity(kind, period, score_key DESC, subject);
        """,
        // 5: what signed in (its User-Agent), so a person can tell their sessions apart.
        "ALTER TABLE sessions ADD COLUMN client TEXT",
        // 6: reports of gems, and moderators' decisions to hide one.
        """
        CREATE TABLE gem_reports (gem_id TEXT NOT NULL, username TEXT NOT NULL, reason TEXT NOT NULL, note TEXT,
                                  created_at REAL NOT NULL, PRIMARY KEY (gem_id, username));
        CREATE INDEX gem_reports_by_user ON gem_reports(username);
        CREATE TABLE gem_moderation (gem_id TEXT PRIMARY KEY, hidden_at REAL NOT NULL, moderator TEXT NOT NULL, reason TEXT NOT NULL);
        """,
        // 7: who blocked whom.
        """
        CREATE TABLE blocks (blocker TEXT NOT NULL, blocked TEXT NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (blocker, blocked));
        CREATE INDEX blocks_by_blocked ON blocks(blocked);
        """,
        // 8: photos by uploader (what counts against an account's storage limit, and its
        // export), and sessions by expiry (the sweep of expired ones).
        """
        CREATE INDEX photos_by_owner ON photos(owner);
        CREATE INDEX sessions_by_expiry ON sessions(expires_at);
        """,
        // 9: notifications by age (the sweep of those past the retention period).
        """
        CREATE INDEX notifications_by_age ON notifications(created_at);
        """,
        // 10: attempts counted against rate limits (keys are hashes), kept past a restart.
        """
        CREATE TABLE attempts (scope TEXT NOT NULL, key TEXT NOT NULL, at REAL NOT NULL, kept_until REAL NOT NULL);
        CREATE INDEX attempts_by_key ON attempts(scope, key, at);
        CREATE INDEX attempts_by_expiry ON attempts(kept_until);
        CREATE TABLE budgets (scope TEXT NOT NULL, key TEXT NOT NULL, units REAL NOT NULL, updated_at REAL NOT NULL,
                              full_at REAL NOT NULL, PRIMARY KEY (scope, key));
        CREATE INDEX budgets_by_full ON budgets(full_at);
        """,
        // 11: webhook deliveries waiting for an attempt, kept past a restart.
        """
        CREATE TABLE webhook_deliveries (notification_id TEXT PRIMARY KEY, username TEXT NOT NULL, body TEXT NOT NULL,
                                         failed_attempts INTEGER NOT NULL, due_at REAL NOT NULL);
        CREATE INDEX webhook_deliveries_by_due ON webhook_deliveries(due_at);
        CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries(username);
        """,
        // 12: the last "surprise me" city each user was shown.
        """
        CREATE TABLE random_city_memory (username TEXT PRIMARY KEY, city_id TEXT NOT NULL);
        """,
        // 13: gems made before the taxonomy was closed filed under it (no SQL: see
        // ``fileGemsUnderTheTaxonomy(_:)``).
        "",
        // 14: idempotency keys per account and the answers kept for them (a day each).
        """
        CREATE TABLE idempotency_keys (account TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
                                       claimed_at REAL NOT NULL, kept_until REAL NOT NULL, status INTEGER,
                                       content_type TEXT, location TEXT, etag TEXT, body TEXT, PRIMARY KEY (account, key));
        CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys(kept_until);
        """,
        // 15: each photo's size in pixels (null for photos stored before).
        """
        ALTER TABLE photos ADD COLUMN width INTEGER;
        ALTER TABLE photos ADD COLUMN height INTEGER;
        """,
        // 16: who follows whom; each side's list newest first is an index's range.
        """
        CREATE TABLE follows (follower TEXT NOT NULL, followee TEXT NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (follower, followee));
        CREATE INDEX follows_by_follower ON follows(follower, created_at DESC, followee);
        CREATE INDEX follows_by_followee ON follows(followee, created_at DESC, follower);
        """,
    ]

    /// Opens the file at `path`, creating it and migrating the user tables to the current
    /// version (in one transaction per step) when needed.
    ///
    /// A new file is created readable and writable by its owner alone (mode 0600, whatever the
    /// process's umask), as are its log and shared-memory files, which SQLite makes with the
    /// file's mode: it holds emails and password hashes.
    public init(path: String, threads: Int? = nil) throws {
        // An empty file is an empty database. O_EXCL: a file made meanwhile is left as it is.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            fchmod(descriptor, 0o600)
            close(descriptor)
        }
        do {
            // Closed when it goes out of scope, before the store opens its own connections.
            let setup = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
            try Self.migrate(setup, upTo: Self.migrations.count)
        }
        store = try SpatiaLitePlaceStore(path: path, threads: threads)
    }

    /// Runs the migrations after the file's version, up to `target`.
    static func migrate(_ index: SpatiaLitePlaceIndex, upTo target: Int) throws {
        let connection = index.connection
        try connection.execute("CREATE TABLE IF NOT EXISTS user_data_schema (version INTEGER NOT NULL)")
        var version = Int(try connection.scalarInt("SELECT max(version) FROM user_data_schema") ?? 0)
        if version > migrations.count {
            throw PlaceStoreError.schemaTooNew(found: version, supported: migrations.count)
        }
        while version < target {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try connection.execute(migrations[version])
                version += 1
                if version == 13 { try fileGemsUnderTheTaxonomy(index) }
                try connection.execute("DELETE FROM user_data_schema; INSERT INTO user_data_schema VALUES (\(version))")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Migration 13: each gem with a category outside the taxonomy (made before it was closed,
    /// when any well-formed category was taken) is filed under the nearest category in it, the
    /// original kept in its `source_category` tag (``PlaceModel/Place/filedUnderTheTaxonomy()``),
    /// so that every category a gem has is one a filter can name. The gem's version
    /// (`updated_at`) stays: its owner changed nothing. Runs inside the migration's transaction.
    static func fileGemsUnderTheTaxonomy(_ index: SpatiaLitePlaceIndex) throws {
        let connection = index.connection
        var outside: [String] = []
        try connection.each("SELECT DISTINCT category FROM place_categories") { row in
            if let category = row.text(0), !Category.isInTaxonomy(category) { outside.append(category) }
        }
        guard !outside.isEmpty else { return }
        let list = String(decoding: try JSONEncoder().encode(outside), as: UTF8.self)
        var filed: [Place] = []
        try connection.each(
            """
            SELECT \(Schema.selectColumns) FROM places p
            WHERE p.pk IN (SELECT pk FROM place_categories WHERE category IN (SELECT value FROM json_each(?1)))
            """, [.text(list)]
        ) { row in
            if let place = PlaceRowCodec.decode(row).filedUnderTheTaxonomy() { filed.append(place) }
        }
        let writer = PlaceWriter(index: index)
        _ = try writer.upsert(filed)
        try writer.finish()
    }

    /// Stops the store's threads.
    public func shutdown() async throws { try await store.shutdown() }

    // MARK: - The gems as a place index

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await store.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
    }

    public func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await store.within(box, filter: filter, limit: limit, cursor: cursor)
    }

    public func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        try await store.nearest(center, count: count, maxDistance: maxDistance, filter: filter)
    }

    public func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        try await store.ranked(filter: filter, limit: limit, cursor: cursor)
    }

    /// The gem with this id, whoever may see it (callers check ``HiddenGem/isReachable(by:)``).
    public func place(_ id: PlaceID) async throws -> Place? { try await store.place(id) }
    public func places(_ ids: [PlaceID]) async throws -> [PlaceID: Place] { try await store.places(ids) }

    /// Writes gems as they are (no owner bookkeeping): use ``createGem(_:)``.
    @discardableResult
    public func upsert(_ places: [Place]) async throws -> Int { try await store.upsert(places) }

    @discardableResult
    public func delete(_ ids: [PlaceID]) async throws -> Int { try await store.delete(ids) }

    /// Gems everyone may list (public ones).
    public func count(source: String?) async throws -> Int {
        guard source == nil || source == "gem" else { return 0 }
        return try await reading { Int(try $0.scalarInt("SELECT count(*) FROM gems WHERE visibility = 'public'") ?? 0) }
    }

    // MARK: - Accounts and sessions

    public func createUser(_ account: UserAccount) async throws {
        try await writing { connection in
            if try connection.scalarInt("SELECT 1 FROM users WHERE username = ?1", [.text(account.username)]) != nil {
                throw UserDataError.usernameTaken(account.username)
            }
            if try connection.scalarInt("SELECT 1 FROM users WHERE email = ?1", [.text(account.email)]) != nil {
                throw UserDataError.emailTaken(account.email)
            }
            try connection.run(
                "INSERT INTO users VALUES (?1, ?2, ?3, ?4, ?5)",
                [
                    .text(account.username), .text(account.email), .text(account.passwordHash),
                    .text(try Self.encode(account.profile)), .double(account.createdAt.timeIntervalSince1970),
                ])
        }
    }

    /// Every signed-in request reads its account: one statement prepared once per connection.
    public func user(named username: String) async throws -> UserAccount? {
        try await readingCached("SELECT \(Self.userColumns) FROM users WHERE username = ?1", [.text(username)]) { row in
            try row.step() ? Self.account(row) : nil
        }
    }

    public func user(login: String) async throws -> UserAccount? {
        let folded = login.lowercased()
        return try await reading { try Self.users($0, "WHERE username = ?1 OR email = ?1", [.text(folded)]).first }
    }

    public func users(withPrefix prefix: String, after: String?, limit: Int) async throws -> [UserAccount] {
        // Usernames are ASCII, so every name that begins with the prefix sorts below prefix + DEL.
        let start = max(prefix, after ?? prefix)
        let comparison = after.map { $0 >= prefix } == true ? ">" : ">="
        return try await reading {
            try Self.users(
                $0, "WHERE username \(comparison) ?1 AND username < ?2 ORDER BY username LIMIT ?3",
                [.text(start), .text(prefix + "\u{7F}"), .int(Int64(limit))])
        }
    }

    public func updateUser(_ account: UserAccount, expected: UserAccount?) async throws {
        try await writing { connection in
            if let expected {
                let stored = try Self.users(connection, "WHERE username = ?1", [.text(account.username)]).first
                guard let stored else { throw UserDataError.notFound("the user '\(account.username)'") }
                guard stored == expected else { throw UserDataError.conflict("the account '\(account.username)'") }
            }
            if try connection.scalarInt(
                "SELECT 1 FROM users WHERE email = ?1 AND username <> ?2",
                [.text(account.email), .text(account.username)]) != nil
            {
                throw UserDataError.emailTaken(account.email)
            }
            try connection.run(
                "UPDATE users SET email = ?2, password_hash = ?3, profile = ?4 WHERE username = ?1",
                [
                    .text(account.username), .text(account.email), .text(account.passwordHash),
                    .text(try Self.encode(account.profile)),
                ])
            guard connection.changes == 1 else { throw UserDataError.notFound("the user '\(account.username)'") }
            try connection.run("DELETE FROM photo_uses WHERE user_object = ?1", [.text("avatar:" + account.username)])
            if let avatar = account.profile.avatarPhoto {
                try connection.run("INSERT OR IGNORE INTO photo_uses VALUES (?1, ?2)", [.text(avatar), .text("avatar:" + account.username)])
            }
        }
    }

    public func createSession(_ session: SessionRecord) async throws {
        try await writing { connection in
            try connection.run(
                "DELETE FROM sessions WHERE username = ?1 AND expires_at <= ?2",
                [.text(session.username), .double(session.createdAt.timeIntervalSince1970)])
            try connection.run(
                "INSERT INTO sessions (token_hash, username, created_at, expires_at, client) VALUES (?1, ?2, ?3, ?4, ?5)",
                [
                    .text(session.tokenHash), .text(session.username), .double(session.createdAt.timeIntervalSince1970),
                    .double(session.expiresAt.timeIntervalSince1970), session.client.map { .text($0) } ?? .null,
                ])
        }
    }

    public func sessions(of username: String, openAt now: Date, limit: Int) async throws -> [SessionRecord] {
        try await reading { connection in
            var found: [SessionRecord] = []
            try connection.each(
                """
                SELECT token_hash, created_at, expires_at, client FROM sessions WHERE username = ?1 AND expires_at > ?2
                ORDER BY created_at DESC, token_hash LIMIT ?3
                """, [.text(username), .double(now.timeIntervalSince1970), .int(Int64(limit))]
            ) { row in
                found.append(
                    SessionRecord(
                        tokenHash: row.text(0) ?? "", username: username, createdAt: Date(timeIntervalSince1970: row.double(1)),
                        expiresAt: Date(timeIntervalSince1970: row.double(2)), client: row.text(3)))
            }
            return found
        }
    }

    /// Every signed-in request reads its session: one statement prepared once per connection.
    public func session(tokenHash: String) async throws -> SessionRecord? {
        try await readingCached("SELECT username, created_at, expires_at FROM sessions WHERE token_hash = ?1", [.text(tokenHash)]) { row in
            guard try row.step(), let username = row.text(0) else { return nil }
            return SessionRecord(
                tokenHash: tokenHash, username: username, createdAt: Date(timeIntervalSince1970: row.double(1)),
                expiresAt: Date(timeIntervalSince1970: row.double(2)))
        }
    }

    /// One statement, prepared once per read connection: the session joined to its account.
    public func sessionWithAccount(tokenHash: String) async throws -> (session: SessionRecord, account: UserAccount)? {
        try await store.reading { index in try index.locked { try Self.sessionWithAccount(tokenHash: tokenHash, on: index) } }
    }

    /// The session with its account and then the account's accepted friends, two statements
    /// prepared once per read connection, in one trip to the store's threads (a trip costs
    /// more than either statement).
    public func sessionWithAccountAndFriends(
        tokenHash: String
    ) async throws
        -> (session: SessionRecord, account: UserAccount, friends: [String])?
    {
        try await store.reading { index in
            try index.locked {
                guard let (session, account) = try Self.sessionWithAccount(tokenHash: tokenHash, on: index) else { return nil }
                let friends = try Self.cached(
                    """
                    SELECT addressee FROM friendships WHERE requester = ?1 AND accepted_at IS NOT NULL
                    UNION ALL SELECT requester FROM friendships WHERE addressee = ?1 AND accepted_at IS NOT NULL
                    """, [.text(account.username)], on: index
                ) { row in
                    var found: [String] = []
                    while try row.step() { found.append(row.text(0) ?? "") }
                    return found
                }
                return (session, account, friends)
            }
        }
    }

    private static func sessionWithAccount(
        tokenHash: String, on index: SpatiaLitePlaceIndex
    ) throws
        -> (session: SessionRecord, account: UserAccount)?
    {
        try cached(
            """
            SELECT u.username, u.email, u.password_hash, u.profile, u.created_at, s.created_at, s.expires_at
            FROM sessions s JOIN users u ON u.username = s.username WHERE s.token_hash = ?1
            """, [.text(tokenHash)], on: index
        ) { row in
            guard try row.step() else { return nil }
            let account = Self.account(row)
            let session = SessionRecord(
                tokenHash: tokenHash, username: account.username, createdAt: Date(timeIntervalSince1970: row.double(5)),
                expiresAt: Date(timeIntervalSince1970: row.double(6)))
            return (session, account)
        }
    }

    public func extendSession(tokenHash: String, until expiresAt: Date) async throws {
        try await writing { connection in
            try connection.run(
                "UPDATE sessions SET expires_at = max(expires_at, ?2) WHERE token_hash = ?1",
                [.text(tokenHash), .double(expiresAt.timeIntervalSince1970)])
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await writing { try $0.run("DELETE FROM sessions WHERE token_hash = ?1", [.text(tokenHash)]) }
    }

    @discardableResult
    public func deleteSessions(of username: String, keeping: String?) async throws -> Int {
        try await writing { connection in
            let bindings: [SQLiteValue] = [.text(username), .text(keeping ?? ""), .double(Date().timeIntervalSince1970)]
            let open =
                try connection.scalarInt(
                    "SELECT count(*) FROM sessions WHERE username = ?1 AND token_hash <> ?2 AND expires_at > ?3",
                    bindings) ?? 0
            try connection.run("DELETE FROM sessions WHERE username = ?1 AND token_hash <> ?2", Array(bindings.prefix(2)))
            return Int(open)
        }
    }

    public func deleteExpiredSessions(asOf now: Date) async throws -> Int {
        try await writing { connection in
            try connection.run("DELETE FROM sessions WHERE expires_at <= ?1", [.double(now.timeIntervalSince1970)])
            return connection.changes
        }
    }

    public func deleteNotifications(createdBefore cutoff: Date) async throws -> Int {
        try await writing { connection in
            try connection.run("DELETE FROM notifications WHERE created_at < ?1", [.double(cutoff.timeIntervalSince1970)])
            return connection.changes
        }
    }

    // MARK: - Plumbing

    /// Runs `body` on a pool thread with a read-only connection.
    func reading<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await store.reading { try body($0.connection) }
    }

    /// Runs `body` in one write transaction on the writer connection.
    func writing<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await store.writing { index in try index.write { _ in try body(index.connection) } }
    }

    /// Runs `body` in one write transaction with the place writer, for gem rows.
    func writingGems<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection, PlaceWriter) throws -> T) async throws -> T {
        try await store.writing { index in try index.write { writer in try body(index.connection, writer) } }
    }

    /// Runs a statement cached on the pool thread's read connection; it is reset afterwards, so
    /// no read transaction stays open between calls.
    func readingCached<T: Sendable>(
        _ sql: String, _ bindings: [SQLiteValue],
        _ body: @escaping @Sendable (SQLiteStatement) throws -> T
    ) async throws -> T {
        try await store.reading { index in try index.locked { try Self.cached(sql, bindings, on: index, body) } }
    }

    /// Runs a statement cached on `index`'s connection (whose lock the caller holds) and resets it.
    static func cached<T>(
        _ sql: String, _ bindings: [SQLiteValue], on index: SpatiaLitePlaceIndex,
        _ body: (SQLiteStatement) throws -> T
    ) throws -> T {
        let statement = try index.statement(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        return try body(statement)
    }

    static let userColumns = "username, email, password_hash, profile, created_at"

    static func users(_ connection: SQLiteConnection, _ condition: String, _ bindings: [SQLiteValue]) throws -> [UserAccount] {
        var found: [UserAccount] = []
        try connection.each("SELECT \(userColumns) FROM users \(condition)", bindings) { found.append(account($0)) }
        return found
    }

    /// The account in the current row (columns as ``userColumns``).
    static func account(_ row: SQLiteStatement) -> UserAccount {
        let profile = (try? JSONDecoder().decode(UserProfile.self, from: Data((row.text(3) ?? "{}").utf8))) ?? UserProfile()
        return UserAccount(
            username: row.text(0) ?? "", email: row.text(1) ?? "", passwordHash: row.text(2) ?? "",
            profile: profile, createdAt: Date(timeIntervalSince1970: row.double(4)))
    }

    static func encode(_ profile: UserProfile) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(profile), as: UTF8.self)
    }
}

extension SQLiteConnection {
    /// Runs one statement with bindings, ignoring rows.
    func run(_ sql: String, _ bindings: [SQLiteValue]) throws {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        try statement.run()
    }

    /// Calls `body` for each row of a query.
    func each(_ sql: String, _ bindings: [SQLiteValue] = [], _ body: (SQLiteStatement) throws -> Void) throws {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        while try statement.step() { try body(statement) }
    }
}
