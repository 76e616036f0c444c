import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

// Gems, ratings, favourites, photos and account deletion: each call one transaction.
extension SQLiteUserStore {
    public func createGem(_ gem: Place) async throws {
        guard let part = gem.gem else { throw PlaceStoreError.invalidArgument("the place \(gem.id) is not a gem") }
        try await writingGems { connection, writer in
            try writer.upsert([gem])
            try connection.run(
                "INSERT INTO gems VALUES (?1, ?2, ?3, ?4)",
                [
                    .text(gem.id.rawValue), .text(part.owner), .text(part.visibility.rawValue),
                    .double((part.createdAt ?? Date()).timeIntervalSince1970),
                ])
            try Self.recordPhotoUses(of: gem, connection)
        }
    }

    /// Stores many new gems in one transaction (seeding a deployment, or a benchmark).
    public func createGems(_ gems: [Place]) async throws {
        for gem in gems where gem.gem == nil { throw PlaceStoreError.invalidArgument("the place \(gem.id) is not a gem") }
        try await writingGems { connection, writer in
            try writer.upsert(gems)
            let insert = try connection.prepare("INSERT INTO gems VALUES (?1, ?2, ?3, ?4)")
            for gem in gems {
                let part = gem.gem!
                try insert.bind([
                    .text(gem.id.rawValue), .text(part.owner), .text(part.visibility.rawValue),
                    .double((part.createdAt ?? Date()).timeIntervalSince1970),
                ])
                try insert.run()
            }
        }
    }

    public func updateGem(_ gem: Place, expectedUpdatedAt: Date?) async throws {
        guard let part = gem.gem else { throw PlaceStoreError.invalidArgument("the place \(gem.id) is not a gem") }
        try await writingGems { connection, writer in
            guard try connection.scalarInt("SELECT 1 FROM gems WHERE id = ?1", [.text(gem.id.rawValue)]) != nil,
                let current = try Self.storedPlace(gem.id, connection)
            else {
                throw UserDataError.notFound("the gem \(gem.id)")
            }
            var stored = gem
            stored.gem?.updatedAt = try GemVersions.next(gem, over: current, expected: expectedUpdatedAt)
            stored.rating = try Self.meanRating(of: gem.id, connection)
            // A gem a moderator hid stays private, whatever the edit says.
            if try connection.scalarInt("SELECT 1 FROM gem_moderation WHERE gem_id = ?1", [.text(gem.id.rawValue)]) != nil {
                stored.gem?.visibility = .private
            }
            try writer.upsert([stored])
            try connection.run(
                "UPDATE gems SET visibility = ?2 WHERE id = ?1",
                [.text(gem.id.rawValue), .text((stored.gem ?? part).visibility.rawValue)])
            try connection.run("DELETE FROM photo_uses WHERE user_object = ?1", [.text(gem.id.rawValue)])
            try Self.recordPhotoUses(of: gem, connection)
        }
    }

    public func deleteGem(_ id: PlaceID) async throws -> [String] {
        try await writingGems { connection, writer in
            try Self.deleteGems([id.rawValue], connection, writer)
        }
    }

    public func gems(ownedBy owner: String, after: PlaceID?, limit: Int) async throws -> [Place] {
        try await store.reading { index in
            var ids: [String] = []
            let sql =
                after == nil
                ? "SELECT id FROM gems WHERE owner = ?1 ORDER BY created_at DESC, id LIMIT ?2"
                : """
                SELECT g.id FROM gems g, gems a WHERE g.owner = ?1 AND a.id = ?3
                AND (g.created_at < a.created_at OR (g.created_at = a.created_at AND g.id > a.id))
                ORDER BY g.created_at DESC, g.id LIMIT ?2
                """
            var bindings: [SQLiteValue] = [.text(owner), .int(Int64(limit))]
            if let after { bindings.append(.text(after.rawValue)) }
            try index.connection.each(sql, bindings) { ids.append($0.text(0) ?? "") }
            return try ids.compactMap { try index.place(PlaceID($0)) }
        }
    }

