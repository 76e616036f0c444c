import Foundation
import PlaceQuery
import PostgresNIO

/// Friends, plans (itineraries and trips) with their members, links, availability and albums,
/// and notifications on PostgreSQL: `SQLiteUserStore`'s semantics, each call one statement or
/// one transaction on the primary (a user reads their own writes).
extension PostGISUserStore {
    // MARK: - Friends

    public func requestFriendship(from requester: String, to addressee: String, at date: Date, friendLimit: Int?) async throws -> Friendship {
        let time = date.timeIntervalSince1970
        return try await database.transaction { connection in
            // Both directions locked in one order, so two people asking each other at once
            // end as friends and neither request is lost.
            try await connection.all("SELECT pg_advisory_xact_lock(hashtext(\(min(requester, addressee) + "\u{1}" + max(requester, addressee))))")
            let pending = try await connection.all(
                """
                SELECT 1 FROM friendships WHERE requester = \(addressee) AND addressee = \(requester) AND accepted_at IS NULL
                """)
            if !pending.isEmpty { try await Self.checkFriendRoom(for: [requester, addressee], limit: friendLimit, connection) }
            let reverse = try await connection.all(
                """
                UPDATE friendships SET accepted_at = coalesce(accepted_at, \(time))
                WHERE requester = \(addressee) AND addressee = \(requester) RETURNING created_at
                """)
            if let row = reverse.first {
                return Friendship(username: addressee, state: .accepted, since: Date(timeIntervalSince1970: try row.decode(Double.self)))
            }
            try await connection.all("INSERT INTO friendships VALUES (\(requester), \(addressee), \(time), NULL) ON CONFLICT DO NOTHING")
            let row = try await connection.all(
                """
                SELECT created_at, accepted_at IS NOT NULL FROM friendships WHERE requester = \(requester) AND addressee = \(addressee)
                """)
            let (created, accepted) = try row[0].decode((Double, Bool).self)
            return Friendship(username: addressee, state: accepted ? .accepted : .requested, since: Date(timeIntervalSince1970: created))
        }
    }

    public func answerFriendship(
        of addressee: String, from requester: String, accept: Bool, at date: Date,
        friendLimit: Int?
    ) async throws -> Bool {
        let rows: [PostgresRow]
        if accept {
            rows = try await database.transaction { connection in
                let pending = try await connection.all(
                    """
                    SELECT 1 FROM friendships WHERE requester = \(requester) AND addressee = \(addressee) AND accepted_at IS NULL
                    """)
                if !pending.isEmpty { try await Self.checkFriendRoom(for: [addressee, requester], limit: friendLimit, connection) }
                return try await connection.all(
                    """
                    UPDATE friendships SET accepted_at = \(date.timeIntervalSince1970)
                    WHERE requester = \(requester) AND addressee = \(addressee) AND accepted_at IS NULL RETURNING 1
                    """)
            }
        } else {
            rows = try await database.rows(
                """
                DELETE FROM friendships WHERE requester = \(requester) AND addressee = \(addressee) AND accepted_at IS NULL RETURNING 1
                """)
        }
        return rows.count == 1
    }

    /// Throws when one of `usernames` has `limit` accepted friendships already. Each person's
    /// acceptances take turns under a lock of theirs (taken in one order, after any pair lock),
    /// so two at once cannot both pass the count, on every server of the database.
    static func checkFriendRoom(for usernames: [String], limit: Int?, _ connection: PostgresConnection) async throws {
        guard let limit else { return }
        for name in Set(usernames).sorted() {
            try await connection.all("SELECT pg_advisory_xact_lock(hashtext(\("friends\u{1}" + name)))")
        }
        for name in usernames {
            let count =
                try await connection.all(
                    """
                    SELECT (SELECT count(*) FROM friendships WHERE requester = \(name) AND accepted_at IS NOT NULL)
                         + (SELECT count(*) FROM friendships WHERE addressee = \(name) AND accepted_at IS NOT NULL)
                    """
                ).first?.decode(Int.self) ?? 0
            if count >= limit { throw UserDataError.friendLimit(username: name, limit: limit) }
        }
    }

