import Foundation
import PlaceModel
import PlaceQuery

/// Popularity counters: each action one write transaction that folds its weight into every
/// period's decayed sum; the most popular read in key order from an index.
extension SQLiteUserStore {
    public func recordActivity(_ activity: PlaceActivity, subjects: [(kind: PopularKind, id: PlaceID)], at date: Date) async throws {
        guard !subjects.isEmpty else { return }
        let unique = Dictionary(subjects.map { ("\($0.kind.rawValue)|\($0.id.rawValue)", $0) }, uniquingKeysWith: { first, _ in first }).values
            .map { ($0.kind, $0.id) }
        try await writing { connection in
            for (kind, id) in unique {
                for period in PopularityPeriod.allCases {
                    let key = PopularityMath.key(weight: activity.weight, at: date, period: period)
                    var existing: Double?
                    try connection.each(
                        "SELECT score_key FROM popularity WHERE kind = ?1 AND subject = ?2 AND period = ?3",
                        [.text(kind.rawValue), .text(id.rawValue), .int(Int64(period.rawValue))]
                    ) { row in
                        existing = row.double(0)
                    }
                    try connection.run(
                        """
                        INSERT INTO popularity VALUES (?1, ?2, ?3, ?4, ?5, 1)
                        ON CONFLICT (kind, subject, period) DO UPDATE SET score_key = ?4, last_at = max(last_at, ?5), events = events + 1
                        """,
                        [
                            .text(kind.rawValue), .text(id.rawValue), .int(Int64(period.rawValue)),
                            .double(existing.map { PopularityMath.combine($0, key) } ?? key), .double(date.timeIntervalSince1970),
                        ])
                }
            }
        }
    }

    public func popular(
        _ kind: PopularKind, period: PopularityPeriod, activeSince: Date, after: PopularEntry?, limit: Int
    ) async throws
        -> [PopularEntry]
    {
        try await reading { connection in
            var found: [PopularEntry] = []
            let sql = """
                SELECT subject, score_key, last_at, events FROM popularity
                WHERE kind = ?1 AND period = ?2 AND last_at >= ?3
                  AND (?4 IS NULL OR score_key < ?4 OR (score_key = ?4 AND subject > ?5))
                ORDER BY score_key DESC, subject LIMIT ?6
                """
            try connection.each(
                sql,
                [
                    .text(kind.rawValue), .int(Int64(period.rawValue)), .double(activeSince.timeIntervalSince1970),
                    after.map { .double($0.key) } ?? .null, .text(after?.subject.rawValue ?? ""), .int(Int64(limit)),
                ]
            ) { row in
                found.append(
                    PopularEntry(
                        subject: PlaceID(trustedRawValue: row.text(0) ?? ""), key: row.double(1),
                        lastActivity: Date(timeIntervalSince1970: row.double(2)), events: Int(row.int64(3))))
            }
            return found
        }
    }
}
