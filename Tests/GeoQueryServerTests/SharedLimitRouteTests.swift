import Accounts
import Foundation
import GeoQueryServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Sign-in and sign-up limits hold however many servers share the store: the attempts are
/// counted in the store, not in each process.
extension AccountRouteTests {
    @Test func signInAndSignUpLimitsHoldAcrossServers() async throws {
        let fixture = try await AccountFixture {
            $0.signInAttemptsPerAccount = 3
            $0.signUpsPerAddress = 3
        }
        try await fixture.testOnTwoServers { first, second in
            // Sign-ups from one address: two on one server, the third on the other, the
            // fourth refused on either.
            _ = try await first.account("guarded")
            _ = try await first.account("spare.one")
            _ = try await second.account("spare.two")
            for server in [first, second] {
                let fourth = try await server.send(
                    .post, "/v1/users", json: #"{"username":"spare.three","email":"s3@example.org","password":"a long enough secret"}"#)
                #expect(fourth.status == .tooManyRequests && fourth.headers[.retryAfter] != nil, "\(fourth.text)")
            }

            // Wrong passwords spread over both servers: three in all lock the account on both.
            let wrong = #"{"username":"guarded","password":"wrong wrong wrong"}"#
            #expect(try await first.send(.post, "/v1/sessions", json: wrong).status == .unauthorized)
            #expect(try await second.send(.post, "/v1/sessions", json: wrong).status == .unauthorized)
            #expect(try await first.send(.post, "/v1/sessions", json: wrong).status == .unauthorized)
            for server in [first, second] {
                let locked = try await server.send(.post, "/v1/sessions", json: #"{"username":"guarded","password":"a long enough secret"}"#)
                #expect(locked.status == .tooManyRequests, "locked on both servers: \(locked.text)")
                let wait = locked.headers[.retryAfter].flatMap { Int($0) } ?? 0
                #expect(wait > 0 && wait <= 900, "Retry-After \(wait)")
            }
            // Another account from the same address is not locked by it.
            let other = try await second.send(.post, "/v1/sessions", json: #"{"username":"spare.one","password":"a long enough secret"}"#)
            #expect(other.status == .created, "\(other.text)")
        }
    }

    /// What the store keeps of an attempt names no login and no address: only their hashes.
    @Test func countedAttemptsKeepNoLoginOrAddress() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            _ = try await client.account("hashed.keys")
            #expect(
                try await client.send(.post, "/v1/sessions", json: #"{"username":"hashed.keys","password":"wrong wrong wrong"}"#).status
                    == .unauthorized)
            let since = Date().addingTimeInterval(-3_600)
            let byLogin = try await fixture.store.attempts(scope: "sign-in account", key: "hashed.keys", since: since, limit: 10)
            #expect(byLogin.isEmpty, "the login in the clear is no key")
            let byHash = try await fixture.store.attempts(scope: "sign-in account", key: SessionToken.hash("hashed.keys"), since: since, limit: 10)
            #expect(byHash.count == 1, "the failure is counted under the login's hash: \(byHash)")
            // The sweep forgets attempts whose window has passed.
            #expect(try await fixture.service.deleteExpiredAttempts(now: Date().addingTimeInterval(7_200)) >= 2)
            let swept = try await fixture.store.attempts(scope: "sign-in account", key: SessionToken.hash("hashed.keys"), since: since, limit: 10)
            #expect(swept.isEmpty, "\(swept)")
        }
    }
}