    public func removeFriendship(between username: String, and other: String) async throws -> Bool {
        try await !database.rows(
            """
            DELETE FROM friendships WHERE (requester = \(username) AND addressee = \(other))
            OR (requester = \(other) AND addressee = \(username)) RETURNING 1
            """
        ).isEmpty
    }

    public func friendships(of username: String) async throws -> [Friendship] {
        try await database.rows(
            """
            SELECT * FROM (SELECT addressee AS other, created_at, accepted_at IS NOT NULL, true FROM friendships WHERE requester = \(username)
                           UNION ALL SELECT requester, created_at, accepted_at IS NOT NULL, false FROM friendships WHERE addressee = \(username)) f
            ORDER BY other COLLATE "C"
            """
        ).map { row in
            let (other, created, accepted, asked) = try row.decode((String, Double, Bool, Bool).self)
            return Friendship(
                username: other, state: accepted ? .accepted : asked ? .requested : .incoming,
                since: Date(timeIntervalSince1970: created))
        }
    }

    public func areFriends(_ username: String, _ other: String) async throws -> Bool {
        try await !database.rows(
            """
            SELECT 1 FROM friendships WHERE accepted_at IS NOT NULL
            AND ((requester = \(username) AND addressee = \(other)) OR (requester = \(other) AND addressee = \(username)))
            """
        ).isEmpty
    }

    // MARK: - Plans

    static let planColumns = "id, kind, owner, visibility, starts_at, ends_at, revision, created_at, updated_at, document"

    public func createPlan(_ plan: PlanRecord) async throws {
        let document = String(decoding: plan.document, as: UTF8.self)
        try await database.transaction { connection in
            try await connection.all(
                """
                INSERT INTO plans VALUES (\(plan.id), \(plan.kind.rawValue), \(plan.owner), \(plan.visibility.rawValue),
                \(plan.startsAt.timeIntervalSince1970), \(plan.endsAt.timeIntervalSince1970), \(plan.revision),
                \(plan.createdAt.timeIntervalSince1970), \(plan.updatedAt.timeIntervalSince1970), \(document))
                """)
            try await Self.writeMembers(plan, connection)
        }
    }

    public func plan(id: String) async throws -> PlanRecord? {
        try await database.withConnection { connection in
            try await Self.plans(connection, "SELECT \(unescaped: Self.planColumns) FROM plans WHERE id = \(id)").first
        }
    }

    public func updatePlan(_ plan: PlanRecord, expectedRevision: Int) async throws {
        let document = String(decoding: plan.document, as: UTF8.self)
        try await database.transaction { connection in
            let updated = try await connection.all(
                """
                UPDATE plans SET visibility = \(plan.visibility.rawValue), starts_at = \(plan.startsAt.timeIntervalSince1970),
                ends_at = \(plan.endsAt.timeIntervalSince1970), revision = \(expectedRevision + 1),
                updated_at = \(plan.updatedAt.timeIntervalSince1970), document = \(document)
                WHERE id = \(plan.id) AND kind = \(plan.kind.rawValue) AND owner = \(plan.owner) AND revision = \(expectedRevision)
                RETURNING 1
                """)
            if updated.isEmpty {
                if try await connection.all("SELECT 1 FROM plans WHERE id = \(plan.id)").isEmpty {
                    throw UserDataError.notFound("the \(plan.kind.rawValue) \(plan.id)")
                }
                throw UserDataError.conflict("the \(plan.kind.rawValue) \(plan.id)")
            }
            try await connection.all("DELETE FROM plan_members WHERE plan_id = \(plan.id)")
            try await Self.writeMembers(plan, connection)
        }
    }

    public func deletePlan(id: String) async throws -> [String]? {
        try await database.transaction { connection in
            guard try await !connection.all("SELECT 1 FROM plans WHERE id = \(id) FOR UPDATE").isEmpty else { return nil }
            return try await Self.deletePlans([id], connection)
        }
    }

