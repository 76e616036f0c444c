import Foundation
import GeoCore
import ProviderTestSupport

@testable import Providers

/// Mint Plaza, San Francisco: the centre of the recorded answers.
let mintPlaza = Coordinate(uncheckedLatitude: 37.7825, longitude: -122.4075)
let fixedNow = Date(timeIntervalSince1970: 1_795_356_900)
/// Retries fast enough for tests, still exponential.
let fastRetry = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.05)

/// Settings that send `provider`'s requests to `server` with `key` set.
func settings(
    _ server: LoopbackServer, _ provider: ProviderName, key: String = "test-key-0123456789",
    extra: [String: String] = [:], retry: RetryPolicy = fastRetry, timeout: TimeInterval = 30
) -> ProviderSettings {
    var variables = extra
    if let variable = ProviderEnvironment.baseURLVariable(for: provider) { variables[variable] = server.baseURL.absoluteString }
    if let variable = ProviderEnvironment.keyVariable(for: provider) { variables[variable] = key }
    return ProviderSettings(environment: ProviderEnvironment(variables), retry: retry, timeout: timeout, now: { fixedNow })
}

func request(radius meters: Double = 500, query: String? = nil, categories: [String] = [], limit: Int = 20) throws -> PlaceSearchRequest {
    PlaceSearchRequest(
        center: mintPlaza, radius: Distance(uncheckedMeters: meters), query: query,
        categories: try categories.map { try .init($0) }, limit: limit)
}

/// Runs `body` against a server answering with `replies` in turn, then stops the server.
@discardableResult
func withServer<T>(_ replies: [LoopbackServer.Reply], _ body: (LoopbackServer) async throws -> T) async throws -> T {
    let server = try await LoopbackServer.start(replies: replies)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
