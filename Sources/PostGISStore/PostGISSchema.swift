import Foundation
import Logging
import PlaceModel
import PlaceQuery
import PostgresNIO

/// The PostgreSQL schema, versioned like the SQLite files' (`geoquery_schema` holds how many
/// ``migrations`` have run). Two servers starting at once migrate one after the other: each
/// step (the first creates the extension and the version table) runs under a transaction-scoped
/// advisory lock and re-reads the version inside it.
enum PostGISSchema {
    /// The columns of a place table (`places`, and `gems` for hidden gems). Queries read the
    /// first five; filters test the typed columns; `record` holds the whole place.
    static func placeTable(_ name: String) -> String {
        """
        CREATE TABLE \(name) (
            id text COLLATE "C" PRIMARY KEY,
            source text NOT NULL,
            name text NOT NULL,
            latitude double precision NOT NULL,
            longitude double precision NOT NULL,
            geog geography(Point, 4326) NOT NULL,
            -- each category with its ancestors, so `food` finds `food.cafe` by overlap
            categories text[] NOT NULL,
            rating double precision,
            price smallint,
            country text,
            continent text,
            -- the name's words, lower case without diacritics, for word-prefix text search
            name_words text[] NOT NULL,
            gem_owner text,
            gem_visibility text,
            -- FNV-1a of the record without its import time: a snapshot rewrites only what changed
            content_hash bigint NOT NULL,
            record bytea NOT NULL
        );
        CREATE INDEX \(name)_geog ON \(name) USING gist (geog);
        CREATE INDEX \(name)_geom ON \(name) USING gist ((geog::geometry));
        CREATE INDEX \(name)_source ON \(name) (source, id);
        CREATE INDEX \(name)_categories ON \(name) USING gin (categories);
        """
    }

