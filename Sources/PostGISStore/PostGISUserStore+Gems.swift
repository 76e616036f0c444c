import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresNIO

// Gems, ratings and account deletion: each call one transaction on the primary. A gem's row is
// locked (`FOR UPDATE`) before its mean rating is worked out again, so two servers rating one
// gem at once store the mean of both ratings.
extension PostGISUserStore {
    public func createGem(_ gem: Place) async throws {
        try await createGems([gem])
    }

    /// Stores many new gems in one transaction (imports and benchmarks).
    public func createGems(_ gems: [Place]) async throws {
        for gem in gems where gem.gem == nil { throw UserDataError.notFound("the gem part of the place \(gem.id)") }
        guard !gems.isEmpty else { return }
        let batch = try PostGISBatch(gems)
        try await database.transaction { connection in
            _ = try await PostGISPlaceIndex.write(batch, into: "gems", on: connection)
            for gem in gems {
                let part = gem.gem!
                try await connection.all(
                    """
                    INSERT INTO gem_owners VALUES (\(gem.id.rawValue), \(part.owner), \(part.visibility.rawValue),
                                                   \((part.createdAt ?? Date()).timeIntervalSince1970))
                    """)
                try await Self.recordPhotoUses(of: gem, connection)
            }
        }
    }

    public func updateGem(_ gem: Place, expectedUpdatedAt: Date?) async throws {
        guard let part = gem.gem else { throw UserDataError.notFound("the gem part of the place \(gem.id)") }
        try await database.transaction { connection in
            guard let current = try await Self.lockedGem(gem.id, connection) else { throw UserDataError.notFound("the gem \(gem.id)") }
            var stored = gem
            stored.gem?.updatedAt = try GemVersions.next(gem, over: current, expected: expectedUpdatedAt)
            stored.rating = try await Self.meanRating(of: gem.id, connection)
            // A gem a moderator hid stays private, whatever the edit says (its row is locked,
            // so a hide cannot pass between this check and the write).
            if try await !connection.all("SELECT 1 FROM gem_moderation WHERE gem_id = \(gem.id.rawValue)").isEmpty {
                stored.gem?.visibility = .private
            }
            _ = try await PostGISPlaceIndex.write(try PostGISBatch([stored]), into: "gems", on: connection)
            try await connection.all("UPDATE gem_owners SET visibility = \((stored.gem ?? part).visibility.rawValue) WHERE id = \(gem.id.rawValue)")
            try await connection.all("DELETE FROM photo_uses WHERE user_object = \(gem.id.rawValue)")
            try await Self.recordPhotoUses(of: gem, connection)
        }
    }

    public func deleteGem(_ id: PlaceID) async throws -> [String] {
        try await database.transaction { connection in try await Self.deleteGems([id.rawValue], connection) }
    }

    public func gems(ownedBy owner: String, after: PlaceID?, limit: Int) async throws -> [Place] {
        let rows: [PostgresRow]
        let columns = "p.id, p.name, p.latitude, p.longitude, p.record"
        if let after {
            rows = try await database.rows(
                """
                SELECT \(unescaped: columns) FROM gem_owners g JOIN gems p ON p.id = g.id, gem_owners a
                WHERE g.owner = \(owner) AND a.id = \(after.rawValue)
                AND (g.created_at < a.created_at OR (g.created_at = a.created_at AND g.id > a.id))
                ORDER BY g.created_at DESC, g.id LIMIT \(limit)
                """)
        } else {
            rows = try await database.rows(
                """
                SELECT \(unescaped: columns) FROM gem_owners g JOIN gems p ON p.id = g.id
                WHERE g.owner = \(owner) ORDER BY g.created_at DESC, g.id LIMIT \(limit)
                """)
        }
        return try rows.map(Self.place)
    }

    public func rate(_ gem: PlaceID, by username: String, stars: Int?) async throws -> Rating? {
        try await database.transaction { connection in
            guard var place = try await Self.lockedGem(gem, connection) else { throw UserDataError.notFound("the gem \(gem)") }
            if let stars {
                try await connection.all(
                    """
                    INSERT INTO ratings VALUES (\(gem.rawValue), \(username), \(stars), \(Date().timeIntervalSince1970))
                    ON CONFLICT (gem_id, username) DO UPDATE SET stars = excluded.stars, rated_at = excluded.rated_at
                    """)
            } else {
                try await connection.all("DELETE FROM ratings WHERE gem_id = \(gem.rawValue) AND username = \(username)")
            }
            place.rating = try await Self.meanRating(of: gem, connection)
            _ = try await PostGISPlaceIndex.write(try PostGISBatch([place]), into: "gems", on: connection)
            return place.rating
        }
    }

    public func rating(of gem: PlaceID, by username: String) async throws -> Int? {
        try await database.scalarInt("SELECT stars::bigint FROM ratings WHERE gem_id = \(gem.rawValue) AND username = \(username)")
    }

