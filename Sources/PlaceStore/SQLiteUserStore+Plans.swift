import Foundation
import PlaceQuery

/// Friends, plans (itineraries and trips) with their members, links, availability and albums,
/// and notifications: each call one transaction on the writer, or one read.
extension SQLiteUserStore {
    // MARK: - Friends

    public func requestFriendship(from requester: String, to addressee: String, at date: Date, friendLimit: Int?) async throws -> Friendship {
        try await writing { connection in
            // A request the other way is accepted; an existing one either way is answered as it stands.
            if let reverse = try Self.friendshipRow(connection, requester: addressee, addressee: requester) {
                if reverse.accepted == nil {
                    try Self.checkFriendRoom(for: [requester, addressee], limit: friendLimit, connection)
                    try connection.run(
                        "UPDATE friendships SET accepted_at = ?3 WHERE requester = ?1 AND addressee = ?2",
                        [.text(addressee), .text(requester), .double(date.timeIntervalSince1970)])
                }
                return Friendship(username: addressee, state: .accepted, since: reverse.created)
            }
            if let existing = try Self.friendshipRow(connection, requester: requester, addressee: addressee) {
                return Friendship(username: addressee, state: existing.accepted == nil ? .requested : .accepted, since: existing.created)
            }
            try connection.run(
                "INSERT INTO friendships VALUES (?1, ?2, ?3, NULL)",
                [.text(requester), .text(addressee), .double(date.timeIntervalSince1970)])
            return Friendship(username: addressee, state: .requested, since: date)
        }
    }

    public func answerFriendship(
        of addressee: String, from requester: String, accept: Bool, at date: Date,
        friendLimit: Int?
    ) async throws -> Bool {
        try await writing { connection in
            if accept, let request = try Self.friendshipRow(connection, requester: requester, addressee: addressee), request.accepted == nil {
                try Self.checkFriendRoom(for: [addressee, requester], limit: friendLimit, connection)
            }
            let sql =
                accept
                ? "UPDATE friendships SET accepted_at = ?3 WHERE requester = ?1 AND addressee = ?2 AND accepted_at IS NULL"
                : "DELETE FROM friendships WHERE requester = ?1 AND addressee = ?2 AND accepted_at IS NULL AND ?3 IS NOT NULL"
            try connection.run(sql, [.text(requester), .text(addressee), .double(date.timeIntervalSince1970)])
            return connection.changes == 1
        }
    }

    /// Throws when one of `usernames` has `limit` accepted friendships already (the one writer:
    /// no acceptance can pass between the count and the write).
    static func checkFriendRoom(for usernames: [String], limit: Int?, _ connection: SQLiteConnection) throws {
        guard let limit else { return }
        for name in usernames {
            let count =
                try connection.scalarInt(
                    """
                    SELECT (SELECT count(*) FROM friendships WHERE requester = ?1 AND accepted_at IS NOT NULL)
                         + (SELECT count(*) FROM friendships WHERE addressee = ?1 AND accepted_at IS NOT NULL)
                    """, [.text(name)]) ?? 0
            if count >= limit { throw UserDataError.friendLimit(username: name, limit: limit) }
        }
    }

    public func removeFriendship(between username: String, and other: String) async throws -> Bool {
        try await writing { connection in
            try connection.run(
                """
                DELETE FROM friendships WHERE (requester = ?1 AND addressee = ?2) OR (requester = ?2 AND addressee = ?1)
                """, [.text(username), .text(other)])
            return connection.changes > 0
        }
    }

    public func friendships(of username: String) async throws -> [Friendship] {
        // Prepared once per read connection, as every frequent read is.
        try await readingCached(
            """
            SELECT addressee, created_at, accepted_at IS NOT NULL, 1 FROM friendships WHERE requester = ?1
            UNION ALL SELECT requester, created_at, accepted_at IS NOT NULL, 0 FROM friendships WHERE addressee = ?1
            ORDER BY 1
            """, [.text(username)]
        ) { row in
            var found: [Friendship] = []
            while try row.step() {
                let state: Friendship.State = row.int64(2) == 1 ? .accepted : row.int64(3) == 1 ? .requested : .incoming
                found.append(Friendship(username: row.text(0) ?? "", state: state, since: Date(timeIntervalSince1970: row.double(1))))
            }
            return found
        }
    }