    public func rate(_ gem: PlaceID, by username: String, stars: Int?) async throws -> Rating? {
        try await writingGems { connection, writer in
            guard var place = try Self.storedPlace(gem, connection) else { throw UserDataError.notFound("the gem \(gem)") }
            if let stars {
                try connection.run(
                    "INSERT OR REPLACE INTO ratings VALUES (?1, ?2, ?3, ?4)",
                    [.text(gem.rawValue), .text(username), .int(Int64(stars)), .double(Date().timeIntervalSince1970)])
            } else {
                try connection.run("DELETE FROM ratings WHERE gem_id = ?1 AND username = ?2", [.text(gem.rawValue), .text(username)])
            }
            place.rating = try Self.meanRating(of: gem, connection)
            try writer.upsert([place])
            return place.rating
        }
    }

    public func rating(of gem: PlaceID, by username: String) async throws -> Int? {
        try await reading { connection in
            try connection.scalarInt(
                "SELECT stars FROM ratings WHERE gem_id = ?1 AND username = ?2",
                [.text(gem.rawValue), .text(username)]
            ).map { Int($0) }
        }
    }

    public func ratings(by username: String) async throws -> [GivenRating] {
        try await reading { connection in
            var found: [GivenRating] = []
            try connection.each(
                "SELECT gem_id, stars, rated_at FROM ratings WHERE username = ?1 ORDER BY rated_at DESC, gem_id",
                [.text(username)]
            ) { row in
                if let id = try? PlaceID(row.text(0) ?? "") {
                    found.append(GivenRating(gemID: id, stars: Int(row.int64(1)), ratedAt: Date(timeIntervalSince1970: row.double(2))))
                }
            }
            return found
        }
    }

    // MARK: - Favourites

    public func addFavorite(_ placeID: PlaceID, for username: String, at date: Date) async throws -> Bool {
        try await writing { connection in
            try connection.run(
                "INSERT OR IGNORE INTO favorites VALUES (?1, ?2, ?3)",
                [.text(username), .text(placeID.rawValue), .double(date.timeIntervalSince1970)])
            return connection.changes == 1
        }
    }

    public func removeFavorite(_ placeID: PlaceID, for username: String) async throws -> Bool {
        try await writing { connection in
            try connection.run("DELETE FROM favorites WHERE username = ?1 AND place_id = ?2", [.text(username), .text(placeID.rawValue)])
            return connection.changes == 1
        }
    }

    public func favorites(of username: String, after: PlaceID?, limit: Int) async throws -> [Favorite] {
        try await reading { connection in
            var found: [Favorite] = []
            let sql =
                after == nil
                ? "SELECT place_id, created_at FROM favorites WHERE username = ?1 ORDER BY created_at DESC, place_id LIMIT ?2"
                : """
                SELECT f.place_id, f.created_at FROM favorites f, favorites a
                WHERE f.username = ?1 AND a.username = ?1 AND a.place_id = ?3
                AND (f.created_at < a.created_at OR (f.created_at = a.created_at AND f.place_id > a.place_id))
                ORDER BY f.created_at DESC, f.place_id LIMIT ?2
                """
            var bindings: [SQLiteValue] = [.text(username), .int(Int64(limit))]
            if let after { bindings.append(.text(after.rawValue)) }
            try connection.each(sql, bindings) { row in
                if let id = try? PlaceID(row.text(0) ?? "") {
                    found.append(Favorite(placeID: id, createdAt: Date(timeIntervalSince1970: row.double(1))))
                }
            }
            return found
        }
    }

    // MARK: - Photos