    /// Oldest first; never edit a step that has shipped, add one.
    static let migrations: [String] = [
        // 1: imported places and when each source was last imported.
        placeTable("places") + """

            CREATE TABLE imports (source text PRIMARY KEY, imported_at timestamptz NOT NULL);
            """,
        // 2: what people make (the SQLite file's user tables, with the gems a place table).
        placeTable("gems") + """

            CREATE TABLE users (username text COLLATE "C" PRIMARY KEY, email text NOT NULL UNIQUE, password_hash text NOT NULL,
                                profile text NOT NULL, created_at double precision NOT NULL);
            CREATE TABLE sessions (token_hash text PRIMARY KEY, username text NOT NULL REFERENCES users ON DELETE CASCADE,
                                   created_at double precision NOT NULL, expires_at double precision NOT NULL);
            CREATE INDEX sessions_by_user ON sessions (username);
            CREATE TABLE gem_owners (id text COLLATE "C" PRIMARY KEY, owner text NOT NULL, visibility text NOT NULL,
                                     created_at double precision NOT NULL);
            CREATE INDEX gem_owners_by_owner ON gem_owners (owner, created_at DESC, id);
            CREATE TABLE ratings (gem_id text NOT NULL, username text NOT NULL, stars integer NOT NULL,
                                  rated_at double precision NOT NULL, PRIMARY KEY (gem_id, username));
            CREATE INDEX ratings_by_user ON ratings (username);
            CREATE TABLE favorites (username text NOT NULL, place_id text COLLATE "C" NOT NULL,
                                    created_at double precision NOT NULL, PRIMARY KEY (username, place_id));
            CREATE INDEX favorites_by_time ON favorites (username, created_at DESC, place_id);
            CREATE TABLE photos (id text PRIMARY KEY, content_type text NOT NULL, byte_count bigint NOT NULL,
                                 owner text NOT NULL, created_at double precision NOT NULL);
            CREATE TABLE photo_uses (photo_id text NOT NULL, user_object text NOT NULL, PRIMARY KEY (photo_id, user_object));
            CREATE INDEX photo_uses_by_object ON photo_uses (user_object);
            """,
        // 3: friends; itineraries and trips (plans) with members, share links, availability and
        // albums; notifications (the SQLite file's migration 3).
        """
        CREATE TABLE friendships (requester text NOT NULL, addressee text NOT NULL, created_at double precision NOT NULL,
                                  accepted_at double precision, PRIMARY KEY (requester, addressee));
        CREATE INDEX friendships_by_addressee ON friendships (addressee);
        CREATE TABLE plans (id text COLLATE "C" PRIMARY KEY, kind text NOT NULL, owner text NOT NULL, visibility text NOT NULL,
                            starts_at double precision NOT NULL, ends_at double precision NOT NULL, revision bigint NOT NULL,
                            created_at double precision NOT NULL, updated_at double precision NOT NULL, document text NOT NULL);
        CREATE INDEX plans_by_owner ON plans (owner, kind, starts_at, id);
        CREATE INDEX plans_by_start ON plans (kind, starts_at);
        CREATE TABLE plan_members (plan_id text NOT NULL, username text NOT NULL, role text NOT NULL, answer text,
                                   PRIMARY KEY (plan_id, username));
        CREATE INDEX plan_members_by_user ON plan_members (username);
        CREATE TABLE shares (id text PRIMARY KEY, token_hash text NOT NULL UNIQUE, plan_id text NOT NULL,
                             created_at double precision NOT NULL, expires_at double precision, revoked_at double precision,
                             view_count bigint NOT NULL, last_viewed_at double precision);
        CREATE INDEX shares_by_plan ON shares (plan_id);
        CREATE TABLE availability (plan_id text NOT NULL, username text NOT NULL, busy text NOT NULL,
                                   updated_at double precision NOT NULL, PRIMARY KEY (plan_id, username));
        CREATE TABLE album (plan_id text NOT NULL, photo_id text NOT NULL, uploader text NOT NULL,
                            added_at double precision NOT NULL, PRIMARY KEY (plan_id, photo_id));
        CREATE INDEX album_by_uploader ON album (uploader);
        CREATE TABLE notifications (username text NOT NULL, id text COLLATE "C" NOT NULL, kind text NOT NULL, data text NOT NULL,
                                    created_at double precision NOT NULL, read_at double precision, PRIMARY KEY (username, id));
        CREATE INDEX notifications_by_time ON notifications (username, created_at DESC, id);
        """,
        // 4: popularity counters (the SQLite file's migration 4).
        """
        CREATE TABLE popularity (kind text NOT NULL, subject text COLLATE "C" NOT NULL, period integer NOT NULL,
                                 score_key double precision NOT NULL, last_at double precision NOT NULL, events bigint NOT NULL,
                                 PRIMARY KEY (kind, subject, period));
        CREATE INDEX popularity_by_key ON popularity (kind, period, score_key DESC, subject);
        """,
        // 5: the rank of each place (PlaceRank), filled from the records by fillRanks, and an
        // index per region column, so a ranked page of a country or continent walks its index
        // (the SQLite file's migration 3).
        """
        ALTER TABLE places ADD COLUMN rank_key bigint;
        ALTER TABLE gems ADD COLUMN rank_key bigint
        """,
        // 6: no `geography` index. Every engine search narrows through the 2-D index on
        // `geog::geometry` by the circle's covering box (``NearStatement``), which reads fewer
        // pages; the `geography` index was a third of a snapshot import's time. And the source
        // index on `source` alone: no query walks it in id order, and over a dump of one source
        // (every key alike but the id) it took six times as long to build.
        """
        DROP INDEX IF EXISTS places_geog;
        DROP INDEX IF EXISTS gems_geog;
        DROP INDEX IF EXISTS places_source;
        CREATE INDEX places_source ON places (source);
        DROP INDEX IF EXISTS gems_source;
        CREATE INDEX gems_source ON gems (source)
        """,
        // 7: the region rank indexes keyed first by the region code as an integer (its two
        // letters' bytes, ``regionKey(_:)``) rather than as text: the key's first column is fixed
        // width, so sorting a million rows, whose keys tie down to the id where places are
        // unrated, compares without walking each tuple's text first. Half the CPU of their
        // build, which an import pays for both on every rebuild. A ranked query names the key
        // and the code (``PostGISPlaceIndex/ranked(filter:limit:cursor:)``).
        ["places", "gems"].flatMap { table in
            ["country", "continent"].map { column in
                """
                DROP INDEX IF EXISTS \(table)_\(column)_rank;
                CREATE INDEX \(table)_\(column)_rank ON \(table) (\(regionKey(column)), rank_key, id) WHERE \(column) IS NOT NULL
                """
            }
        }.joined(separator: ";\n"),
        // 8: what signed in (its User-Agent), so a person can tell their sessions apart.
        "ALTER TABLE sessions ADD COLUMN IF NOT EXISTS client text",
        // 9: reports of gems, and moderators' decisions to hide one (the SQLite file's migration 6).
        """
        CREATE TABLE IF NOT EXISTS gem_reports (gem_id text COLLATE "C" NOT NULL, username text COLLATE "C" NOT NULL, reason text NOT NULL,
                                                note text, created_at double precision NOT NULL, PRIMARY KEY (gem_id, username));
        CREATE INDEX IF NOT EXISTS gem_reports_by_user ON gem_reports (username);
        CREATE TABLE IF NOT EXISTS gem_moderation (gem_id text COLLATE "C" PRIMARY KEY, hidden_at double precision NOT NULL,
                                                   moderator text NOT NULL, reason text NOT NULL)
        """,
        // 10: who blocked whom (the SQLite file's migration 7).
        """
        CREATE TABLE IF NOT EXISTS blocks (blocker text COLLATE "C" NOT NULL, blocked text COLLATE "C" NOT NULL,
                                           created_at double precision NOT NULL, PRIMARY KEY (blocker, blocked));
        CREATE INDEX IF NOT EXISTS blocks_by_blocked ON blocks (blocked)
        """,
        // 11: photos by uploader (an account's storage limit, its export) and sessions by
        // expiry (the sweep of expired ones) (the SQLite file's migration 8).
        """
        CREATE INDEX IF NOT EXISTS photos_by_owner ON photos (owner);
        CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at)
        """,
        // 12: notifications by age (the retention sweep) (the SQLite file's migration 9).
        """
        CREATE INDEX IF NOT EXISTS notifications_by_age ON notifications (created_at)
        """,
        // 13: attempts counted against rate limits and budgets of creations, shared by every
        // server on the database (the SQLite file's migration 10). Unlogged: a crash may forget
        // recent attempts and spending, and counting them costs no write-ahead log.
        """
        CREATE UNLOGGED TABLE IF NOT EXISTS attempts (scope text NOT NULL, key text COLLATE "C" NOT NULL, at double precision NOT NULL,
                                        kept_until double precision NOT NULL);
        CREATE INDEX IF NOT EXISTS attempts_by_key ON attempts (scope, key, at);
        CREATE INDEX IF NOT EXISTS attempts_by_expiry ON attempts (kept_until);
        CREATE UNLOGGED TABLE IF NOT EXISTS budgets (scope text NOT NULL, key text COLLATE "C" NOT NULL, units double precision NOT NULL,
                                                     updated_at double precision NOT NULL, full_at double precision NOT NULL,
                                                     PRIMARY KEY (scope, key));
        CREATE INDEX IF NOT EXISTS budgets_by_full ON budgets (full_at)
        """,
        // 14: webhook deliveries waiting for an attempt, kept past a restart and taken by one
        // server at a time (the SQLite file's migration 11).
        """
        CREATE TABLE IF NOT EXISTS webhook_deliveries (notification_id text PRIMARY KEY, username text NOT NULL, body text NOT NULL,
                                                       failed_attempts integer NOT NULL, due_at double precision NOT NULL);
        CREATE INDEX IF NOT EXISTS webhook_deliveries_by_due ON webhook_deliveries (due_at);
        CREATE INDEX IF NOT EXISTS webhook_deliveries_by_user ON webhook_deliveries (username)
        """,
        // 15: the last "surprise me" city each user was shown (the SQLite file's migration 12).
        // Unlogged: a crash may forget it, which costs at most one repeated city.
        """
        CREATE UNLOGGED TABLE IF NOT EXISTS random_city_memory (username text PRIMARY KEY, city_id text NOT NULL)
        """,
        // 16: gems made before the taxonomy was closed filed under it (the SQLite file's
        // migration 13; no SQL: see ``fileGemsUnderTheTaxonomy(_:logger:)``).
        "",
        // 17: idempotency keys per account and the answers kept for them (the SQLite file's
        // migration 14).
        """
        CREATE TABLE IF NOT EXISTS idempotency_keys (account text NOT NULL, key text NOT NULL, fingerprint text NOT NULL,
                                                     claimed_at double precision NOT NULL, kept_until double precision NOT NULL,
                                                     status integer, content_type text, location text, etag text, body text,
                                                     PRIMARY KEY (account, key));
        CREATE INDEX IF NOT EXISTS idempotency_keys_by_expiry ON idempotency_keys (kept_until)
        """,
        // 18: each photo's size in pixels (the SQLite file's migration 15).
        """
        ALTER TABLE photos ADD COLUMN IF NOT EXISTS width integer, ADD COLUMN IF NOT EXISTS height integer
        """,
        // 19: who follows whom (the SQLite file's migration 16).
        """
        CREATE TABLE IF NOT EXISTS follows (follower text COLLATE "C" NOT NULL, followee text COLLATE "C" NOT NULL,
                                            created_at double precision NOT NULL, PRIMARY KEY (follower, followee));
        CREATE INDEX IF NOT EXISTS follows_by_follower ON follows (follower, created_at DESC, followee);
        CREATE INDEX IF NOT EXISTS follows_by_followee ON follows (followee, created_at DESC, follower)
        """,
    ]