    public func areFriends(_ username: String, _ other: String) async throws -> Bool {
        try await reading { connection in
            try connection.scalarInt(
                """
                SELECT 1 FROM friendships WHERE accepted_at IS NOT NULL
                AND ((requester = ?1 AND addressee = ?2) OR (requester = ?2 AND addressee = ?1))
                """, [.text(username), .text(other)]) != nil
        }
    }

    static func friendshipRow(
        _ connection: SQLiteConnection, requester: String, addressee: String
    ) throws
        -> (created: Date, accepted: Date?)?
    {
        var found: (Date, Date?)?
        try connection.each(
            "SELECT created_at, accepted_at FROM friendships WHERE requester = ?1 AND addressee = ?2",
            [.text(requester), .text(addressee)]
        ) { row in
            found = (Date(timeIntervalSince1970: row.double(0)), row.isNull(1) ? nil : Date(timeIntervalSince1970: row.double(1)))
        }
        return found
    }

    // MARK: - Plans

    static let planColumns = "id, kind, owner, visibility, starts_at, ends_at, revision, created_at, updated_at, document"

    public func createPlan(_ plan: PlanRecord) async throws {
        try await writing { connection in
            try connection.run("INSERT INTO plans VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", Self.planValues(plan))
            try Self.writeMembers(plan, connection)
        }
    }

    public func plan(id: String) async throws -> PlanRecord? {
        try await reading { connection in try Self.plans(connection, "WHERE id = ?1", [.text(id)]).first }
    }

    public func updatePlan(_ plan: PlanRecord, expectedRevision: Int) async throws {
        try await writing { connection in
            var values = Self.planValues(plan)
            values[6] = .int(Int64(expectedRevision + 1))
            try connection.run(
                """
                UPDATE plans SET visibility = ?4, starts_at = ?5, ends_at = ?6, revision = ?7, updated_at = ?9, document = ?10
                WHERE id = ?1 AND kind = ?2 AND owner = ?3 AND revision = ?11
                """, values + [.int(Int64(expectedRevision))])
            if connection.changes != 1 {
                if try connection.scalarInt("SELECT 1 FROM plans WHERE id = ?1", [.text(plan.id)]) == nil {
                    throw UserDataError.notFound("the \(plan.kind.rawValue) \(plan.id)")
                }
                throw UserDataError.conflict("the \(plan.kind.rawValue) \(plan.id)")
            }
            try connection.run("DELETE FROM plan_members WHERE plan_id = ?1", [.text(plan.id)])
            try Self.writeMembers(plan, connection)
        }
    }

    public func deletePlan(id: String) async throws -> [String]? {
        try await writing { connection in
            guard try connection.scalarInt("SELECT 1 FROM plans WHERE id = ?1", [.text(id)]) != nil else { return nil }
            return try Self.deletePlans([id], connection)
        }
    }

    public func plans(
        of kind: PlanKind, involving username: String, window: PlanWindow, after: PlanListPosition?,
        limit: Int
    ) async throws -> [PlanRecord] {
        var conditions = ["kind = ?1", "(owner = ?2 OR id IN (SELECT plan_id FROM plan_members WHERE username = ?2))"]
        var bindings: [SQLiteValue] = [.text(kind.rawValue), .text(username), .int(Int64(limit))]
        var descending = false
        switch window {
        case .all: break
        case .upcoming(let now):
            conditions.append("ends_at >= ?4")
            bindings.append(.double(now.timeIntervalSince1970))
        case .past(let now):
            conditions.append("ends_at < ?4")
            bindings.append(.double(now.timeIntervalSince1970))
            descending = true
        }
        if let after {
            if bindings.count == 3 { bindings.append(.null) }
            let comparison = descending ? "<" : ">"
            conditions.append("(starts_at \(comparison) ?5 OR (starts_at = ?5 AND id \(comparison) ?6))")
            bindings += [.double(after.startsAt.timeIntervalSince1970), .text(after.id)]
        }
        let order = descending ? "starts_at DESC, id DESC" : "starts_at, id"
        let condition = "WHERE " + conditions.joined(separator: " AND ") + " ORDER BY \(order) LIMIT ?3"
        let values = bindings
        return try await reading { connection in try Self.plans(connection, condition, values) }
    }

    public func plans(of kind: PlanKind, startingFrom from: Date, to: Date, limit: Int) async throws -> [PlanRecord] {
        try await reading { connection in
            try Self.plans(
                connection, "WHERE kind = ?1 AND starts_at >= ?2 AND starts_at < ?3 ORDER BY starts_at, id LIMIT ?4",
                [
                    .text(kind.rawValue), .double(from.timeIntervalSince1970), .double(to.timeIntervalSince1970),
                    .int(Int64(limit)),
                ])
        }
    }

