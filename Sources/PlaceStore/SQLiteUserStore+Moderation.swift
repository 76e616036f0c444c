import Foundation
import PlaceModel
import PlaceQuery

// Reports of gems and moderators' decisions: each call one transaction.
extension SQLiteUserStore {
    public func report(_ report: GemReport) async throws -> Bool {
        try await writing { connection in
            let existed =
                try connection.scalarInt(
                    "SELECT 1 FROM gem_reports WHERE gem_id = ?1 AND username = ?2",
                    [.text(report.gemID.rawValue), .text(report.username)]) != nil
            try connection.run(
                "INSERT OR REPLACE INTO gem_reports VALUES (?1, ?2, ?3, ?4, ?5)",
                [
                    .text(report.gemID.rawValue), .text(report.username), .text(report.reason.rawValue),
                    report.note.map { .text($0) } ?? .null, .double(report.createdAt.timeIntervalSince1970),
                ])
            return !existed
        }
    }

    public func reportedGems(after: ReportQueuePosition?, limit: Int) async throws -> [ReportedGem] {
        try await reading { connection in
            var gems: [String] = []
            try connection.each(
                """
                SELECT gem_id, count(*) AS reported FROM gem_reports GROUP BY gem_id
                HAVING ?2 IS NULL OR reported < ?2 OR (reported = ?2 AND gem_id > ?3)
                ORDER BY reported DESC, gem_id LIMIT ?1
                """, [.int(Int64(limit)), after.map { .int(Int64($0.reportCount)) } ?? .null, .text(after?.gemID.rawValue ?? "")]
            ) {
                gems.append($0.text(0) ?? "")
            }
            return try gems.compactMap { gem in
                guard let id = try? PlaceID(gem) else { return nil }
                return ReportedGem(gemID: id, reports: try Self.reports(connection, "gem_id = ?1", [.text(gem)]))
            }
        }
    }

    public func reports(by username: String) async throws -> [GemReport] {
        try await reading { try Self.reports($0, "username = ?1", [.text(username)]) }
    }

    public func dismissReports(of gem: PlaceID) async throws -> Int {
        try await writing { connection in
            try connection.run("DELETE FROM gem_reports WHERE gem_id = ?1", [.text(gem.rawValue)])
            return connection.changes
        }
    }

    public func hideGem(_ gem: PlaceID, _ moderation: GemModeration) async throws -> Place? {
        try await writingGems { connection, writer in
            guard var place = try Self.storedPlace(gem, connection), place.gem != nil else { return nil }
            place.gem?.visibility = .private
            try writer.upsert([place])
            try connection.run("UPDATE gems SET visibility = 'private' WHERE id = ?1", [.text(gem.rawValue)])
            try connection.run(
                "INSERT OR REPLACE INTO gem_moderation VALUES (?1, ?2, ?3, ?4)",
                [
                    .text(gem.rawValue), .double(moderation.hiddenAt.timeIntervalSince1970), .text(moderation.moderator),
                    .text(moderation.reason),
                ])
            try connection.run("DELETE FROM gem_reports WHERE gem_id = ?1", [.text(gem.rawValue)])
            return place
        }
    }

    public func restoreGem(_ gem: PlaceID) async throws -> Bool {
        try await writing { connection in
            try connection.run("DELETE FROM gem_moderation WHERE gem_id = ?1", [.text(gem.rawValue)])
            return connection.changes == 1
        }
    }

    public func moderation(of gem: PlaceID) async throws -> GemModeration? {
        try await reading { connection in
            var found: GemModeration?
            try connection.each("SELECT hidden_at, moderator, reason FROM gem_moderation WHERE gem_id = ?1", [.text(gem.rawValue)]) { row in
                found = GemModeration(hiddenAt: Date(timeIntervalSince1970: row.double(0)), moderator: row.text(1) ?? "", reason: row.text(2) ?? "")
            }
            return found
        }
    }

    public func moderations(of gems: [PlaceID]) async throws -> [PlaceID: GemModeration] {
        guard !gems.isEmpty else { return [:] }
        return try await reading { connection in
            var found: [PlaceID: GemModeration] = [:]
            // One statement for the page: the ids as a JSON array, read by json_each.
            let ids = String(decoding: try JSONEncoder().encode(gems.map(\.rawValue)), as: UTF8.self)
            try connection.each(
                """
                SELECT gem_id, hidden_at, moderator, reason FROM gem_moderation WHERE gem_id IN (SELECT value FROM json_each(?1))
                """, [.text(ids)]
            ) { row in
                guard let id = try? PlaceID(row.text(0) ?? "") else { return }
                found[id] = GemModeration(
                    hiddenAt: Date(timeIntervalSince1970: row.double(1)), moderator: row.text(2) ?? "", reason: row.text(3) ?? "")
            }
            return found
        }
    }

    static func reports(_ connection: SQLiteConnection, _ condition: String, _ bindings: [SQLiteValue]) throws -> [GemReport] {
        var found: [GemReport] = []
        try connection.each(
            """
            SELECT gem_id, username, reason, note, created_at FROM gem_reports WHERE \(condition) ORDER BY created_at DESC, gem_id, username
            """, bindings
        ) { row in
            guard let id = try? PlaceID(row.text(0) ?? ""), let reason = ReportReason(rawValue: row.text(2) ?? "") else { return }
            found.append(
                GemReport(
                    gemID: id, username: row.text(1) ?? "", reason: reason, note: row.text(3),
                    createdAt: Date(timeIntervalSince1970: row.double(4))))
        }
        return found
    }
}