    public func plans(
        of kind: PlanKind, involving username: String, window: PlanWindow, after: PlanListPosition?,
        limit: Int
    ) async throws -> [PlanRecord] {
        var endsFrom: Double?, endsBefore: Double?
        switch window {
        case .all: break
        case .upcoming(let now): endsFrom = now.timeIntervalSince1970
        case .past(let now): endsBefore = now.timeIntervalSince1970
        }
        let descending = endsBefore != nil
        // Constants only: the direction of the order and of the keyset comparison.
        let comparison = descending ? "<" : ">", order = descending ? "starts_at DESC, id DESC" : "starts_at, id"
        let afterStart = after?.startsAt.timeIntervalSince1970, afterID = after?.id ?? ""
        let query: PostgresQuery = """
            SELECT \(unescaped: Self.planColumns) FROM plans WHERE kind = \(kind.rawValue)
            AND (owner = \(username) OR id IN (SELECT plan_id FROM plan_members WHERE username = \(username)))
            AND (\(endsFrom)::float8 IS NULL OR ends_at >= \(endsFrom)::float8)
            AND (\(endsBefore)::float8 IS NULL OR ends_at < \(endsBefore)::float8)
            AND (\(afterStart)::float8 IS NULL OR (starts_at, id) \(unescaped: comparison) (\(afterStart)::float8, \(afterID)))
            ORDER BY \(unescaped: order) LIMIT \(limit)
            """
        return try await database.withConnection { connection in try await Self.plans(connection, query) }
    }

    public func plans(of kind: PlanKind, startingFrom from: Date, to: Date, limit: Int) async throws -> [PlanRecord] {
        try await database.withConnection { connection in
            try await Self.plans(
                connection,
                """
                SELECT \(unescaped: Self.planColumns) FROM plans WHERE kind = \(kind.rawValue)
                AND starts_at >= \(from.timeIntervalSince1970) AND starts_at < \(to.timeIntervalSince1970)
                ORDER BY starts_at, id LIMIT \(limit)
                """)
        }
    }

    static func writeMembers(_ plan: PlanRecord, _ connection: PostgresConnection) async throws {
        guard !plan.members.isEmpty else { return }
        try await connection.all(
            """
            INSERT INTO plan_members SELECT \(plan.id), username, role, nullif(answer, '')
            FROM unnest(\(plan.members.map(\.username)), \(plan.members.map(\.role.rawValue)),
                        \(plan.members.map { $0.answer?.rawValue ?? "" })) AS m(username, role, answer)
            """)
    }

    static func plans(_ connection: PostgresConnection, _ query: PostgresQuery) async throws -> [PlanRecord] {
        var found: [PlanRecord] = try await connection.all(query).compactMap { row in
            let (id, kind, owner, visibility, starts, ends, revision, created, updated, document) =
                try row.decode((String, String, String, String, Double, Double, Int, Double, Double, String).self)
            guard let kind = PlanKind(rawValue: kind), let visibility = PlanVisibility(rawValue: visibility) else { return nil }
            return PlanRecord(
                id: id, kind: kind, owner: owner, visibility: visibility,
                startsAt: Date(timeIntervalSince1970: starts), endsAt: Date(timeIntervalSince1970: ends),
                revision: revision, createdAt: Date(timeIntervalSince1970: created),
                updatedAt: Date(timeIntervalSince1970: updated), document: Data(document.utf8))
        }
        guard !found.isEmpty else { return found }
        var members: [String: [PlanMember]] = [:]
        for row in try await connection.all(
            """
            SELECT plan_id, username, role, answer FROM plan_members WHERE plan_id = ANY(\(found.map(\.id))) ORDER BY username COLLATE "C"
            """)
        {
            let (plan, username, role, answer) = try row.decode((String, String, String, String?).self)
            guard let role = PlanRole(rawValue: role) else { continue }
            members[plan, default: []].append(PlanMember(username: username, role: role, answer: answer.flatMap(PlanAnswer.init(rawValue:))))
        }
        for index in found.indices { found[index].members = members[found[index].id] ?? [] }
        return found
    }

