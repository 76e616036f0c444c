import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ProviderTestSupport
import Providers
import Testing

/// Images, surprise-me cities and places by region over the shipped data.
@Suite struct DiscoveryRouteTests {
    func app(_ adjust: (inout ServiceConfiguration) -> Void = { _ in }) throws -> some ApplicationProtocol {
        try ServerFixture.service(adjust).makeApplication()
    }

    /// Every provider at a closed port, so no test leaves the machine.
    static func offline(_ extra: [String: String] = [:]) -> ProviderSettings {
        var variables: [String: String] = [:]
        for name in ProviderName.allCases { if let variable = ProviderEnvironment.baseURLVariable(for: name) { variables[variable] = "http://127.0.0.1:9" } }
        return ProviderSettings(environment: ProviderEnvironment(variables.merging(extra) { $1 }), retry: .init(maxAttempts: 1, baseDelay: 0.01, maxDelay: 0.01), timeout: 5)
    }

    @Test func imagesFromALoopbackCommonsWithLicences() async throws {
        let commons = try await LoopbackServer.start(replies: [.recorded("commons_geosearch.json")])
        defer { Task { await commons.stop() } }
        let settings = Self.offline(["GEOQUERY_COMMONS_BASE_URL": commons.baseURL.absoluteString])
        try await app { $0.providers = settings }.test(.router) { client in
            let response = try await client.execute(uri: "/v1/images?lat=38.7077&lon=-9.1366&limit=3", method: .get)
            #expect(response.status == .ok)
            let images = try #require(response.json["images"] as? [[String: Any]])
            #expect(images.count == 2 && images.allSatisfy { $0["provider"] as? String == "wikimedia-commons" })
            #expect(images.first?["licence"] as? String == "CC BY 2.0" && images.first?["author"] as? String == "Jane Q. Example & friends")
            #expect(images.allSatisfy { ($0["source_url"] as? String)?.hasPrefix("https://commons.wikimedia.org/wiki/File:") == true })

            let cached = try await client.execute(uri: "/v1/images?lat=38.7077&lon=-9.1366&limit=3", method: .get)
            #expect(cached.status == .ok && cached.text == response.text)
            #expect(await commons.requests.count == 1, "the second answer comes from the cache")

            let nothing = try await client.execute(uri: "/v1/images", method: .get)
            #expect(nothing.status == .badRequest && (nothing.json["detail"] as? String)?.contains("give lat and lon, or title") == true)
            let half = try await client.execute(uri: "/v1/images?lat=38.7", method: .get)
            #expect(half.status == .badRequest && (half.json["detail"] as? String)?.contains("'lon' is required") == true)
            let unknown = try await client.execute(uri: "/v1/images?title=Lisbon&provider=flickr", method: .get)
            #expect(unknown.status == .badRequest && (unknown.json["detail"] as? String)?.contains("wikimedia-commons, pixabay, unsplash") == true)
            let keyless = try await client.execute(uri: "/v1/images?title=Lisbon&provider=unsplash", method: .get)
            #expect(keyless.status == .badRequest && (keyless.json["detail"] as? String)?.contains("UNSPLASH_ACCESS_KEY") == true)
        }
    }

    @Test func imagesWithNoSourceAnsweringAre503() async throws {
        try await app { $0.providers = Self.offline() }.test(.router) { client in
            let response = try await client.execute(uri: "/v1/images?title=Lisbon", method: .get)
            #expect(response.status == .serviceUnavailable && response.headers[.retryAfter] == "30")
            #expect((response.json["detail"] as? String)?.hasPrefix("no image source answered: wikimedia-commons") == true)
        }
    }
}