    public func ratings(by username: String) async throws -> [GivenRating] {
        let rows = try await database.rows(
            """
            SELECT gem_id, stars::bigint, rated_at FROM ratings WHERE username = \(username) ORDER BY rated_at DESC, gem_id COLLATE "C"
            """)
        return try rows.compactMap { row in
            let (id, stars, ratedAt) = try row.decode((String, Int, Double).self)
            return (try? PlaceID(id)).map { GivenRating(gemID: $0, stars: stars, ratedAt: Date(timeIntervalSince1970: ratedAt)) }
        }
    }

    // MARK: - Deleting an account

    public func deleteUser(named username: String) async throws -> [String] {
        try await database.transaction { connection in
            let owned = try await connection.all("SELECT id FROM gem_owners WHERE owner = \(username)").map { try $0.decode(String.self) }
            var unused = try await Self.deleteGems(owned, connection)
            // The gems this user rated lose the rating, and their means are worked out again.
            let rated = try await connection.all("DELETE FROM ratings WHERE username = \(username) RETURNING gem_id")
                .map { try $0.decode(String.self) }
            for gem in rated {
                let id = PlaceID(trustedRawValue: gem)
                guard var place = try await Self.lockedGem(id, connection) else { continue }
                place.rating = try await Self.meanRating(of: id, connection)
                _ = try await PostGISPlaceIndex.write(try PostGISBatch([place]), into: "gems", on: connection)
            }
            let avatarUse = "avatar:" + username
            let avatars = try await connection.all("DELETE FROM photo_uses WHERE user_object = \(avatarUse) RETURNING photo_id")
                .map { try $0.decode(String.self) }
            unused += try await Self.removeUnused(avatars, connection)
            unused += try await Self.deletePlanData(of: username, connection)
            try await connection.all("DELETE FROM favorites WHERE username = \(username)")
            try await connection.all("DELETE FROM webhook_deliveries WHERE username = \(username)")
            try await connection.all("DELETE FROM random_city_memory WHERE username = \(username)")
            try await connection.all("DELETE FROM gem_reports WHERE username = \(username)")
            try await connection.all("DELETE FROM blocks WHERE blocker = \(username) OR blocked = \(username)")
            try await connection.all("DELETE FROM follows WHERE follower = \(username) OR followee = \(username)")
            try await connection.all("DELETE FROM sessions WHERE username = \(username)")
            // Photos that others still show stay, counted against one of them (see the SQLite store).
            let held = try await connection.all("SELECT id FROM photos WHERE owner = \(username)").map { try $0.decode(String.self) }
            try await Self.settleOwners(of: held, connection)
            try await connection.all("DELETE FROM users WHERE username = \(username)")
            return unused
        }
    }

    // MARK: - Inside a transaction

    static func deleteGems(_ ids: [String], _ connection: PostgresConnection) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let photos = try await connection.all("DELETE FROM photo_uses WHERE user_object = ANY(\(ids)) RETURNING photo_id")
            .map { try $0.decode(String.self) }
        try await connection.all("DELETE FROM ratings WHERE gem_id = ANY(\(ids))")
        try await connection.all("DELETE FROM gem_reports WHERE gem_id = ANY(\(ids))")
        try await connection.all("DELETE FROM gem_moderation WHERE gem_id = ANY(\(ids))")
        try await connection.all("DELETE FROM gem_owners WHERE id = ANY(\(ids))")
        try await connection.all("DELETE FROM gems WHERE id = ANY(\(ids))")
        return try await removeUnused(photos, connection)
    }

    static func recordPhotoUses(of gem: Place, _ connection: PostgresConnection) async throws {
        for photo in gem.photos {
            guard let reference = photo.reference, reference.hasPrefix("photo:") else { continue }
            let photoID = String(reference.dropFirst(6))
            try await connection.all("INSERT INTO photo_uses VALUES (\(photoID), \(gem.id.rawValue)) ON CONFLICT DO NOTHING")
        }
    }

    static func meanRating(of gem: PlaceID, _ connection: PostgresConnection) async throws -> Rating? {
        let rows = try await connection.all("SELECT avg(stars)::float8, count(*)::bigint FROM ratings WHERE gem_id = \(gem.rawValue)")
        guard let row = rows.first else { return nil }
        let (mean, count) = try row.decode((Double?, Int).self)
        guard let mean else { return nil }
        return try Rating(normalizedValue: mean, count: count, originalScale: 5)
    }

    /// The stored gem, its row locked until the transaction ends.
    static func lockedGem(_ id: PlaceID, _ connection: PostgresConnection) async throws -> Place? {
        let rows = try await connection.all("SELECT id, name, latitude, longitude, record FROM gems WHERE id = \(id.rawValue) FOR UPDATE")
        return try rows.first.map(place)
    }

    static func place(_ row: PostgresRow) throws -> Place {
        let (id, name, latitude, longitude, record) = try row.decode((String, String, Double, Double, ByteBuffer).self)
        return Hit(id: id, name: name, latitude: latitude, longitude: longitude, record: record, distance: 0).place
    }
}
