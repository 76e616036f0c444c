import Foundation
import PlaceQuery
import PostgresNIO

// What every server on the database must see alike: attempts counted against the sign-in and
// sign-up limits, budgets of creations, the last random city each user was shown, and webhook
// deliveries waiting for an attempt. Each call one statement; the ones that decide (a budget
// spent, a delivery taken) decide under the row locks they take.
extension PostGISUserStore {
    // MARK: - Attempts

    public func recordAttempt(scope: String, key: String, at time: Date, keptUntil: Date) async throws {
        try await database.execute(
            """
            INSERT INTO attempts (scope, key, at, kept_until) VALUES (\(scope), \(key), \(time.timeIntervalSince1970), \(keptUntil.timeIntervalSince1970))
            """)
    }

    public func attempts(scope: String, key: String, since: Date, limit: Int) async throws -> [Date] {
        try await database.rows(
            """
            SELECT at FROM attempts WHERE scope = \(scope) AND key = \(key) AND at >= \(since.timeIntervalSince1970) ORDER BY at DESC LIMIT \(limit)
            """
        ).map { Date(timeIntervalSince1970: try $0.decode(Double.self)) }
    }

    public func clearAttempts(scope: String, key: String) async throws {
        try await database.execute("DELETE FROM attempts WHERE scope = \(scope) AND key = \(key)")
    }

    public func deleteAttempts(expiredBy now: Date) async throws -> Int {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM attempts WHERE kept_until < \(now.timeIntervalSince1970) RETURNING 1) SELECT count(*) FROM gone
            """
        ).first?.decode(Int.self) ?? 0
    }

    public func spendBudget(scope: String, key: String, capacity: Int, refillPerSecond: Double, at time: Date) async throws -> Double? {
        let now = time.timeIntervalSince1970, full = Double(capacity), rate = refillPerSecond
        // One statement: the row lock of the upsert makes concurrent spending take turns, and
        // the WHERE leaves an empty bucket as it is (no row comes back).
        let spent = try await database.rows(
            """
            INSERT INTO budgets AS b (scope, key, units, updated_at, full_at) VALUES (\(scope), \(key), \(full - 1), \(now), \(now + 1 / rate))
            ON CONFLICT (scope, key) DO UPDATE
              SET units = least(\(full), b.units + greatest(0, \(now) - b.updated_at) * \(rate)) - 1, updated_at = \(now),
                  full_at = \(now) + (\(full) - (least(\(full), b.units + greatest(0, \(now) - b.updated_at) * \(rate)) - 1)) / \(rate)
              WHERE least(\(full), b.units + greatest(0, \(now) - b.updated_at) * \(rate)) >= 1
            RETURNING 1
            """)
        guard spent.isEmpty else { return nil }
        guard let row = try await database.rows("SELECT units, updated_at FROM budgets WHERE scope = \(scope) AND key = \(key)").first else {
            return nil
        }
        let (units, updated) = try row.decode((Double, Double).self)
        let refilled = BudgetArithmetic.refilled(
            units, updated: Date(timeIntervalSince1970: updated), now: time,
            capacity: capacity, refillPerSecond: rate)
        return max(0, (1 - refilled) / rate)
    }

    public func deleteFullBudgets(asOf now: Date) async throws -> Int {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM budgets WHERE full_at <= \(now.timeIntervalSince1970) RETURNING 1) SELECT count(*) FROM gone
            """
        ).first?.decode(Int.self) ?? 0
    }

    // MARK: - Random cities

    public func lastRandomCity(of username: String) async throws -> String? {
        try await database.rows("SELECT city_id FROM random_city_memory WHERE username = \(username)").first?.decode(String.self)
    }

    public func rememberRandomCity(_ cityID: String, for username: String) async throws {
        try await database.execute(
            """
            INSERT INTO random_city_memory (username, city_id) VALUES (\(username), \(cityID))
            ON CONFLICT (username) DO UPDATE SET city_id = excluded.city_id
            """)
    }

    // MARK: - Webhook deliveries

    public func queueDelivery(_ delivery: PendingDelivery, leaseUntil: Date) async throws {
        try await database.execute(
            """
            INSERT INTO webhook_deliveries (notification_id, username, body, failed_attempts, due_at)
            VALUES (\(delivery.notificationID), \(delivery.username), \(delivery.body), \(delivery.failedAttempts), \(leaseUntil.timeIntervalSince1970))
            ON CONFLICT (notification_id) DO NOTHING
            """)
    }

    public func claimDeliveries(dueBy now: Date, leaseUntil: Date, only: String?, limit: Int) async throws -> [PendingDelivery] {
        // SKIP LOCKED: a claim beside another passes over the rows that one is taking.
        try await database.rows(
            """
            WITH due AS (SELECT notification_id, due_at FROM webhook_deliveries
                         WHERE due_at <= \(now.timeIntervalSince1970) AND (\(only)::text IS NULL OR notification_id = \(only))
                         ORDER BY due_at, notification_id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            UPDATE webhook_deliveries AS d SET due_at = \(leaseUntil.timeIntervalSince1970) FROM due
            WHERE d.notification_id = due.notification_id
            RETURNING d.notification_id, d.username, d.body, d.failed_attempts, due.due_at
            """
        ).map { row in
            let (id, username, body, failed, wasDue) = try row.decode((String, String, String, Int32, Double).self)
            return (PendingDelivery(notificationID: id, username: username, body: body, failedAttempts: Int(failed)), wasDue)
        }
        .sorted { ($0.1, $0.0.notificationID) < ($1.1, $1.0.notificationID) }
        .map(\.0)
    }

    public func rescheduleDelivery(of notificationID: String, failedAttempts: Int, dueAt: Date) async throws {
        try await database.execute(
            """
            UPDATE webhook_deliveries SET failed_attempts = \(failedAttempts), due_at = \(dueAt.timeIntervalSince1970)
            WHERE notification_id = \(notificationID)
            """)
    }

    public func finishDelivery(of notificationID: String) async throws {
        try await database.execute("DELETE FROM webhook_deliveries WHERE notification_id = \(notificationID)")
    }
}
