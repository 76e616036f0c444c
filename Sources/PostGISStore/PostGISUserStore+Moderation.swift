import Foundation
import PlaceModel
import PlaceQuery
import PostgresNIO

// Reports of gems and moderators' decisions, on the primary: each call one statement or one
// transaction.
extension PostGISUserStore {
    public func report(_ report: GemReport) async throws -> Bool {
        // xmax = 0 on the returned row: inserted, not updated.
        let rows = try await database.rows(
            """
            INSERT INTO gem_reports VALUES (\(report.gemID.rawValue), \(report.username), \(report.reason.rawValue), \(report.note),
                                            \(report.createdAt.timeIntervalSince1970))
            ON CONFLICT (gem_id, username) DO UPDATE SET reason = excluded.reason, note = excluded.note, created_at = excluded.created_at
            RETURNING (xmax = 0)
            """)
        return try rows.first?.decode(Bool.self) ?? false
    }

    public func reportedGems(after: ReportQueuePosition?, limit: Int) async throws -> [ReportedGem] {
        let first = after == nil, count = after?.reportCount ?? 0, id = after?.gemID.rawValue ?? ""
        let gems = try await database.rows(
            """
            SELECT gem_id FROM gem_reports GROUP BY gem_id
            HAVING \(first) OR count(*) < \(count) OR (count(*) = \(count) AND gem_id COLLATE "C" > \(id))
            ORDER BY count(*) DESC, gem_id COLLATE "C" LIMIT \(limit)
            """
        ).map { try $0.decode(String.self) }
        guard !gems.isEmpty else { return [] }
        let reports = try Self.reports(
            try await database.rows(
                """
                SELECT gem_id, username, reason, note, created_at FROM gem_reports WHERE gem_id = ANY(\(gems))
                ORDER BY created_at DESC, username COLLATE "C"
                """))
        return gems.compactMap { gem in
            (try? PlaceID(gem)).map { id in ReportedGem(gemID: id, reports: reports.filter { $0.gemID == id }) }
        }
    }

    public func reports(by username: String) async throws -> [GemReport] {
        try Self.reports(
            try await database.rows(
                """
                SELECT gem_id, username, reason, note, created_at FROM gem_reports WHERE username = \(username)
                ORDER BY created_at DESC, gem_id COLLATE "C"
                """))
    }

    public func dismissReports(of gem: PlaceID) async throws -> Int {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM gem_reports WHERE gem_id = \(gem.rawValue) RETURNING 1) SELECT count(*) FROM gone
            """
        ).first?.decode(Int.self) ?? 0
    }

    public func hideGem(_ gem: PlaceID, _ moderation: GemModeration) async throws -> Place? {
        try await database.transaction { connection in
            guard var place = try await Self.lockedGem(gem, connection), place.gem != nil else { return nil }
            place.gem?.visibility = .private
            _ = try await PostGISPlaceIndex.write(try PostGISBatch([place]), into: "gems", on: connection)
            try await connection.all("UPDATE gem_owners SET visibility = 'private' WHERE id = \(gem.rawValue)")
            try await connection.all(
                """
                INSERT INTO gem_moderation VALUES (\(gem.rawValue), \(moderation.hiddenAt.timeIntervalSince1970), \(moderation.moderator),
                                                   \(moderation.reason))
                ON CONFLICT (gem_id) DO UPDATE SET hidden_at = excluded.hidden_at, moderator = excluded.moderator, reason = excluded.reason
                """)
            try await connection.all("DELETE FROM gem_reports WHERE gem_id = \(gem.rawValue)")
            return place
        }
    }

    public func restoreGem(_ gem: PlaceID) async throws -> Bool {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM gem_moderation WHERE gem_id = \(gem.rawValue) RETURNING 1) SELECT count(*) FROM gone
            """
        ).first?.decode(Int.self) == 1
    }

    public func moderation(of gem: PlaceID) async throws -> GemModeration? {
        guard
            let row = try await database.rows(
                """
                SELECT hidden_at, moderator, reason FROM gem_moderation WHERE gem_id = \(gem.rawValue)
                """
            ).first
        else { return nil }
        let (hiddenAt, moderator, reason) = try row.decode((Double, String, String).self)
        return GemModeration(hiddenAt: Date(timeIntervalSince1970: hiddenAt), moderator: moderator, reason: reason)
    }

    public func moderations(of gems: [PlaceID]) async throws -> [PlaceID: GemModeration] {
        guard !gems.isEmpty else { return [:] }
        let rows = try await database.rows(
            """
            SELECT gem_id, hidden_at, moderator, reason FROM gem_moderation WHERE gem_id = ANY(\(gems.map(\.rawValue)))
            """)
        var found: [PlaceID: GemModeration] = [:]
        for row in rows {
            let (gem, hiddenAt, moderator, reason) = try row.decode((String, Double, String, String).self)
            found[PlaceID(trustedRawValue: gem)] = GemModeration(
                hiddenAt: Date(timeIntervalSince1970: hiddenAt), moderator: moderator, reason: reason)
        }
        return found
    }

    static func reports(_ rows: [PostgresRow]) throws -> [GemReport] {
        try rows.compactMap { row in
            let (gem, username, reason, note, created) = try row.decode((String, String, String, String?, Double).self)
            guard let id = try? PlaceID(gem), let reason = ReportReason(rawValue: reason) else { return nil }
            return GemReport(gemID: id, username: username, reason: reason, note: note, createdAt: Date(timeIntervalSince1970: created))
        }
    }
}