    static func planValues(_ plan: PlanRecord) -> [SQLiteValue] {
        [
            .text(plan.id), .text(plan.kind.rawValue), .text(plan.owner), .text(plan.visibility.rawValue),
            .double(plan.startsAt.timeIntervalSince1970), .double(plan.endsAt.timeIntervalSince1970), .int(Int64(plan.revision)),
            .double(plan.createdAt.timeIntervalSince1970), .double(plan.updatedAt.timeIntervalSince1970),
            .text(String(decoding: plan.document, as: UTF8.self)),
        ]
    }

    static func writeMembers(_ plan: PlanRecord, _ connection: SQLiteConnection) throws {
        for member in plan.members {
            try connection.run(
                "INSERT INTO plan_members VALUES (?1, ?2, ?3, ?4)",
                [
                    .text(plan.id), .text(member.username), .text(member.role.rawValue),
                    member.answer.map { .text($0.rawValue) } ?? .null,
                ])
        }
    }

    static func plans(_ connection: SQLiteConnection, _ condition: String, _ bindings: [SQLiteValue]) throws -> [PlanRecord] {
        var found: [PlanRecord] = []
        try connection.each("SELECT \(planColumns) FROM plans \(condition)", bindings) { row in
            guard let kind = PlanKind(rawValue: row.text(1) ?? ""), let visibility = PlanVisibility(rawValue: row.text(3) ?? "") else { return }
            found.append(
                PlanRecord(
                    id: row.text(0) ?? "", kind: kind, owner: row.text(2) ?? "", visibility: visibility,
                    startsAt: Date(timeIntervalSince1970: row.double(4)), endsAt: Date(timeIntervalSince1970: row.double(5)),
                    revision: Int(row.int64(6)), createdAt: Date(timeIntervalSince1970: row.double(7)),
                    updatedAt: Date(timeIntervalSince1970: row.double(8)), document: Data((row.text(9) ?? "{}").utf8)))
        }
        guard !found.isEmpty else { return found }
        // One statement for the page's members, bound again per plan.
        let members = try connection.prepare("SELECT username, role, answer FROM plan_members WHERE plan_id = ?1 ORDER BY username")
        for index in found.indices {
            try members.bind([.text(found[index].id)])
            defer { members.reset() }
            while try members.step() {
                guard let role = PlanRole(rawValue: members.text(1) ?? "") else { continue }
                found[index].members.append(
                    PlanMember(
                        username: members.text(0) ?? "", role: role,
                        answer: members.text(2).flatMap(PlanAnswer.init(rawValue:))))
            }
        }
        return found
    }

    /// Deletes plans with everything hanging off them. - Returns: photos now unused.
    static func deletePlans(_ ids: [String], _ connection: SQLiteConnection) throws -> [String] {
        var photos: [String] = []
        for id in ids {
            try connection.each("SELECT photo_id FROM album WHERE plan_id = ?1", [.text(id)]) { photos.append($0.text(0) ?? "") }
            for table in ["plan_members", "shares", "availability", "album"] {
                try connection.run("DELETE FROM \(table) WHERE plan_id = ?1", [.text(id)])
            }
            try connection.run("DELETE FROM photo_uses WHERE user_object = ?1", [.text("plan:" + id)])
            try connection.run("DELETE FROM plans WHERE id = ?1", [.text(id)])
        }
        return try removeUnused(photos, connection)
    }

    /// Removes `username` from everything plan-related (inside ``deleteUser(named:)``).
    /// - Returns: photos now unused.
    static func deletePlanData(of username: String, _ connection: SQLiteConnection) throws -> [String] {
        var owned: [String] = []
        try connection.each("SELECT id FROM plans WHERE owner = ?1", [.text(username)]) { owned.append($0.text(0) ?? "") }
        var unused = try deletePlans(owned, connection)
        var uploaded: [(String, String)] = []
        try connection.each("SELECT plan_id, photo_id FROM album WHERE uploader = ?1", [.text(username)]) {
            uploaded.append(($0.text(0) ?? "", $0.text(1) ?? ""))
        }
        for (plan, photo) in uploaded {
            try connection.run("DELETE FROM album WHERE plan_id = ?1 AND photo_id = ?2", [.text(plan), .text(photo)])
            try connection.run("DELETE FROM photo_uses WHERE photo_id = ?1 AND user_object = ?2", [.text(photo), .text("plan:" + plan)])
        }
        unused += try removeUnused(uploaded.map(\.1), connection)
        for sql in [
            "DELETE FROM plan_members WHERE username = ?1", "DELETE FROM availability WHERE username = ?1",
            "DELETE FROM friendships WHERE requester = ?1 OR addressee = ?1", "DELETE FROM notifications WHERE username = ?1",
        ] {
            try connection.run(sql, [.text(username)])
        }
        return unused
    }

