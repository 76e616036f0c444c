import Foundation
import PlaceQuery
import PostgresNIO

// Idempotency keys: a claim is one upsert, whose row lock makes two servers claiming the same
// key at once take turns; the loser reads what the winner left.
extension PostGISUserStore {
    public func claimIdempotencyKey(
        account: String, key: String, fingerprint: String, at time: Date, keptUntil: Date, staleBefore: Date
    ) async throws -> IdempotencyClaim {
        let now = time.timeIntervalSince1970, until = keptUntil.timeIntervalSince1970, stale = staleBefore.timeIntervalSince1970
        // Twice at most: a key released between the upsert and the read is claimed again.
        for _ in 0..<2 {
            let taken = try await database.rows(
                """
                INSERT INTO idempotency_keys AS k (account, key, fingerprint, claimed_at, kept_until)
                VALUES (\(account), \(key), \(fingerprint), \(now), \(until))
                ON CONFLICT (account, key) DO UPDATE
                  SET fingerprint = EXCLUDED.fingerprint, claimed_at = EXCLUDED.claimed_at, kept_until = EXCLUDED.kept_until,
                      status = NULL, content_type = NULL, location = NULL, etag = NULL, body = NULL
                  WHERE k.kept_until < \(now) OR (k.status IS NULL AND k.claimed_at < \(stale) AND k.fingerprint = EXCLUDED.fingerprint)
                RETURNING 1
                """)
            if !taken.isEmpty { return .claimed }
            let rows = try await database.rows(
                "SELECT fingerprint, status, content_type, location, etag, body FROM idempotency_keys WHERE account = \(account) AND key = \(key)")
            guard let row = rows.first else { continue }
            let (stored, status, contentType, location, eTag, body) = try row.decode((String, Int?, String?, String?, String?, String?).self)
            if stored != fingerprint { return .differentRequest }
            guard let status else { return .inProgress }
            return .replay(
                IdempotentResponse(
                    status: status, contentType: contentType ?? "application/json", location: location, eTag: eTag, body: body ?? ""))
        }
        return .inProgress
    }

    public func completeIdempotencyKey(account: String, key: String, response: IdempotentResponse) async throws {
        try await database.execute(
            """
            UPDATE idempotency_keys SET status = \(response.status), content_type = \(response.contentType), location = \(response.location),
                   etag = \(response.eTag), body = \(response.body)
            WHERE account = \(account) AND key = \(key)
            """)
    }

    public func releaseIdempotencyKey(account: String, key: String) async throws {
        try await database.execute("DELETE FROM idempotency_keys WHERE account = \(account) AND key = \(key) AND status IS NULL")
    }

    public func deleteIdempotencyKeys(expiredBy now: Date) async throws -> Int {
        try await database.rows(
            """
            WITH gone AS (DELETE FROM idempotency_keys WHERE kept_until < \(now.timeIntervalSince1970) RETURNING 1) SELECT count(*) FROM gone
            """
        ).first?.decode(Int.self) ?? 0
    }
}
