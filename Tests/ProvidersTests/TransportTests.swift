import Foundation
import ProviderTestSupport
import Testing

@testable import Providers

/// Retries, timeouts, typed errors and key hygiene, over real HTTP on 127.0.0.1.
@Suite(.ownThreads) struct TransportTests {
    @Test func a429ThenA200IsRetriedAndSucceeds() async throws {
        try await withServer([
            .recorded("google_error_429.json", status: 429, headers: ["Retry-After": "0"]),
            .recorded("yelp_search.json"),
        ]) { server in
            let result = try await YelpAdapter(settings: settings(server, .yelp)).search(try request())
            #expect(result.places.count == 2)
            #expect(await server.requests.count == 2)
        }
    }

    @Test func fiveHundredThreeTimesFailsWithATypedError() async throws {
        try await withServer([.json(#"{"error":{"code":"INTERNAL_ERROR","description":"Something went wrong"}}"#, status: 500)]) { server in
            await #expect(throws: ProviderError.serverError(provider: .yelp, status: 500, attempts: 3, message: "Something went wrong")) {
                try await YelpAdapter(settings: settings(server, .yelp)).search(try request())
            }
            #expect(await server.requests.count == 3)
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        try await withServer([.json("{}", status: 503, headers: ["Retry-After": "1"]), .recorded("yelp_search.json")]) { server in
            let started = Date()
            _ = try await YelpAdapter(settings: settings(server, .yelp, retry: RetryPolicy(maxAttempts: 2, baseDelay: 0, maxDelay: 5)))
                .search(try request())
            #expect(Date().timeIntervalSince(started) >= 0.9, "waited the server's Retry-After, not the zero backoff")
        }
    }

    @Test func otherClientErrorsAreNotRetriedAndCarryTheProvidersMessage() async throws {
        try await withServer([.recorded("yelp_error_400.json", status: 400)]) { server in
            await #expect(
                throws: ProviderError.rejected(
                    provider: .yelp, status: 400, code: "VALIDATION_ERROR",
                    message: "Please specify a location or a latitude and longitude")
            ) {
                try await YelpAdapter(settings: settings(server, .yelp)).search(try request())
            }
            #expect(await server.requests.count == 1)
        }
    }

    @Test func aSlowServerTimesOut() async throws {
        try await withServer([LoopbackServer.Reply(body: Recorded.data("yelp_search.json"), delay: 30)]) { server in
            let started = Date()
            await #expect(throws: ProviderError.timedOut(provider: .yelp, seconds: 1)) {
                try await YelpAdapter(settings: settings(server, .yelp, retry: .none, timeout: 1)).search(try request())
            }
            #expect(Date().timeIntervalSince(started) < 20, "did not wait for the 30 s server")
        }
    }

    @Test func garbageIsAMalformedResponseError() async throws {
        try await withServer([LoopbackServer.Reply(body: Data("<html>502 Bad Gateway</html>".utf8))]) { server in
            do {
                _ = try await YelpAdapter(settings: settings(server, .yelp)).search(try request())
                Issue.record("garbage was accepted")
            } catch let error as ProviderError {
                guard case .malformedResponse(.yelp, let reason) = error else {
                    Issue.record("wrong error \(error)")
                    return
                }
                #expect(reason.contains("not JSON"))
            }
        }
    }

    @Test func jsonOfTheWrongShapeIsAMalformedResponseError() async throws {
        try await withServer([.json(#"{"businesses":[{"id":"x","name":"No coordinates"}],"total":1}"#)]) { server in
            await #expect(throws: ProviderError.malformedResponse(provider: .yelp, reason: "place yelp:x has no valid coordinates (nil, nil)")) {
                try await YelpAdapter(settings: settings(server, .yelp)).search(try request())
            }
        }
    }

    @Test(arguments: [
        (ProviderName.google, "GOOGLE_PLACES_API_KEY"), (.yelp, "YELP_API_KEY"), (.foursquare, "FOURSQUARE_API_KEY"),
        (.here, "HERE_API_KEY"),
    ])
    func aMissingKeyNamesItsVariable(provider: ProviderName, variable: String) async throws {
        let settings = ProviderSettings(environment: ProviderEnvironment(["\(variable)": "  "]))
        let adapter = FederatedSearch.sources([provider], settings: settings, localIndex: nil)[0]
        do {
            _ = try await adapter.search(try request())
            Issue.record("searched without a key")
        } catch let error as ProviderError {
            #expect(error == .missingKey(provider: provider, variable: variable))
            #expect(error.description.contains(variable))
        }
    }

    @Test func weatherKeysAreNamedToo() async throws {
        await #expect(throws: ProviderError.missingKey(provider: .openWeatherMap, variable: "OPENWEATHERMAP_API_KEY")) {
            try await OpenWeatherMapAdapter(settings: ProviderSettings(environment: ProviderEnvironment([:]))).weather(at: mintPlaza, days: 3)
        }
        await #expect(throws: ProviderError.missingKey(provider: .pirateWeather, variable: "PIRATEWEATHER_API_KEY")) {
            try await PirateWeatherAdapter(settings: ProviderSettings(environment: ProviderEnvironment([:]))).weather(at: mintPlaza, days: 3)
        }
    }

    @Test func keysNeverAppearInErrors() async throws {
        let key = "SECRET-here-key-42"
        // The server echoes the request line, key included, as providers sometimes do.
        let server = try await LoopbackServer.start { request in
            .json(#"{"status":401,"title":"Unauthorized","cause":"apiKey \#(request.query["apiKey"] ?? "") is invalid"}"#, status: 401)
        }
        defer { Task { await server.stop() } }
        do {
            _ = try await HEREAdapter(settings: settings(server, .here, key: key)).search(try request())
            Issue.record("accepted")
        } catch let error as ProviderError {
            #expect(!error.description.contains(key))
            #expect(error.description.contains("<redacted>"))
            #expect(error.description.contains("Unauthorized"))
        }
        #expect(await server.requests.first?.query["apiKey"] == key, "the key did reach the server")
    }

    @Test func badSettingsNameTheVariable() throws {
        let environment = ProviderEnvironment(["GEOQUERY_YELP_BASE_URL": "ftp://example", "GEOQUERY_GOOGLE_API": "v2"])
        #expect(
            throws: ProviderError.invalidSetting(
                variable: "GEOQUERY_YELP_BASE_URL", value: "ftp://example",
                expected: "an absolute http(s) URL such as http://127.0.0.1:8080")
        ) {
            try environment.baseURLOverride(for: .yelp)
        }
        #expect(throws: ProviderError.invalidSetting(variable: "GEOQUERY_GOOGLE_API", value: "v2", expected: "new or legacy")) {
            try environment.googleGeneration()
        }
    }

    @Test func backoffGrowsWithJitterAndHonoursRetryAfter() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: 0.5, maxDelay: 4)
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: 1) == 0.5)
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, random: 1) == 2)
        #expect(policy.delay(beforeRetry: 5, retryAfter: nil, random: 1) == 4, "capped")
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, random: 0.25) == 0.5, "full jitter")
        #expect(policy.delay(beforeRetry: 1, retryAfter: "3") == 3)
        #expect(policy.delay(beforeRetry: 1, retryAfter: "120") == 4, "a long Retry-After is capped too")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(policy.delay(beforeRetry: 1, retryAfter: "Tue, 14 Nov 2023 22:13:22 GMT", now: now) == 2)
    }
}
