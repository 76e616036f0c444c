import Foundation
import ProviderTestSupport
import Testing

/// `geoquery search` and `geoquery weather` against real loopback servers playing providers.
@Suite(.waitsOnProcesses) struct ProviderCLITests {
    /// Runs the CLI off the cooperative pool, so that the in-process servers keep answering.
    func run(_ arguments: [String], environment: [String: String]) async throws -> CLI.Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try CLI.run(arguments, environment: environment) })
            }
        }
    }

    /// No provider key from the machine running the tests leaks in.
    static let clean: [String: String] = [
        "GOOGLE_PLACES_API_KEY": "", "YELP_API_KEY": "", "FOURSQUARE_API_KEY": "", "HERE_API_KEY": "",
        "OPENWEATHERMAP_API_KEY": "", "PIRATEWEATHER_API_KEY": "",
    ]

    @Test func searchMergesProvidersAndReportsEachStatus() async throws {
        let yelp = try await LoopbackServer.start(replies: [.recorded("yelp_search.json")])
        let foursquare = try await LoopbackServer.start(replies: [.recorded("foursquare_places_page1.json")])
        defer {
            Task {
                await yelp.stop()
                await foursquare.stop()
            }
        }
        var environment = Self.clean
        environment["YELP_API_KEY"] = "yelp-key"
        environment["FOURSQUARE_API_KEY"] = "fsq-key"
        environment["GEOQUERY_YELP_BASE_URL"] = yelp.baseURL.absoluteString
        environment["GEOQUERY_FOURSQUARE_BASE_URL"] = foursquare.baseURL.absoluteString
        let result = try await run(
            [
                "search", "--lat", "37.7825", "--lon", "-122.4075", "--radius", "300m", "--query", "coffee",
                "--provider", "google,yelp", "--provider", "foursquare", "--format", "json",
                // The loopback servers run in this test process, which a loaded 2-core run can
                // hold up for longer than the default 8 s.
                "--deadline", "30s",
            ], environment: environment)
        #expect(result.status == 0, "two of three answered: \(result.stderr)")
        #expect(result.stderr.contains("GOOGLE_PLACES_API_KEY"), "the missing key is named on stderr")
        let json = result.json
        let providers = try #require(json["providers"] as? [String: [String: Any]])
        #expect(providers["google"]?["status"] as? String == "failed")
        #expect((providers["google"]?["error"] as? String)?.contains("GOOGLE_PLACES_API_KEY") == true)
        #expect(providers["yelp"]?["status"] as? String == "ok" && providers["yelp"]?["count"] as? Int == 2)
        #expect(providers["foursquare"]?["count"] as? Int == 2)
        let places = try #require(json["places"] as? [[String: Any]])
        #expect(json["count"] as? Int == places.count)
        #expect(places.count == 3, "Blue Bottle once, Chez Papa, Philz")
        let cafe = try #require(places.first { $0["name"] as? String == "Blue Bottle Coffee" })
        #expect(cafe["sources"] as? [String] == ["yelp:WavvLdfdP6g8aZTtbBQHTw", "foursquare:4b5a7b2cf964a520c0c128e3"])
        #expect((cafe["field_sources"] as? [String: String])?["website"] == "foursquare")
        #expect(cafe["open_now"] as? Bool == true && cafe["business_status"] as? String == "operational")
        for key in ["id", "name", "lat", "lon", "distance_m", "categories", "source"] { #expect(cafe[key] != nil, "near's members: \(key)") }
        let query = try #require(json["query"] as? [String: Any])
        #expect(query["kind"] as? String == "search" && query["radius_m"] as? Double == 300 && query["query"] as? String == "coffee")
        #expect(await yelp.requests.first?.headers["authorization"] == "Bearer yelp-key")
    }

    @Test func geojsonAnswersAndRetriesAreLoggedWithoutTheKey() async throws {
        let here = try await LoopbackServer.start(replies: [
            .json(#"{"status":503,"title":"Service Unavailable"}"#, status: 503),
            .recorded("here_browse.json"),
        ])
        defer { Task { await here.stop() } }
        var environment = Self.clean
        environment["HERE_API_KEY"] = "here-secret-99"
        environment["GEOQUERY_HERE_BASE_URL"] = here.baseURL.absoluteString
        environment["GEOQUERY_LOG_LEVEL"] = "info"
        let result = try await run(
            [
                "search", "--lat", "37.7825", "--lon", "-122.4075", "--radius", "500m", "--category", "lodging",
                "--provider", "here", "--format", "geojson", "--deadline", "30s",
            ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 503; retry 1"), "the retry is logged")
        #expect(!result.stderr.contains("here-secret-99") && !result.stdout.contains("here-secret-99"))
        let sent = await here.requests
        #expect(sent.count == 2 && sent[0].query["categories"]?.hasPrefix("500-") == true)
        let json = result.json
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(features.count == 2, "browse filters on HERE's side; the recording answers as recorded")
        let geometry = try #require(features.last?["geometry"] as? [String: Any])
        #expect(geometry["coordinates"] as? [Double] == [-122.4064, 37.783], "longitude first (RFC 7946)")
        #expect((features.last?["properties"] as? [String: Any])?["sources"] as? [String] == ["here:here:pds:place:840jx7ps-hotelzetta"])
        #expect((json["providers"] as? [String: Any])?["here"] != nil)
    }

    @Test func everySourceFailingIsExit69() async throws {
        let result = try await run(
            [
                "search", "--lat", "37.7825", "--lon", "-122.4075", "--radius", "1km", "--provider", "yelp,here",
                "--format", "json",
            ], environment: Self.clean)
        #expect(result.status == 69)
        #expect(result.stderr.contains("YELP_API_KEY") && result.stderr.contains("HERE_API_KEY"))
    }

    @Test func badSearchOptionsAreExit64() async throws {
        let unknown = try await run(["search", "--lat", "1", "--lon", "2", "--radius", "1km", "--provider", "bing"], environment: Self.clean)
        #expect(unknown.status == 64 && unknown.stderr.contains("bing"))
        let deadline = try await run(["search", "--lat", "1", "--lon", "2", "--radius", "1km", "--deadline", "soon"], environment: Self.clean)
        #expect(deadline.status == 64 && deadline.stderr.contains("soon"))
    }

    @Test func weatherAsJSONStatesItsUnits() async throws {
        let meteo = try await LoopbackServer.start(replies: [.recorded("openmeteo_forecast.json")])
        defer { Task { await meteo.stop() } }
        var environment = Self.clean
        environment["GEOQUERY_OPENMETEO_BASE_URL"] = meteo.baseURL.absoluteString
        let result = try await run(["weather", "--lat", "43.7384", "--lon", "7.4246", "--days", "3", "--format", "json"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let json = result.json
        #expect(json["provider"] as? String == "open-meteo")
        #expect((json["units"] as? [String: String])?["temperature"] == "°C")
        #expect((json["current"] as? [String: Any])?["condition"] as? String == "partly_cloudy")
        let daily = try #require(json["daily"] as? [[String: Any]])
        #expect(daily.map { $0["date"] as? String } == ["2026-11-22", "2026-11-23", "2026-11-24"])
        #expect(daily[2]["condition"] as? String == "thunderstorm" && daily[2]["max"] as? Double == 12)
        #expect((json["attribution"] as? String)?.contains("Open-Meteo") == true)
        let table = try await run(["weather", "--lat", "43.7384", "--lon", "7.4246", "--format", "table"], environment: environment)
        #expect(table.stdout.contains("Moderate rain") && table.stdout.contains("15.3 °C"))
    }

    @Test func weatherFailuresAreExit64Or69() async throws {
        let noKey = try await run(["weather", "--lat", "1", "--lon", "2", "--provider", "openweathermap"], environment: Self.clean)
        #expect(noKey.status == 64 && noKey.stderr.contains("OPENWEATHERMAP_API_KEY"))
        let down = try await LoopbackServer.start(replies: [.json(#"{"error":true,"reason":"overloaded"}"#, status: 503)])
        defer { Task { await down.stop() } }
        var environment = Self.clean
        environment["GEOQUERY_OPENMETEO_BASE_URL"] = down.baseURL.absoluteString
        let failed = try await run(["weather", "--lat", "1", "--lon", "2"], environment: environment)
        #expect(failed.status == 69 && failed.stderr.contains("overloaded"))
        let badDays = try await run(["weather", "--lat", "1", "--lon", "2", "--days", "30"], environment: Self.clean)
        #expect(badDays.status == 64 && badDays.stderr.contains("--days 30"))
    }
}
