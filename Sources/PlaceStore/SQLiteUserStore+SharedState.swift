import Foundation
import PlaceQuery

// What every server of a deployment must see alike: attempts counted against the sign-in and
// sign-up limits, budgets of creations, the last random city each user was shown, and webhook
// deliveries waiting for an attempt. Writes run on the one writer, each one step.
extension SQLiteUserStore {
    // MARK: - Attempts

    public func recordAttempt(scope: String, key: String, at time: Date, keptUntil: Date) async throws {
        try await writing { connection in
            try connection.run(
                "INSERT INTO attempts (scope, key, at, kept_until) VALUES (?1, ?2, ?3, ?4)",
                [.text(scope), .text(key), .double(time.timeIntervalSince1970), .double(keptUntil.timeIntervalSince1970)])
        }
    }

    public func attempts(scope: String, key: String, since: Date, limit: Int) async throws -> [Date] {
        try await reading { connection in
            var times: [Date] = []
            try connection.each(
                "SELECT at FROM attempts WHERE scope = ?1 AND key = ?2 AND at >= ?3 ORDER BY at DESC LIMIT ?4",
                [.text(scope), .text(key), .double(since.timeIntervalSince1970), .int(Int64(limit))]
            ) {
                times.append(Date(timeIntervalSince1970: $0.double(0)))
            }
            return times
        }
    }

    public func clearAttempts(scope: String, key: String) async throws {
        try await writing { try $0.run("DELETE FROM attempts WHERE scope = ?1 AND key = ?2", [.text(scope), .text(key)]) }
    }

    public func deleteAttempts(expiredBy now: Date) async throws -> Int {
        try await writing { connection in
            try connection.run("DELETE FROM attempts WHERE kept_until < ?1", [.double(now.timeIntervalSince1970)])
            return connection.changes
        }
    }

    public func spendBudget(scope: String, key: String, capacity: Int, refillPerSecond: Double, at time: Date) async throws -> Double? {
        // On the one writer: the read and the spend are one step.
        try await writing { connection in
            var units = Double(capacity)
            try connection.each("SELECT units, updated_at FROM budgets WHERE scope = ?1 AND key = ?2", [.text(scope), .text(key)]) { row in
                units = BudgetArithmetic.refilled(
                    row.double(0), updated: Date(timeIntervalSince1970: row.double(1)), now: time,
                    capacity: capacity, refillPerSecond: refillPerSecond)
            }
            guard units >= 1 else { return (1 - units) / refillPerSecond }
            let left = units - 1
            try connection.run(
                "INSERT OR REPLACE INTO budgets (scope, key, units, updated_at, full_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                [
                    .text(scope), .text(key), .double(left), .double(time.timeIntervalSince1970),
                    .double(BudgetArithmetic.fullAt(left, now: time, capacity: capacity, refillPerSecond: refillPerSecond).timeIntervalSince1970),
                ])
            return nil
        }
    }

    public func deleteFullBudgets(asOf now: Date) async throws -> Int {
        try await writing { connection in
            try connection.run("DELETE FROM budgets WHERE full_at <= ?1", [.double(now.timeIntervalSince1970)])
            return connection.changes
        }
    }

    // MARK: - Random cities

    public func lastRandomCity(of username: String) async throws -> String? {
        try await reading { connection in
            var city: String?
            try connection.each("SELECT city_id FROM random_city_memory WHERE username = ?1", [.text(username)]) { city = $0.text(0) }
            return city
        }
    }

    public func rememberRandomCity(_ cityID: String, for username: String) async throws {
        try await writing {
            try $0.run("INSERT OR REPLACE INTO random_city_memory (username, city_id) VALUES (?1, ?2)", [.text(username), .text(cityID)])
        }
    }

    // MARK: - Webhook deliveries

    public func queueDelivery(_ delivery: PendingDelivery, leaseUntil: Date) async throws {
        try await writing { connection in
            try connection.run(
                """
                INSERT OR IGNORE INTO webhook_deliveries (notification_id, username, body, failed_attempts, due_at)
                VALUES (?1, ?2, ?3, ?4, ?5)
                """,
                [
                    .text(delivery.notificationID), .text(delivery.username), .text(delivery.body),
                    .int(Int64(delivery.failedAttempts)), .double(leaseUntil.timeIntervalSince1970),
                ])
        }
    }

    public func claimDeliveries(dueBy now: Date, leaseUntil: Date, only: String?, limit: Int) async throws -> [PendingDelivery] {
        // One write transaction: finding and leasing are one step.
        try await writing { connection in
            var claimed: [PendingDelivery] = []
            try connection.each(
                """
                SELECT notification_id, username, body, failed_attempts FROM webhook_deliveries
                WHERE due_at <= ?1 AND (?2 IS NULL OR notification_id = ?2) ORDER BY due_at, notification_id LIMIT ?3
                """, [.double(now.timeIntervalSince1970), only.map { .text($0) } ?? .null, .int(Int64(limit))]
            ) { row in
                claimed.append(
                    PendingDelivery(
                        notificationID: row.text(0) ?? "", username: row.text(1) ?? "", body: row.text(2) ?? "",
                        failedAttempts: Int(row.int64(3))))
            }
            for delivery in claimed {
                try connection.run(
                    "UPDATE webhook_deliveries SET due_at = ?2 WHERE notification_id = ?1",
                    [.text(delivery.notificationID), .double(leaseUntil.timeIntervalSince1970)])
            }
            return claimed
        }
    }

    public func rescheduleDelivery(of notificationID: String, failedAttempts: Int, dueAt: Date) async throws {
        try await writing { connection in
            try connection.run(
                "UPDATE webhook_deliveries SET failed_attempts = ?2, due_at = ?3 WHERE notification_id = ?1",
                [.text(notificationID), .int(Int64(failedAttempts)), .double(dueAt.timeIntervalSince1970)])
        }
    }

    public func finishDelivery(of notificationID: String) async throws {
        try await writing { try $0.run("DELETE FROM webhook_deliveries WHERE notification_id = ?1", [.text(notificationID)]) }
    }
}
