import Foundation
import PlaceModel
import PlaceQuery
import PostgresNIO

/// Popularity counters on PostgreSQL: each action folds its weight into every period's sum in
/// one upsert per subject and period (the log-sum-exp done by the database, so concurrent
/// actions on one place add up instead of overwriting each other).
extension PostGISUserStore {
    public func recordActivity(_ activity: PlaceActivity, subjects: [(kind: PopularKind, id: PlaceID)], at date: Date) async throws {
        guard !subjects.isEmpty else { return }
        let unique = Dictionary(subjects.map { ("\($0.kind.rawValue)|\($0.id.rawValue)", $0) }, uniquingKeysWith: { first, _ in first }).values
            .map { ($0.kind, $0.id) }
        let time = date.timeIntervalSince1970
        let logger = database.logger
        try await database.transaction { connection in
            for (kind, id) in unique {
                for period in PopularityPeriod.allCases {
                    let key = PopularityMath.key(weight: activity.weight, at: date, period: period)
                    _ = try await connection.query(
                        """
                        INSERT INTO popularity AS p VALUES (\(kind.rawValue), \(id.rawValue), \(period.rawValue), \(key), \(time), 1)
                        ON CONFLICT (kind, subject, period) DO UPDATE SET
                          score_key = greatest(p.score_key, excluded.score_key)
                                      + ln(1 + power(2.0::float8, least(p.score_key, excluded.score_key) - greatest(p.score_key, excluded.score_key))) / ln(2.0::float8),
                          last_at = greatest(p.last_at, excluded.last_at), events = p.events + 1
                        """, logger: logger
                    ).collect()
                }
            }
        }
    }

    public func popular(
        _ kind: PopularKind, period: PopularityPeriod, activeSince: Date, after: PopularEntry?, limit: Int
    ) async throws
        -> [PopularEntry]
    {
        let afterKey = after?.key, afterSubject = after?.subject.rawValue ?? ""
        let rows = try await database.rows(
            """
            SELECT subject, score_key, last_at, events FROM popularity
            WHERE kind = \(kind.rawValue) AND period = \(period.rawValue) AND last_at >= \(activeSince.timeIntervalSince1970)
              AND (\(afterKey)::float8 IS NULL OR score_key < \(afterKey)::float8 OR (score_key = \(afterKey)::float8 AND subject > \(afterSubject)))
            ORDER BY score_key DESC, subject LIMIT \(limit)
            """)
        return try rows.map { row in
            let (subject, key, last, events) = try row.decode((String, Double, Double, Int64).self)
            return PopularEntry(
                subject: PlaceID(trustedRawValue: subject), key: key, lastActivity: Date(timeIntervalSince1970: last), events: Int(events))
        }
    }
}