    /// The integer key of a region code (a country's ISO 3166 alpha-2 code or a continent's
    /// two letters) in the region rank indexes: its first byte shifted above its second. Two
    /// codes that shared a key would still be told apart, since a ranked query tests the code too.
    static func regionKey(_ expression: String) -> String {
        "((ascii(\(expression)) << 8) | ascii(substr(\(expression), 2)))"
    }

    /// What migration 5 does after its columns exist: every row's rank from its record, then
    /// the indexes (built once over the filled column rather than kept up row by row).
    static func fillRanks(_ connection: PostgresConnection, logger: Logger) async throws {
        for table in ["places", "gems"] {
            var after = ""
            while true {
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT id, name, latitude, longitude, record FROM \(table) WHERE id > $1 ORDER BY id LIMIT 10000
                            """,
                        binds: {
                            var binds = PostgresBindings()
                            binds.append(after)
                            return binds
                        }()), logger: logger
                ).collect()
                guard !rows.isEmpty else { break }
                var ids: [String] = [], keys: [Int64] = []
                for row in rows {
                    let (id, name, latitude, longitude, record) = try row.decode((String, String, Double, Double, ByteBuffer).self)
                    let place = record.withUnsafeReadableBytes {
                        PlaceRecord.place(record: $0, id: id, name: name, latitude: latitude, longitude: longitude)
                    }
                    ids.append(id)
                    keys.append(PlaceRank.key(of: place))
                }
                var binds = PostgresBindings()
                binds.append(ids)
                binds.append(keys)
                _ = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            UPDATE \(table) t SET rank_key = u.k FROM unnest($1::text[], $2::bigint[]) AS u(i, k) WHERE t.id = u.i
                            """, binds: binds), logger: logger
                ).collect()
                after = ids[ids.count - 1]
            }
            _ = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        ALTER TABLE \(table) ALTER COLUMN rank_key SET NOT NULL
                        """), logger: logger
            ).collect()
            for column in ["country", "continent"] {
                _ = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE INDEX \(table)_\(column)_rank ON \(table) (\(column), rank_key, id) WHERE \(column) IS NOT NULL
                            """), logger: logger
                ).collect()
            }
        }
    }

    /// What migration 16 does: each gem with a category outside the taxonomy (made before it
    /// was closed) is filed under the nearest category in it, the original kept in its
    /// `source_category` tag (``PlaceModel/Place/filedUnderTheTaxonomy()``). The gem's version
    /// stays: its owner changed nothing.
    static func fileGemsUnderTheTaxonomy(_ connection: PostgresConnection, logger: Logger) async throws {
        var binds = PostgresBindings()
        binds.append(Category.taxonomy.map(\.identifier))
        // `categories` holds each category with its ancestors: a row whose list is not inside
        // the taxonomy has a category outside it.
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT id, name, latitude, longitude, record FROM gems WHERE NOT (categories <@ $1::text[])
                    """, binds: binds), logger: logger
        ).collect()
        let filed = try rows.compactMap { try PostGISUserStore.place($0).filedUnderTheTaxonomy() }
        if !filed.isEmpty { _ = try await PostGISPlaceIndex.write(try PostGISBatch(filed), into: "gems", on: connection) }
    }

    /// An arbitrary constant naming GeoQuery's migration lock.
    static let migrationLock: Int64 = 0x6765_6f71_7565_7279

    /// Migrates the database to the newest version.
    /// - Throws: ``PostGISError/schemaTooNew(found:known:)`` when the database is newer.
    static func migrate(_ database: PostGISDatabase) async throws {
        while true {
            let done = try await database.transaction { connection -> Bool in
                // The pool's statement timeout is for requests: a migration may rewrite every row,
                // and waiting for the lock while another server migrates is no request either.
                _ = try await connection.query("SET LOCAL statement_timeout = 0", logger: database.logger).collect()
                // The lock comes first: `IF NOT EXISTS` is not safe against a concurrent create
                // (two servers racing would both pass the check and one fail on pg_type).
                _ = try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: database.logger).collect()
                _ = try await connection.query("CREATE EXTENSION IF NOT EXISTS postgis", logger: database.logger).collect()
                _ = try await connection.query(
                    "CREATE TABLE IF NOT EXISTS geoquery_schema (version integer NOT NULL)",
                    logger: database.logger
                ).collect()
                let rows = try await connection.query("SELECT max(version) FROM geoquery_schema", logger: database.logger).collect()
                let version = try rows.first?.decode(Int?.self) ?? 0
                if version > migrations.count { throw PostGISError.schemaTooNew(found: version, known: migrations.count) }
                if version == migrations.count { return true }
                for statement in migrations[version].components(separatedBy: ";\n") {
                    let text = statement.trimmingCharacters(in: .whitespacesAndNewlines)
                    if text.isEmpty { continue }
                    _ = try await connection.query(PostgresQuery(unsafeSQL: text), logger: database.logger).collect()
                }
                if version + 1 == 5 { try await fillRanks(connection, logger: database.logger) }
                if version + 1 == 16 { try await fileGemsUnderTheTaxonomy(connection, logger: database.logger) }
                _ = try await connection.query("DELETE FROM geoquery_schema", logger: database.logger).collect()
                _ = try await connection.query("INSERT INTO geoquery_schema VALUES (\(version + 1))", logger: database.logger).collect()
                return false
            }
            if done { return }
        }
    }
}