    // MARK: - Share links

    static let shareColumns = "id, token_hash, plan_id, created_at, expires_at, revoked_at, view_count, last_viewed_at"

    public func createShare(_ link: ShareLink) async throws {
        try await writing { connection in
            try connection.run(
                "INSERT INTO shares VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                [
                    .text(link.id), .text(link.tokenHash), .text(link.planID), .double(link.createdAt.timeIntervalSince1970),
                    link.expiresAt.map { .double($0.timeIntervalSince1970) } ?? .null,
                    link.revokedAt.map { .double($0.timeIntervalSince1970) } ?? .null, .int(Int64(link.viewCount)),
                    link.lastViewedAt.map { .double($0.timeIntervalSince1970) } ?? .null,
                ])
        }
    }

    public func shares(of planID: String) async throws -> [ShareLink] {
        try await reading { try Self.shares($0, "WHERE plan_id = ?1 ORDER BY created_at DESC, id", [.text(planID)]) }
    }

    public func share(tokenHash: String) async throws -> ShareLink? {
        try await reading { try Self.shares($0, "WHERE token_hash = ?1", [.text(tokenHash)]).first }
    }

    public func revokeShare(id: String, of planID: String, at date: Date) async throws -> Bool {
        try await writing { connection in
            try connection.run(
                "UPDATE shares SET revoked_at = ?3 WHERE id = ?1 AND plan_id = ?2 AND revoked_at IS NULL",
                [.text(id), .text(planID), .double(date.timeIntervalSince1970)])
            return connection.changes == 1
        }
    }

    public func recordShareView(id: String, at date: Date) async throws -> Int {
        try await writing { connection in
            try connection.run(
                "UPDATE shares SET view_count = view_count + 1, last_viewed_at = ?2 WHERE id = ?1",
                [.text(id), .double(date.timeIntervalSince1970)])
            return Int(try connection.scalarInt("SELECT view_count FROM shares WHERE id = ?1", [.text(id)]) ?? 0)
        }
    }

    static func shares(_ connection: SQLiteConnection, _ condition: String, _ bindings: [SQLiteValue]) throws -> [ShareLink] {
        var found: [ShareLink] = []
        func date(_ row: SQLiteStatement, _ column: Int32) -> Date? {
            row.isNull(column) ? nil : Date(timeIntervalSince1970: row.double(column))
        }
        try connection.each("SELECT \(shareColumns) FROM shares \(condition)", bindings) { row in
            found.append(
                ShareLink(
                    id: row.text(0) ?? "", tokenHash: row.text(1) ?? "", planID: row.text(2) ?? "",
                    createdAt: Date(timeIntervalSince1970: row.double(3)), expiresAt: date(row, 4),
                    revokedAt: date(row, 5), viewCount: Int(row.int64(6)), lastViewedAt: date(row, 7)))
        }
        return found
    }

    // MARK: - Availability and albums

    public func setAvailability(of username: String, for planID: String, busy: [BusyInterval], at date: Date) async throws {
        let encoded = BusyInterval.storedText(busy)
        try await writing { connection in
            try connection.run(
                "INSERT OR REPLACE INTO availability VALUES (?1, ?2, ?3, ?4)",
                [.text(planID), .text(username), .text(encoded), .double(date.timeIntervalSince1970)])
        }
    }

    public func availability(for planID: String) async throws -> [String: [BusyInterval]] {
        try await reading { connection in
            var found: [String: [BusyInterval]] = [:]
            try connection.each("SELECT username, busy FROM availability WHERE plan_id = ?1", [.text(planID)]) { row in
                found[row.text(0) ?? ""] = BusyInterval.list(storedText: row.text(1) ?? "[]") ?? []
            }
            return found
        }
    }

    public func addAlbumPhoto(_ photo: AlbumPhoto, to planID: String) async throws -> Bool {
        try await writing { connection in
            try connection.run(
                "INSERT OR IGNORE INTO album VALUES (?1, ?2, ?3, ?4)",
                [.text(planID), .text(photo.photoID), .text(photo.uploader), .double(photo.addedAt.timeIntervalSince1970)])
            guard connection.changes == 1 else { return false }
            try connection.run("INSERT OR IGNORE INTO photo_uses VALUES (?1, ?2)", [.text(photo.photoID), .text("plan:" + planID)])
            return true
        }
    }

    public func removeAlbumPhoto(_ photoID: String, from planID: String) async throws -> [String]? {
        try await writing { connection in
            try connection.run("DELETE FROM album WHERE plan_id = ?1 AND photo_id = ?2", [.text(planID), .text(photoID)])
            guard connection.changes == 1 else { return nil }
            try connection.run("DELETE FROM photo_uses WHERE photo_id = ?1 AND user_object = ?2", [.text(photoID), .text("plan:" + planID)])
            return try Self.removeUnused([photoID], connection)
        }
    }

    public func album(of planID: String) async throws -> [AlbumPhoto] {
        try await reading { connection in
            var found: [AlbumPhoto] = []
            try connection.each(
                """
                SELECT album.photo_id, album.uploader, album.added_at, photos.width, photos.height
                FROM album LEFT JOIN photos ON photos.id = album.photo_id WHERE album.plan_id = ?1 ORDER BY album.added_at, album.photo_id
                """,
                [.text(planID)]
            ) { row in
                found.append(
                    AlbumPhoto(
                        photoID: row.text(0) ?? "", uploader: row.text(1) ?? "",
                        addedAt: Date(timeIntervalSince1970: row.double(2)), width: row.isNull(3) ? nil : Int(row.int64(3)),
                        height: row.isNull(4) ? nil : Int(row.int64(4))))
            }
            return found
        }
    }

    // MARK: - Notifications

    @discardableResult
    public func addNotification(_ notification: UserNotification) async throws -> Bool {
        let data = String(decoding: try Self.sortedJSON(notification.data), as: UTF8.self)
        return try await writing { connection in
            try connection.run(
                "INSERT OR IGNORE INTO notifications VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                [
                    .text(notification.username), .text(notification.id), .text(notification.kind), .text(data),
                    .double(notification.createdAt.timeIntervalSince1970),
                    notification.readAt.map { .double($0.timeIntervalSince1970) } ?? .null,
                ])
            return connection.changes == 1
        }
    }

    public func notifications(of username: String, unreadOnly: Bool, after: String?, limit: Int) async throws -> [UserNotification] {
        try await reading { connection in
            var condition = "WHERE n.username = ?1" + (unreadOnly ? " AND n.read_at IS NULL" : "")
            var bindings: [SQLiteValue] = [.text(username), .int(Int64(limit))]
            if let after {
                condition += """
                     AND EXISTS (SELECT 1 FROM notifications a WHERE a.username = ?1 AND a.id = ?3
                    AND (n.created_at < a.created_at OR (n.created_at = a.created_at AND n.id > a.id)))
                    """
                bindings.append(.text(after))
            }
            var found: [UserNotification] = []
            try connection.each(
                """
                SELECT n.id, n.kind, n.data, n.created_at, n.read_at FROM notifications n \(condition)
                ORDER BY n.created_at DESC, n.id LIMIT ?2
                """, bindings
            ) { row in
                let data = (try? JSONDecoder().decode([String: String].self, from: Data((row.text(2) ?? "{}").utf8))) ?? [:]
                found.append(
                    UserNotification(
                        id: row.text(0) ?? "", username: username, kind: row.text(1) ?? "", data: data,
                        createdAt: Date(timeIntervalSince1970: row.double(3)),
                        readAt: row.isNull(4) ? nil : Date(timeIntervalSince1970: row.double(4))))
            }
            return found
        }
    }

    public func markNotificationsRead(of username: String, ids: [String]?, at date: Date) async throws -> Int {
        try await writing { connection in
            guard let ids else {
                try connection.run(
                    "UPDATE notifications SET read_at = ?2 WHERE username = ?1 AND read_at IS NULL",
                    [.text(username), .double(date.timeIntervalSince1970)])
                return connection.changes
            }
            var changed = 0
            for id in Set(ids) {
                try connection.run(
                    "UPDATE notifications SET read_at = ?2 WHERE username = ?1 AND id = ?3 AND read_at IS NULL",
                    [.text(username), .double(date.timeIntervalSince1970), .text(id)])
                changed += connection.changes
            }
            return changed
        }
    }

    static func sortedJSON(_ data: [String: String]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(data)
    }
}
