import Foundation
import PlaceQuery

// Idempotency keys: each claim is one step on the one writer, so two servers (or two
// requests) sending the same key at once cannot both be told to go ahead.
extension SQLiteUserStore {
    public func claimIdempotencyKey(
        account: String, key: String, fingerprint: String, at time: Date, keptUntil: Date, staleBefore: Date
    ) async throws -> IdempotencyClaim {
        try await writing { connection in
            var found: (fingerprint: String, claimedAt: Double, keptUntil: Double, response: IdempotentResponse?)?
            try connection.each(
                "SELECT fingerprint, claimed_at, kept_until, status, content_type, location, etag, body FROM idempotency_keys WHERE account = ?1 AND key = ?2",
                [.text(account), .text(key)]
            ) { row in
                let response =
                    row.isNull(3)
                    ? nil
                    : IdempotentResponse(
                        status: Int(row.int64(3)), contentType: row.text(4) ?? "application/json", location: row.text(5),
                        eTag: row.text(6), body: row.text(7) ?? "")
                found = (row.text(0) ?? "", row.double(1), row.double(2), response)
            }
            if let found, found.keptUntil >= time.timeIntervalSince1970 {
                if found.fingerprint != fingerprint { return .differentRequest }
                if let response = found.response { return .replay(response) }
                if found.claimedAt >= staleBefore.timeIntervalSince1970 { return .inProgress }
            }
            try connection.run(
                "INSERT OR REPLACE INTO idempotency_keys (account, key, fingerprint, claimed_at, kept_until) VALUES (?1, ?2, ?3, ?4, ?5)",
                [.text(account), .text(key), .text(fingerprint), .double(time.timeIntervalSince1970), .double(keptUntil.timeIntervalSince1970)])
            return .claimed
        }
    }

    public func completeIdempotencyKey(account: String, key: String, response: IdempotentResponse) async throws {
        try await writing { connection in
            try connection.run(
                "UPDATE idempotency_keys SET status = ?3, content_type = ?4, location = ?5, etag = ?6, body = ?7 WHERE account = ?1 AND key = ?2",
                [
                    .text(account), .text(key), .int(Int64(response.status)), .text(response.contentType),
                    response.location.map { .text($0) } ?? .null, response.eTag.map { .text($0) } ?? .null, .text(response.body),
                ])
        }
    }

    public func releaseIdempotencyKey(account: String, key: String) async throws {
        try await writing { connection in
            try connection.run("DELETE FROM idempotency_keys WHERE account = ?1 AND key = ?2 AND status IS NULL", [.text(account), .text(key)])
        }
    }

    public func deleteIdempotencyKeys(expiredBy now: Date) async throws -> Int {
        try await writing { connection in
            try connection.run("DELETE FROM idempotency_keys WHERE kept_until < ?1", [.double(now.timeIntervalSince1970)])
            return connection.changes
        }
    }
}