    /// Deletes plans with everything hanging off them. - Returns: photos now unused.
    static func deletePlans(_ ids: [String], _ connection: PostgresConnection) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let photos = try await connection.all("DELETE FROM album WHERE plan_id = ANY(\(ids)) RETURNING photo_id")
            .map { try $0.decode(String.self) }
        try await connection.all("DELETE FROM plan_members WHERE plan_id = ANY(\(ids))")
        try await connection.all("DELETE FROM shares WHERE plan_id = ANY(\(ids))")
        try await connection.all("DELETE FROM availability WHERE plan_id = ANY(\(ids))")
        try await connection.all("DELETE FROM photo_uses WHERE user_object = ANY(\(ids.map { "plan:" + $0 }))")
        try await connection.all("DELETE FROM plans WHERE id = ANY(\(ids))")
        return try await removeUnused(photos, connection)
    }

    /// Removes `username` from everything plan-related (inside ``deleteUser(named:)``).
    /// - Returns: photos now unused.
    static func deletePlanData(of username: String, _ connection: PostgresConnection) async throws -> [String] {
        let owned = try await connection.all("SELECT id FROM plans WHERE owner = \(username)").map { try $0.decode(String.self) }
        var unused = try await deletePlans(owned, connection)
        let uploaded = try await connection.all("DELETE FROM album WHERE uploader = \(username) RETURNING plan_id, photo_id")
            .map { try $0.decode((String, String).self) }
        for (plan, photo) in uploaded {
            try await connection.all("DELETE FROM photo_uses WHERE photo_id = \(photo) AND user_object = \("plan:" + plan)")
        }
        unused += try await removeUnused(uploaded.map(\.1), connection)
        try await connection.all("DELETE FROM plan_members WHERE username = \(username)")
        try await connection.all("DELETE FROM availability WHERE username = \(username)")
        try await connection.all("DELETE FROM friendships WHERE requester = \(username) OR addressee = \(username)")
        try await connection.all("DELETE FROM notifications WHERE username = \(username)")
        return unused
    }

    // MARK: - Share links

    public func createShare(_ link: ShareLink) async throws {
        try await database.execute(
            """
            INSERT INTO shares VALUES (\(link.id), \(link.tokenHash), \(link.planID), \(link.createdAt.timeIntervalSince1970),
            \(link.expiresAt?.timeIntervalSince1970), \(link.revokedAt?.timeIntervalSince1970), \(link.viewCount),
            \(link.lastViewedAt?.timeIntervalSince1970))
            """)
    }

    public func shares(of planID: String) async throws -> [ShareLink] {
        try await shares(
            """
            SELECT id, token_hash, plan_id, created_at, expires_at, revoked_at, view_count, last_viewed_at FROM shares
            WHERE plan_id = \(planID) ORDER BY created_at DESC, id
            """)
    }

    public func share(tokenHash: String) async throws -> ShareLink? {
        try await shares(
            """
            SELECT id, token_hash, plan_id, created_at, expires_at, revoked_at, view_count, last_viewed_at FROM shares
            WHERE token_hash = \(tokenHash)
            """
        ).first
    }

    public func revokeShare(id: String, of planID: String, at date: Date) async throws -> Bool {
        try await database.rows(
            """
            UPDATE shares SET revoked_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND plan_id = \(planID) AND revoked_at IS NULL
            RETURNING 1
            """
        ).count == 1
    }

    public func recordShareView(id: String, at date: Date) async throws -> Int {
        try await database.scalarInt(
            """
            UPDATE shares SET view_count = view_count + 1, last_viewed_at = \(date.timeIntervalSince1970) WHERE id = \(id)
            RETURNING view_count
            """) ?? 0
    }

    func shares(_ query: PostgresQuery) async throws -> [ShareLink] {
        try await database.rows(query).map { row in
            let (id, hash, plan, created, expires, revoked, views, viewed) =
                try row.decode((String, String, String, Double, Double?, Double?, Int, Double?).self)
            return ShareLink(
                id: id, tokenHash: hash, planID: plan, createdAt: Date(timeIntervalSince1970: created),
                expiresAt: expires.map(Date.init(timeIntervalSince1970:)), revokedAt: revoked.map(Date.init(timeIntervalSince1970:)),
                viewCount: views, lastViewedAt: viewed.map(Date.init(timeIntervalSince1970:)))
        }
    }

    // MARK: - Availability and albums

    public func setAvailability(of username: String, for planID: String, busy: [BusyInterval], at date: Date) async throws {
        let encoded = BusyInterval.storedText(busy)
        try await database.execute(
            """
            INSERT INTO availability VALUES (\(planID), \(username), \(encoded), \(date.timeIntervalSince1970))
            ON CONFLICT (plan_id, username) DO UPDATE SET busy = excluded.busy, updated_at = excluded.updated_at
            """)
    }

    public func availability(for planID: String) async throws -> [String: [BusyInterval]] {
        var found: [String: [BusyInterval]] = [:]
        for row in try await database.rows("SELECT username, busy FROM availability WHERE plan_id = \(planID)") {
            let (username, busy) = try row.decode((String, String).self)
            found[username] = BusyInterval.list(storedText: busy) ?? []
        }
        return found
    }

    public func addAlbumPhoto(_ photo: AlbumPhoto, to planID: String) async throws -> Bool {
        try await database.transaction { connection in
            let added = try await connection.all(
                """
                INSERT INTO album VALUES (\(planID), \(photo.photoID), \(photo.uploader), \(photo.addedAt.timeIntervalSince1970))
                ON CONFLICT DO NOTHING RETURNING 1
                """)
            guard !added.isEmpty else { return false }
            try await connection.all("INSERT INTO photo_uses VALUES (\(photo.photoID), \("plan:" + planID)) ON CONFLICT DO NOTHING")
            return true
        }
    }

    public func removeAlbumPhoto(_ photoID: String, from planID: String) async throws -> [String]? {
        try await database.transaction { connection in
            let removed = try await connection.all("DELETE FROM album WHERE plan_id = \(planID) AND photo_id = \(photoID) RETURNING 1")
            guard !removed.isEmpty else { return nil }
            try await connection.all("DELETE FROM photo_uses WHERE photo_id = \(photoID) AND user_object = \("plan:" + planID)")
            return try await Self.removeUnused([photoID], connection)
        }
    }

    public func album(of planID: String) async throws -> [AlbumPhoto] {
        try await database.rows(
            """
            SELECT a.photo_id, a.uploader, a.added_at, p.width, p.height FROM album a LEFT JOIN photos p ON p.id = a.photo_id
            WHERE a.plan_id = \(planID) ORDER BY a.added_at, a.photo_id COLLATE "C"
            """
        ).map { row in
            let (photo, uploader, added, width, height) = try row.decode((String, String, Double, Int?, Int?).self)
            return AlbumPhoto(photoID: photo, uploader: uploader, addedAt: Date(timeIntervalSince1970: added), width: width, height: height)
        }
    }

    // MARK: - Notifications

    @discardableResult
    public func addNotification(_ notification: UserNotification) async throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = String(decoding: try encoder.encode(notification.data), as: UTF8.self)
        return try await database.rows(
            """
            INSERT INTO notifications VALUES (\(notification.username), \(notification.id), \(notification.kind), \(data),
            \(notification.createdAt.timeIntervalSince1970), \(notification.readAt?.timeIntervalSince1970))
            ON CONFLICT DO NOTHING RETURNING 1
            """
        ).count == 1
    }

    public func notifications(of username: String, unreadOnly: Bool, after: String?, limit: Int) async throws -> [UserNotification] {
        let rows = try await database.rows(
            """
            SELECT n.id, n.kind, n.data, n.created_at, n.read_at FROM notifications n
            WHERE n.username = \(username) AND (NOT \(unreadOnly) OR n.read_at IS NULL)
            AND (\(after)::text IS NULL OR EXISTS (SELECT 1 FROM notifications a WHERE a.username = n.username AND a.id = \(after)::text
                 AND (n.created_at < a.created_at OR (n.created_at = a.created_at AND n.id > a.id))))
            ORDER BY n.created_at DESC, n.id LIMIT \(limit)
            """)
        return try rows.map { row in
            let (id, kind, data, created, read) = try row.decode((String, String, String, Double, Double?).self)
            let values = (try? JSONDecoder().decode([String: String].self, from: Data(data.utf8))) ?? [:]
            return UserNotification(
                id: id, username: username, kind: kind, data: values, createdAt: Date(timeIntervalSince1970: created),
                readAt: read.map(Date.init(timeIntervalSince1970:)))
        }
    }

    public func markNotificationsRead(of username: String, ids: [String]?, at date: Date) async throws -> Int {
        let everything = ids == nil
        return try await database.rows(
            """
            UPDATE notifications SET read_at = \(date.timeIntervalSince1970)
            WHERE username = \(username) AND read_at IS NULL AND (\(everything) OR id = ANY(\(ids ?? [])))
            RETURNING 1
            """
        ).count
    }
}