    public func savePhoto(_ photo: PhotoRecord, storageLimit: Int?) async throws {
        try await writing { connection in
            // An upload nothing took up (stored, never attached) is this upload's to take over.
            try connection.run(
                "DELETE FROM photos WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM photo_uses WHERE photo_id = ?1)",
                [.text(photo.id)])
            // One writer: the sum and the insert cannot interleave with another upload's.
            if let storageLimit, try connection.scalarInt("SELECT 1 FROM photos WHERE id = ?1", [.text(photo.id)]) == nil {
                let used = Int(
                    try connection.scalarInt(
                        "SELECT coalesce(sum(byte_count), 0) FROM photos WHERE owner = ?1",
                        [.text(photo.owner)]) ?? 0)
                guard used + photo.byteCount <= storageLimit else {
                    throw UserDataError.storageFull(owner: photo.owner, used: used, adding: photo.byteCount, limit: storageLimit)
                }
            }
            try connection.run(
                "INSERT OR IGNORE INTO photos (\(Self.photoColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                [
                    .text(photo.id), .text(photo.contentType), .int(Int64(photo.byteCount)), .text(photo.owner),
                    .double(photo.createdAt.timeIntervalSince1970), photo.width.map { .int(Int64($0)) } ?? .null,
                    photo.height.map { .int(Int64($0)) } ?? .null,
                ])
        }
    }

    public func photo(id: String) async throws -> PhotoRecord? {
        try await reading { connection in
            var found: PhotoRecord?
            try connection.each("SELECT \(Self.photoColumns) FROM photos WHERE id = ?1", [.text(id)]) { found = Self.photoRecord($0) }
            return found
        }
    }

    public func photos(ownedBy owner: String, after: (uploadedAt: Date, id: String)?, limit: Int) async throws -> [PhotoRecord] {
        try await reading { connection in
            var found: [PhotoRecord] = []
            var sql = "SELECT \(Self.photoColumns) FROM photos WHERE owner = ?1"
            var bindings: [SQLiteValue] = [.text(owner), .int(Int64(limit))]
            if let after {
                sql += " AND (created_at < ?3 OR (created_at = ?3 AND id > ?4))"
                bindings += [.double(after.uploadedAt.timeIntervalSince1970), .text(after.id)]
            }
            try connection.each(sql + " ORDER BY created_at DESC, id LIMIT ?2", bindings) { found.append(Self.photoRecord($0)) }
            return found
        }
    }

    static let photoColumns = "id, content_type, byte_count, owner, created_at, width, height"

    static func photoRecord(_ row: SQLiteStatement) -> PhotoRecord {
        PhotoRecord(
            id: row.text(0) ?? "", contentType: row.text(1) ?? "", byteCount: Int(row.int64(2)),
            owner: row.text(3) ?? "", createdAt: Date(timeIntervalSince1970: row.double(4)),
            width: row.isNull(5) ? nil : Int(row.int64(5)), height: row.isNull(6) ? nil : Int(row.int64(6)))
    }

    public func photoBytes(ownedBy owner: String) async throws -> Int {
        try await reading { connection in
            Int(try connection.scalarInt("SELECT coalesce(sum(byte_count), 0) FROM photos WHERE owner = ?1", [.text(owner)]) ?? 0)
        }
    }

    public func photoUses(by username: String, among photoIDs: [String]?) async throws -> [PhotoUse] {
        try await reading { connection in
            var uses: [PhotoUse] = []
            // The ids asked about (a page of photos) as a JSON array, so the statement reads
            // only their uses; NULL for every use.
            let wanted: SQLiteValue = try photoIDs.map { .text(String(decoding: try JSONEncoder().encode($0), as: UTF8.self)) } ?? .null
            try connection.each(
                """
                SELECT photo_id, kind, object FROM (
                  SELECT uses.photo_id AS photo_id, 'gem' AS kind, uses.user_object AS object
                    FROM photo_uses AS uses JOIN gems ON gems.id = uses.user_object WHERE gems.owner = ?1
                  UNION ALL SELECT photo_id, 'avatar', NULL FROM photo_uses WHERE user_object = 'avatar:' || ?1
                  UNION ALL SELECT photo_id, 'album', plan_id FROM album WHERE uploader = ?1)
                WHERE ?2 IS NULL OR photo_id IN (SELECT value FROM json_each(?2))
                """, [.text(username), wanted]
            ) { row in
                guard let kind = PhotoUse.Kind(rawValue: row.text(1) ?? "") else { return }
                uses.append(PhotoUse(photoID: row.text(0) ?? "", kind: kind, objectID: row.text(2)))
            }
            return uses
        }
    }

    public func removeUnusedPhotos(_ ids: [String]) async throws -> [String] {
        try await writing { try Self.removeUnused(ids, $0) }
    }

    public func removeUnusedPhotos(storedBefore cutoff: Date) async throws -> [String] {
        // Found on a reader (the scan never holds up writers), removed by id on the writer,
        // where the conditions are checked again.
        let candidates = try await reading { connection in
            var ids: [String] = []
            try connection.each(
                """
                SELECT id FROM photos WHERE created_at < ?1 AND NOT EXISTS (SELECT 1 FROM photo_uses WHERE photo_id = photos.id)
                """, [.double(cutoff.timeIntervalSince1970)]
            ) { ids.append($0.text(0) ?? "") }
            return ids
        }
        var removed: [String] = []
        for batch in stride(from: 0, to: candidates.count, by: 500).map({ Array(candidates[$0..<min($0 + 500, candidates.count)]) }) {
            removed += try await writing { connection in
                var gone: [String] = []
                for id in batch
                where try connection.scalarInt(
                    """
                    SELECT 1 FROM photos WHERE id = ?1 AND created_at < ?2 AND NOT EXISTS (SELECT 1 FROM photo_uses WHERE photo_id = ?1)
                    """, [.text(id), .double(cutoff.timeIntervalSince1970)]) != nil
                {
                    try connection.run("DELETE FROM photos WHERE id = ?1", [.text(id)])
                    gone.append(id)
                }
                return gone
            }
        }
        return removed.sorted()
    }

    // MARK: - Deleting an account

    public func deleteUser(named username: String) async throws -> [String] {
        try await writingGems { connection, writer in
            var owned: [String] = []
            try connection.each("SELECT id FROM gems WHERE owner = ?1", [.text(username)]) { owned.append($0.text(0) ?? "") }
            var unused = try Self.deleteGems(owned, connection, writer)
            // The gems this user rated lose the rating, and their means are worked out again.
            var rated: [String] = []
            try connection.each("SELECT gem_id FROM ratings WHERE username = ?1", [.text(username)]) { rated.append($0.text(0) ?? "") }
            try connection.run("DELETE FROM ratings WHERE username = ?1", [.text(username)])
            for gem in rated {
                let id = try PlaceID(gem)
                guard var place = try Self.storedPlace(id, connection) else { continue }
                place.rating = try Self.meanRating(of: id, connection)
                try writer.upsert([place])
            }
            var avatars: [String] = []
            try connection.each("SELECT photo_id FROM photo_uses WHERE user_object = ?1", [.text("avatar:" + username)]) {
                avatars.append($0.text(0) ?? "")
            }
            try connection.run("DELETE FROM photo_uses WHERE user_object = ?1", [.text("avatar:" + username)])
            unused += try Self.removeUnused(avatars, connection)
            unused += try Self.deletePlanData(of: username, connection)
            try connection.run("DELETE FROM favorites WHERE username = ?1", [.text(username)])
            try connection.run("DELETE FROM webhook_deliveries WHERE username = ?1", [.text(username)])
            try connection.run("DELETE FROM random_city_memory WHERE username = ?1", [.text(username)])
            try connection.run("DELETE FROM gem_reports WHERE username = ?1", [.text(username)])
            try connection.run("DELETE FROM blocks WHERE blocker = ?1 OR blocked = ?1", [.text(username)])
            try connection.run("DELETE FROM follows WHERE follower = ?1 OR followee = ?1", [.text(username)])
            try connection.run("DELETE FROM sessions WHERE username = ?1", [.text(username)])
            // Photos that others still show stay, counted against one of them from now on: a
            // later account of the same name neither pays for them nor finds them in its export.
            var held: [String] = []
            try connection.each("SELECT id FROM photos WHERE owner = ?1", [.text(username)]) { held.append($0.text(0) ?? "") }
            for id in held { try Self.settleOwner(of: id, connection) }
            try connection.run("DELETE FROM users WHERE username = ?1", [.text(username)])
            return unused
        }
    }

    // MARK: - Inside a transaction

    /// Deletes gems with their ratings and photo uses. - Returns: photos now unused.
    static func deleteGems(_ ids: [String], _ connection: SQLiteConnection, _ writer: PlaceWriter) throws -> [String] {
        guard !ids.isEmpty else { return [] }
        var photos: [String] = []
        for id in ids {
            try connection.each("SELECT photo_id FROM photo_uses WHERE user_object = ?1", [.text(id)]) { photos.append($0.text(0) ?? "") }
            try connection.run("DELETE FROM photo_uses WHERE user_object = ?1", [.text(id)])
            try connection.run("DELETE FROM ratings WHERE gem_id = ?1", [.text(id)])
            try connection.run("DELETE FROM gem_reports WHERE gem_id = ?1", [.text(id)])
            try connection.run("DELETE FROM gem_moderation WHERE gem_id = ?1", [.text(id)])
            try connection.run("DELETE FROM gems WHERE id = ?1", [.text(id)])
        }
        try writer.delete(try ids.map { try PlaceID($0) })
        return try removeUnused(photos, connection)
    }

    /// Removes the photos among `ids` that nothing uses. - Returns: their ids.
    static func removeUnused(_ ids: [String], _ connection: SQLiteConnection) throws -> [String] {
        var removed: [String] = []
        for id in Set(ids) {
            if try connection.scalarInt("SELECT 1 FROM photo_uses WHERE photo_id = ?1", [.text(id)]) == nil {
                try connection.run("DELETE FROM photos WHERE id = ?1", [.text(id)])
                removed.append(id)
            } else {
                try settleOwner(of: id, connection)
            }
        }
        return removed.sorted()
    }

    /// Hands a used photo whose owner no longer shows it to the first (in code point order) of
    /// those who do, or to no one ('') when no account does.
    static func settleOwner(of id: String, _ connection: SQLiteConnection) throws {
        guard let owner = try connection.scalarText("SELECT owner FROM photos WHERE id = ?1", [.text(id)]) else { return }
        var showers: [String] = []
        try connection.each(
            """
            SELECT gems.owner FROM photo_uses AS uses JOIN gems ON gems.id = uses.user_object WHERE uses.photo_id = ?1
            UNION SELECT substr(user_object, 8) FROM photo_uses WHERE photo_id = ?1 AND user_object LIKE 'avatar:%'
            UNION SELECT album.uploader FROM photo_uses AS uses
              JOIN album ON album.plan_id = substr(uses.user_object, 6) AND album.photo_id = uses.photo_id
              WHERE uses.photo_id = ?1 AND uses.user_object LIKE 'plan:%'
            """, [.text(id)]
        ) { showers.append($0.text(0) ?? "") }
        let accounts = showers.filter { !$0.isEmpty }
        guard !accounts.contains(owner) else { return }
        let heir = accounts.min { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) } ?? ""
        if heir != owner { try connection.run("UPDATE photos SET owner = ?2 WHERE id = ?1", [.text(id), .text(heir)]) }
    }

    /// Records which stored photos a gem shows (references of the form `photo:<id>`).
    static func recordPhotoUses(of gem: Place, _ connection: SQLiteConnection) throws {
        for photo in gem.photos {
            guard let reference = photo.reference, reference.hasPrefix("photo:") else { continue }
            try connection.run("INSERT OR IGNORE INTO photo_uses VALUES (?1, ?2)", [.text(String(reference.dropFirst(6))), .text(gem.id.rawValue)])
        }
    }

    static func meanRating(of gem: PlaceID, _ connection: SQLiteConnection) throws -> Rating? {
        let row = try connection.prepare("SELECT avg(stars), count(*) FROM ratings WHERE gem_id = ?1")
        try row.bind([.text(gem.rawValue)])
        guard try row.step(), !row.isNull(0) else { return nil }
        return try Rating(normalizedValue: row.double(0), count: Int(row.int64(1)), originalScale: 5)
    }

    /// The stored place with this id, read on the writer's connection inside its transaction.
    static func storedPlace(_ id: PlaceID, _ connection: SQLiteConnection) throws -> Place? {
        let row = try connection.prepare("SELECT \(Schema.selectColumns) FROM places p WHERE p.id = ?1")
        try row.bind([.text(id.rawValue)])
        return try row.step() ? PlaceRowCodec.decode(row) : nil
    }
}
