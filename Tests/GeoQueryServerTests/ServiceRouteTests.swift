import Foundation
import GeoQueryServer
import GeoQueryWire
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PlaceModel
import ProviderTestSupport
import Providers
import Testing

/// Route, search, weather, the operational routes, the map page and the description.
@Suite(.ownThreads) struct ServiceRouteTests {
    func app(_ adjust: (inout ServiceConfiguration) -> Void = { _ in }) throws -> some ApplicationProtocol {
        try ServerFixture.service(adjust).makeApplication()
    }

    static let json: HTTPFields = [.contentType: "application/json"]

    @Test func routesOrderPlacesPointsAndMatrices() async throws {
        try await app().test(.router) { client in
            let places = try await client.execute(
                uri: "/v1/route?closed=true&start=airport:LFPG", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"places":["airport:LFPG","airport:LFPO","airport:LFPB","geonames:2988507"]}"#)
            ).json
            #expect(places["order"] as? [String] == ["airport:LFPG", "airport:LFPB", "geonames:2988507", "airport:LFPO"])
            #expect(places["proven_optimal"] as? Bool == true && places["closed"] as? Bool == true && places["unit"] as? String == "m")

            let points =
                #"{"type":"FeatureCollection","features":["#
                + [("a", 2.35, 48.85), ("b", 2.29, 48.86), ("c", 2.40, 48.84), ("d", 2.33, 48.87)].map { id, lon, lat in
                    #"{"type":"Feature","id":"\#(id)","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"name":"\#(id)"}}"#
                }.joined(separator: ",") + "]}"
            let geo = try await client.execute(
                uri: "/v1/route?start=a&end=c&format=geojson", method: .post,
                headers: [.contentType: "application/geo+json"], body: ByteBuffer(string: points))
            #expect(geo.status == .ok && geo.headers[.contentType] == "application/geo+json")
            let features = try #require(geo.json["features"] as? [[String: Any]])
            #expect((features.first?["geometry"] as? [String: Any])?["type"] as? String == "LineString")
            #expect(features.count == 5)

            let matrix = try await client.execute(
                uri: "/v1/route?closed=true", method: .post, headers: Self.json,
                body: ByteBuffer(string: #"{"ids":["x","y","z"],"distances":[[0,1,10],[10,0,1],[1,10,0]]}"#)
            ).json
            #expect(matrix["length"] as? Double == 3 && matrix["unit"] as? String == "matrix")
        }
    }

