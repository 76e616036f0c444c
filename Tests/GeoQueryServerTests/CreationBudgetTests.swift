import Accounts
import Foundation
import GeoQueryServer
import HTTPTypes
import HummingbirdTesting
import ProviderTestSupport
import Testing

/// An account's budget of creations: a burst spends it, it refills steadily, one account's
/// spending is not another's, and a refused creation changes nothing.
@Suite(.ownThreads) struct CreationBudgetTests {
    @Test func aBucketSpendsItsBurstThenRefillsSteadily() {
        let limiter = TokenBucketLimiter(capacity: 3, period: .seconds(3_600))
        let start = ContinuousClock.now
        for _ in 0..<3 { #expect(limiter.take("ann", now: start) == nil) }
        let wait = limiter.take("ann", now: start)
        #expect(wait == .seconds(1_200), "one creation comes back every 20 minutes, got \(String(describing: wait))")
        #expect(limiter.take("bob", now: start) == nil, "each key has its own budget")
        #expect(limiter.take("ann", now: start + .seconds(1_199)) != nil, "not before it is back")
        #expect(limiter.take("ann", now: start + .seconds(1_200)) == nil)
        #expect(limiter.take("ann", now: start + .seconds(1_201)) != nil, "one came back, one was spent")
        #expect(limiter.remaining("ann", now: start + .seconds(100_000)) == 3, "a long pause refills it, never past the capacity")
    }

    @Test func anAccountPastItsBudgetIsAnswered429AndNothingIsMade() async throws {
        let fixture = try await AccountFixture { $0.creationsPerAccountPerHour = 4 }
        try await fixture.test { client in
            let eager = try await client.account("eager")
            let calm = try await client.account("calm")
            let calmGem = try await client.gem(calm, name: "Calm Spot", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "public")
            // Four creations of four kinds spend the budget.
            let gem = try await client.gem(eager, name: "First", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "public")
            #expect(try await client.send(.put, "/v1/gems/\(calmGem)/report", token: eager, json: #"{"reason":"closed"}"#).status == .created)
            #expect(try await client.send(.post, "/v1/me/friends/calm", token: eager).status == .created)
            #expect(try await client.send(.post, "/v1/gems/\(gem)/photos", token: eager, bytes: TestImages.png(grey: 50)).status == .created)

            // The fifth, of any kind, is refused and makes nothing.
            let refused = try await client.send(.post, "/v1/gems", token: eager, json: #"{"name":"Second","lat":22.5,"lon":12.5}"#)
            #expect(refused.status == .tooManyRequests, "\(refused.text)")
            let seconds = Int(refused.headers[.retryAfter] ?? "") ?? 0
            #expect((800...900).contains(seconds), "a creation comes back in 900 s, Retry-After \(seconds)")
            #expect((refused.json["detail"] as? String)?.contains("eager has created 4 things") == true, "\(refused.text)")
            #expect(try await client.ids("/v1/me/gems?limit=50", token: eager) == [gem], "the refused gem was not made")
            for (method, uri, body) in [
                (HTTPRequest.Method.post, "/v1/itineraries", #"{"title":"Weekend","stops":[]}"#),
                (.post, "/v1/trips", TripRouteTests.trip(start: "2031-05-01T10:00:00Z", end: "2031-05-01T16:00:00Z", invitees: [])),
                (.put, "/v1/gems/\(calmGem)/report", #"{"reason":"spam"}"#),
            ] {
                #expect(try await client.send(method, uri, token: eager, json: body).status == .tooManyRequests, "\(method) \(uri)")
            }
            #expect(try await client.send(.put, "/v1/me/favorites/\(calmGem)", token: eager).status == .tooManyRequests)
            #expect(try await client.send(.get, "/v1/me/favorites", token: eager).json["count"] as? Int == 0)
            let photo = try await client.send(.put, "/v1/me/avatar", token: eager, bytes: TestImages.png(grey: 60))
            #expect(photo.status == .tooManyRequests)
            #expect(try await client.send(.get, "/v1/photos/\(StoredPhoto.id(TestImages.png(grey: 60)))").status == .notFound)

            // Reading, editing and deleting stay open; another account's budget is its own.
            #expect(try await client.send(.get, "/v1/gems/\(gem)", token: eager).status == .ok)
            #expect(try await client.send(.patch, "/v1/gems/\(gem)", token: eager, json: #"{"description":"still here"}"#).status == .ok)
            #expect(try await client.send(.post, "/v1/gems/\(calmGem)/photos", token: calm, bytes: TestImages.png(grey: 70)).status == .created)
        }
    }

    /// Two servers on one store spend from one budget: creations spread over both stop at the
    /// account's budget, not at twice it.
    @Test func twoServersSpendFromOneBudget() async throws {
        let fixture = try await AccountFixture { $0.creationsPerAccountPerHour = 4 }
        try await fixture.testOnTwoServers { first, second in
            let busy = try await first.account("two_servers")
            var statuses: [HTTPResponse.Status] = []
            for n in 0..<6 {
                let server = n.isMultiple(of: 2) ? first : second
                statuses.append(try await server.send(.post, "/v1/gems", token: busy, json: #"{"name":"Spot \#(n)","lat":22.5,"lon":12.5}"#).status)
            }
            #expect(statuses == [.created, .created, .created, .created, .tooManyRequests, .tooManyRequests], "\(statuses.map(\.code))")
            #expect(try await second.ids("/v1/me/gems?limit=50", token: busy).count == 4, "four gems made in all")
        }
    }
}