    @Test func routeErrors() async throws {
        try await app {
            $0.maximumBodyBytes = 4096
            $0.maximumRouteStops = 50
        }.test(.router) { client in
            func send(_ query: String, _ body: String, type: String = "application/json") async throws -> TestResponse {
                try await client.execute(uri: "/v1/route" + query, method: .post, headers: [.contentType: type], body: ByteBuffer(string: body))
            }
            let wrongType = try await send("", "{}", type: "text/plain")
            #expect(wrongType.status == .unsupportedMediaType)
            #expect((wrongType.json["detail"] as? String)?.contains("'text/plain' is not accepted") == true)
            let large = try await send("", "[" + String(repeating: "0,", count: 5000) + "0]")
            #expect(large.status == .contentTooLarge && large.headers[.contentType] == "application/problem+json")
            let notJSON = try await send("", "stops please")
            #expect(
                notJSON.status == .unprocessableContent
                    && (notJSON.json["detail"] as? String)?.hasPrefix("request body: expected a JSON object") == true)
            let rows = try await send("", #"{"ids":["a","b"],"distances":[[0,1]]}"#)
            #expect(
                rows.status == .unprocessableContent && rows.json["detail"] as? String == "request body: 2 ids for 1 matrix rows; give one id per row"
            )
            let unknown = try await send("?start=zz", #"{"ids":["a","b"],"distances":[[0,1],[1,0]]}"#)
            #expect(unknown.status == .badRequest && (unknown.json["detail"] as? String)?.hasPrefix("start 'zz' is not one of the 2 stops") == true)
            let missing = try await send("", #"{"places":["airport:LFPG","airport:NOPE"]}"#)
            #expect(missing.status == .unprocessableContent)
            let slow = try await send("?deadline=1h", #"{"ids":["a","b"],"distances":[[0,1],[1,0]]}"#)
            #expect(slow.status == .badRequest && (slow.json["detail"] as? String)?.contains("at most 5.0 seconds") == true)
            let many = try await send("", #"{"places":["# + (0..<60).map { "\"a:\($0)\"" }.joined(separator: ",") + "]}")
            #expect(many.status == .badRequest && (many.json["detail"] as? String) == "60 stops is too many: a route takes at most 50")
            let geojsonMatrix = try await send("?format=geojson", #"{"ids":["a","b"],"distances":[[0,1],[1,0]]}"#)
            #expect(geojsonMatrix.status == .badRequest)
        }
    }

    @Test func searchAsksTheLocalIndexAndSaysWhenNoSourceAnswers() async throws {
        try await app { $0.providers = ProviderSettings(environment: ProviderEnvironment([:])) }.test(.router) { client in
            let local = try await client.execute(
                uri: "/v1/search?lat=43.7396&lon=7.4276&radius=300m&category=food&provider=local&limit=5", method: .get)
            #expect(local.status == .ok)
            let places = try #require(local.json["places"] as? [[String: Any]])
            #expect(
                places.count == 5
                    && places.allSatisfy { ($0["sources"] as? [String])?.first?.hasPrefix("osm:") == true && $0["source"] as? String == "osm-monaco" }
            )
            #expect(((local.json["providers"] as? [String: Any])?["local"] as? [String: Any])?["status"] as? String == "ok")
            let keyless = try await client.execute(uri: "/v1/search?lat=43.7396&lon=7.4276&radius=300m&provider=yelp", method: .get)
            #expect(keyless.status == .serviceUnavailable)
            #expect((keyless.json["detail"] as? String)?.contains("YELP_API_KEY") == true)
            let unknown = try await client.execute(uri: "/v1/search?lat=0&lon=0&radius=1km&provider=bing", method: .get)
            #expect(unknown.status == .badRequest)
        }
    }

    @Test func weatherFromALoopbackOpenMeteo() async throws {
        let server = try await LoopbackServer.start(replies: [.recorded("openmeteo_forecast.json")])
        defer { Task { await server.stop() } }
        let environment = ProviderEnvironment([ProviderEnvironment.baseURLVariable(for: .openMeteo)!: server.baseURL.absoluteString])
        try await app { $0.providers = ProviderSettings(environment: environment, timeout: 30) }.test(.router) { client in
            let response = try await client.execute(uri: "/v1/weather?lat=43.7384&lon=7.4246&days=3", method: .get)
            #expect(response.status == .ok)
            #expect(response.json["provider"] as? String == "open-meteo")
            #expect((response.json["daily"] as? [Any])?.isEmpty == false)
            let keyless = try await client.execute(uri: "/v1/weather?lat=43.7384&lon=7.4246&provider=openweathermap", method: .get)
            #expect(keyless.status == .serviceUnavailable && (keyless.json["detail"] as? String)?.contains("OPENWEATHERMAP_API_KEY") == true)
        }
    }

    /// An index query past the request's time is stopped and answered 503 with Retry-After.
    @Test func queriesPastTheirTimeAre503() async throws {
        try await app { $0.requestTimeout = .zero }.test(.router) { client in
            let response = try await client.execute(uri: "/v1/places/near?lat=0&lon=0&radius=20000km&min_rating=5", method: .get)
            #expect(response.status == .serviceUnavailable && response.headers[.retryAfter] == "1")
            #expect((response.json["detail"] as? String)?.hasPrefix("the query did not finish in the time allowed") == true)
        }
    }

    /// The taxonomy, for an app's category filter: every category a filter accepts, and only those.
    @Test func theCategoriesAreTheTaxonomyEveryFilterAccepts() async throws {
        try await app().test(.router) { client in
            let answer = try await client.execute(uri: "/v1/categories", method: .get)
            #expect(answer.status == .ok && answer.headers[.cacheControl] == "public, max-age=86400")
            let tops = try #require(answer.json["categories"] as? [[String: Any]])
            #expect(tops.compactMap { $0["id"] as? String } == Category.topLevelIdentifiers)
            let water = try #require(tops.first { $0["id"] as? String == "water" })
            let waterSubs = (water["subcategories"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(water["label"] as? String == "Water" && waterSubs.contains("water.beach") && waterSubs.allSatisfy { $0.hasPrefix("water.") })
            let all = tops.flatMap { top in
                [top["id"] as? String ?? ""] + (top["subcategories"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            #expect(answer.json["count"] as? Int == all.count && all.count == Category.taxonomy.count)
            // Each one is a filter the index takes; one letter off is not.
            for id in all {
                let response = try await client.execute(uri: "/v1/places/near?lat=43.73&lon=7.42&radius=1km&limit=1&category=\(id)", method: .get)
                #expect(response.status == .ok, "\(id)")
            }
            let typo = try await client.execute(uri: "/v1/places/near?lat=43.73&lon=7.42&radius=1km&category=water.beech", method: .get)
            #expect(
                typo.status == .badRequest
                    && typo.json["detail"] as? String
                        == "category 'water.beech' is not in the taxonomy: under water there are " + waterSubs.joined(separator: ", ")
            )
            #expect(try await client.execute(uri: "/v1/categories?lang=fr", method: .get).status == .badRequest)
            // A client holding it revalidates by its tag: 304 and no body; another tag gets it again.
            let tag = try #require(answer.headers[.eTag])
            #expect(tag.hasPrefix("\"") && tag.count == 18)
            for held in [tag, "W/" + tag, "\"0000000000000000\", " + tag, "*"] {
                let again = try await client.execute(uri: "/v1/categories", method: .get, headers: [.ifNoneMatch: held])
                #expect(again.status == .notModified && again.body.readableBytes == 0 && again.headers[.eTag] == tag, "\(held)")
            }
            let other = try await client.execute(uri: "/v1/categories", method: .get, headers: [.ifNoneMatch: "\"0000000000000000\""])
            #expect(other.status == .ok && other.body == answer.body)
            let description = try await client.execute(uri: "/openapi.json", method: .get)
            let descriptionTag = try #require(description.headers[.eTag])
            #expect(description.status == .ok && description.headers[.cacheControl] == "no-cache" && descriptionTag != tag)
            #expect(description.body.readableBytes == (try ServiceResources.openAPI()).count)
            let info = (try JSONSerialization.jsonObject(with: Data(description.body.readableBytesView)) as? [String: Any])?["info"] as? [String: Any]
            #expect(info?["version"] as? String == GeoQueryVersion.current, "one version: the description's is the code's")
            let held = try await client.execute(uri: "/openapi.json", method: .get, headers: [.ifNoneMatch: descriptionTag])
            #expect(held.status == .notModified && held.body.readableBytes == 0)
        }
    }

    @Test func unknownRoutesAndMethodsAreProblems() async throws {
        try await app().test(.router) { client in
            let missing = try await client.execute(uri: "/v2/places", method: .get)
            #expect(missing.status == .notFound && missing.headers[.contentType] == "application/problem+json")
            #expect(missing.json["detail"] as? String == "no route GET /v2/places; the API is described at /openapi.json")
            let wrong = try await client.execute(uri: "/v1/places/near", method: .delete)
            #expect(wrong.status == .methodNotAllowed && wrong.headers[.allow] == "GET, HEAD")
            #expect(wrong.json["detail"] as? String == "DELETE is not allowed on /v1/places/near; use GET or HEAD")
            let post = try await client.execute(uri: "/v1/route", method: .get)
            #expect(post.status == .methodNotAllowed && post.headers[.allow] == "POST")
        }
    }

    /// HEAD answers as GET does, with its headers and no body; a route without GET has no HEAD.
    @Test func headAnswersAsGetWithoutTheBody() async throws {
        try await app().test(.router) { client in
            let uri = "/v1/places/near?lat=48.8584&lon=2.2945&radius=5km&limit=3"
            let get = try await client.execute(uri: uri, method: .get)
            let head = try await client.execute(uri: uri, method: .head)
            #expect(get.status == .ok && head.status == .ok)
            #expect(head.body.readableBytes == 0 && get.body.readableBytes > 0)
            #expect(head.headers[.contentLength] == String(get.body.readableBytes))
            #expect(
                head.headers[.contentType] == "application/json" && head.headers[HTTPField.Name("Link")!] == get.headers[HTTPField.Name("Link")!]
                    && get.headers[HTTPField.Name("Link")!] != nil)
            let health = try await client.execute(uri: "/healthz", method: .head)
            #expect(health.status == .ok && health.body.readableBytes == 0)
            let bad = try await client.execute(uri: "/v1/places/near?lat=91&lon=0&radius=1km", method: .head)
            #expect(bad.status == .badRequest && bad.body.readableBytes == 0)
            let route = try await client.execute(uri: "/v1/route", method: .head)
            #expect(route.status == .methodNotAllowed && route.headers[.allow] == "POST")
        }
    }

    @Test func healthMetricsAndTheMapPage() async throws {
        try await app().test(.router) { client in
            let health = try await client.execute(uri: "/healthz", method: .get).json
            #expect(health["status"] as? String == "ok" && (health["places"] as? Int ?? 0) > 60_000)
            _ = try await client.execute(uri: "/v1/places/near?lat=1&lon=1&radius=1km", method: .get)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains(#"geoquery_http_request_duration_seconds_bucket{route="/v1/places/near""#))
            #expect(metrics.text.contains("# HELP geoquery_index_places "), "every metric has its HELP line")
            #expect(metrics.text.contains("# TYPE geoquery_http_requests_total counter"))
            #expect(metrics.text.contains("# HELP geoquery_http_request_duration_seconds "))
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("/leaflet/leaflet.js") && page.text.contains("tile.openstreetmap.org") && !page.text.contains("{{SETTINGS}}"))
            let leaflet = try await client.execute(uri: "/leaflet/leaflet.js", method: .get)
            #expect(leaflet.status == .ok && leaflet.text.contains("Leaflet"), "Debian's libjs-leaflet must be installed (make deps)")
            let icon = try await client.execute(uri: "/leaflet/images/marker-icon.png", method: .get)
            #expect(icon.status == .ok && icon.headers[.contentType] == "image/png")
            for sneaky in ["/leaflet/..%2F..%2F..%2Fetc%2Fpasswd", "/leaflet/.hidden", "/leaflet/images/..%2Fleaflet.js"] {
                let response = try await client.execute(uri: sneaky, method: .get)
                #expect(response.status == .notFound, "\(sneaky)")
            }
        }
    }

    /// The request metrics count each route, method and status, and time it; a request the
    /// route refuses counts under its status; a method a path does not have (405) counts under
    /// the path's template, and a path no route has under `unmatched`, never the raw path.
    /// (The registry is the process's, and other tests run at once, so counts are compared as
    /// at least one more.)
    @Test func requestMetricsCountEachRouteAndStatus() async throws {
        @Sendable func count(_ text: String, _ labels: String) -> Int {
            let prefix = "geoquery_http_requests_total{\(labels)} "
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
            return Int(Double(line.dropFirst(prefix.count)) ?? 0)
        }
        let refused = #"route="/v1/places/nearest",method="GET",status="400""#
        let answered = #"route="/v1/places/nearest",method="GET",status="200""#
        let wrongMethod = #"route="/v1/places/{id}",method="DELETE",status="405""#
        let nowhere = #"route="unmatched",method="GET",status="404""#
        try await app().test(.router) { client in
            let before = try await client.execute(uri: "/metrics", method: .get).text
            let bad = try await client.execute(uri: "/v1/places/nearest?lat=1&lon=1&k=zero", method: .get)
            #expect(bad.status == .badRequest)
            let good = try await client.execute(uri: "/v1/places/nearest?lat=48.8584&lon=2.2945&k=3", method: .get)
            #expect(good.status == .ok)
            #expect(try await client.execute(uri: "/v1/places/airport:LFPG", method: .delete).status == .methodNotAllowed)
            #expect(try await client.execute(uri: "/v1/no-such-route/12345", method: .get).status == .notFound)
            let after = try await client.execute(uri: "/metrics", method: .get).text
            #expect(count(after, refused) >= count(before, refused) + 1, "\(after)")
            #expect(count(after, answered) >= count(before, answered) + 1)
            #expect(count(after, wrongMethod) >= count(before, wrongMethod) + 1, "a 405 is labelled with its path's template")
            #expect(count(after, nowhere) >= count(before, nowhere) + 1)
            #expect(!after.contains("no-such-route") && !after.contains("NotFound"), "no raw path and no NotFound label")
            #expect(after.contains(#"geoquery_http_request_duration_seconds_count{\#(answered)}"#))
            #expect(after.contains(#"geoquery_http_active_requests{method="GET"}"#))
        }
    }

    /// Every route of the service is in the committed description with the same method, and the
    /// description names no route the service lacks.
    @Test func theDescriptionAndTheRoutesAgree() throws {
        let (_, table) = try ServerFixture.service().makeRouter()
        let document = try #require(try JSONSerialization.jsonObject(with: Data(try ServiceResources.openAPI())) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let described = Set(
            paths.flatMap { path, operations in
                operations.keys.filter { ["get", "post", "put", "patch", "delete"].contains($0) }.map { "\($0.uppercased()) \(path)" }
            })
        let served = Set(table.entries.map { "\($0.method.rawValue) \($0.path)" })
        #expect(served.subtracting(described).isEmpty, "routes missing from openapi.json: \(served.subtracting(described).sorted())")
        #expect(described.subtracting(served).isEmpty, "described but not served: \(described.subtracting(served).sorted())")
        // Every query parameter a route reads is described (the handlers refuse unknown ones).
        let near = try #require((paths["/v1/places/near"]?["get"] as? [String: Any])?["parameters"] as? [[String: Any]])
        #expect(
            Set(near.compactMap { $0["name"] as? String })
                == Set(["lat", "lon", "radius", "region", "limit", "cursor", "format"] + GeoQueryService.filterParameters))
        // The categories a request may name are the taxonomy, no more and no fewer.
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let categoryEnum = try #require((schemas["Category"] as? [String: Any])?["enum"] as? [String])
        #expect(categoryEnum == Category.taxonomy.map(\.identifier))
    }

    /// The names docs/api-conventions.md decides, over every schema and parameter of the
    /// description (which schemathesis holds the answers to): snake_case everywhere, `time_zone`
    /// and never `timezone`, `country_code`/`country_name` and never a bare `country` member.
    @Test func everyNameInTheDescriptionFollowsTheConventions() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(try ServiceResources.openAPI())) as? [String: Any])
        var members: [(name: String, at: String)] = []
        func walk(_ value: Any, at path: String) {
            if let object = value as? [String: Any] {
                if let properties = object["properties"] as? [String: Any] {
                    members += properties.keys.map { ($0, path) }
                }
                for (key, child) in object { walk(child, at: path + "/" + key) }
            } else if let array = value as? [Any] {
                for child in array { walk(child, at: path) }
            }
        }
        walk(document, at: "")
        #expect(members.count > 300, "the walk reached the schemas")
        func isSnakeCase(_ name: String) -> Bool {
            guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
            return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        }
        for member in members {
            #expect(isSnakeCase(member.name), "\(member.name) at \(member.at)")
            #expect(!["timezone", "country", "timeZone", "countryCode"].contains(member.name), "\(member.name) at \(member.at)")
        }
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for (path, operations) in paths {
            for case let (method, operation as [String: Any]) in operations {
                for parameter in operation["parameters"] as? [[String: Any]] ?? [] where parameter["in"] as? String == "query" {
                    let name = parameter["name"] as? String ?? ""
                    #expect(isSnakeCase(name), "\(method) \(path): query parameter \(name)")
                }
            }
        }
    }

    /// The committed description is what `scripts/make_openapi.py` writes: an edit of the JSON
    /// alone would be lost the next time the script runs.
    @Test func theCommittedDescriptionIsTheScriptsOutput() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [repositoryRoot.appendingPathComponent("scripts/make_openapi.py").path, output.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let committed = try Data(contentsOf: repositoryRoot.appendingPathComponent("Sources/GeoQueryServer/Resources/openapi.json"))
        #expect(try Data(contentsOf: output) == committed, "run scripts/make_openapi.py and commit its output")
    }
}
