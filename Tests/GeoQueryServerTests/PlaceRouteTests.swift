import Discovery
import Foundation
import GeoCore
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlaceModel
import PlaceQuery
import PlaceStore
import Regions
import Testing

/// The place routes in-process, on the real index of the shipped data.
@Suite struct PlaceRouteTests {
    func app() throws -> some ApplicationProtocol { try ServerFixture.service().makeApplication() }

    @Test func nearAnswersTheCLIContractWithALinkToTheNextPage() async throws {
        try await app().test(.router) { client in
            let response = try await client.execute(uri: "/v1/places/near?lat=48.8584&lon=2.2945&radius=20mi&limit=5", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let json = response.json
            let places = try #require(json["places"] as? [[String: Any]])
            #expect(places.count == 5 && json["count"] as? Int == 5)
            #expect(places.first?["id"] as? String == "geonames:2988394")  // Paris 16 Passy, 1.42 km (README)
            let distances = places.compactMap { $0["distance_m"] as? Double }
            #expect(distances == distances.sorted() && distances.count == 5)
            let query = try #require(json["query"] as? [String: Any])
            #expect(query["kind"] as? String == "near" && query["radius_m"] as? Double == 32186.88 && query["limit"] as? Int == 5)
            let cursor = try #require(json["next_cursor"] as? String)
            let link = try #require(response.headers[HTTPField.Name("Link")!])
            #expect(link.hasPrefix("</v1/places/near?") && link.contains("cursor=\(cursor)") && link.hasSuffix(">; rel=\"next\""))

            // Following the Link gives the next five, then every page joined equals one big page.
            let next = String(link.dropFirst().prefix { $0 != ">" })
            let second = try await client.execute(uri: next, method: .get).json
            let secondIDs = (second["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            let whole = try await client.execute(uri: "/v1/places/near?lat=48.8584&lon=2.2945&radius=20mi&limit=10", method: .get).json
            let wholeIDs = (whole["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(places.compactMap { $0["id"] as? String } + secondIDs == wholeIDs)
        }
    }

    @Test func aPlanetSizedRadiusPagesInsteadOfBuildingAHugeAnswer() async throws {
        try await app().test(.router) { client in
            let response = try await client.execute(uri: "/v1/places/near?lat=0&lon=0&radius=1e308ft&limit=500", method: .get)
            #expect(response.status == .ok)
            #expect((response.json["places"] as? [Any])?.count == 500)
            #expect(response.json["next_cursor"] is String)
        }
    }

    @Test func geoJSONAndCSVFormats() async throws {
        try await app().test(.router) { client in
            let geo = try await client.execute(
                uri: "/v1/places/near?lat=43.7396&lon=7.4276&radius=300m&category=food&limit=3&format=geojson", method: .get)
            #expect(geo.headers[.contentType] == "application/geo+json")
            let features = try #require(geo.json["features"] as? [[String: Any]])
            #expect(features.count == 3)
            let coordinates = (features[0]["geometry"] as? [String: Any])?["coordinates"] as? [Double]
            #expect(coordinates.map { $0[0] > 7 && $0[1] > 43 } == true, "longitude first")
            let csv = try await client.execute(
                uri: "/v1/places/near?lat=43.7396&lon=7.4276&radius=300m&category=food&limit=3&format=csv", method: .get)
            #expect(csv.text.hasPrefix("id,name,lat,lon,distance_m,categories,source\n"))
            #expect(csv.text.split(separator: "\n").count == 4)
        }
    }

    @Test func badInputIsAProblemNamingTheValue() async throws {
        let cases: [(String, String)] = [
            ("/v1/places/near?lat=91&lon=0&radius=1km", "latitude 91.0 is invalid: it must be a number from -90 to 90"),
            ("/v1/places/near?lat=48&lon=2", "query parameter 'radius' is required"),
            ("/v1/places/near?lat=48&lon=2&radius=5 parsecs", "radius:"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&limit=501", "limit '501' is invalid: it must be a whole number from 1 to 500"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&limit=all", "limit 'all' is invalid"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&radus=2", "unknown query parameter 'radus'"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&category=foood", "category 'foood' is not in the taxonomy: the top levels are food, drink, "),
            (
                "/v1/places/near?lat=48&lon=2&radius=1km&category=food.ramen",
                "category 'food.ramen' is not in the taxonomy: under food there are food.bakery, food.cafe, "
            ),
            ("/v1/search?lat=48&lon=2&radius=1km&category=Food", "category 'Food' is not in the taxonomy: did you mean food? "),
            ("/v1/discover/popular?category=food.nope", "category 'food.nope' is not in the taxonomy: under food there are "),
            ("/v1/places/near?lat=1e400&lon=2&radius=1km", "lat '1e400' is not a finite number, e.g. lat="),
            ("/v1/places/near?lat=north&lon=2&radius=1km", "lat 'north' is not a number, e.g. lat="),
            ("/v1/places/near?lat=48&lon=2&radius=nope", "radius: distance 'nope' is invalid: it has no number; write a number and a unit"),
            ("/v1/places/bbox?bbox=1,,3,4", "the south edge is missing; expected four numbers W,S,E,N"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&min_rating=7", "min_rating 7.0 is invalid: it must be from 0 to 5"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&price=5", "price '5' is invalid"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&country=FRA", "country 'FRA' is invalid: give an ISO 3166-1 alpha-2 country code"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&country=QQ", "country 'QQ' is invalid"),
            ("/v1/places/bbox?bbox=1,2,3,4&continent=Atlantis", "continent 'Atlantis' is invalid: give one of AF, AN, AS, EU, NA, OC, SA"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&open_now=maybe", "open_now 'maybe' is invalid: give true or false"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&open_at=tomorrow", "open_at 'tomorrow' is invalid: give a time with its offset"),
            ("/v1/places/nearest?lat=48&lon=2&open_now=true&open_at=2026-11-23T10:00:00Z", "open_now and open_at are both given"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&cursor=garbage", "cursor 'garbage' is invalid"),
            ("/v1/places/near?lat=48&lon=2&lat=3&radius=1km", "query parameter 'lat' is given 2 times"),
            ("/v1/places/near?lat=48&lon=2&radius=1km&format=xml", "format 'xml' is invalid: use json, geojson or csv"),
            ("/v1/places/bbox?bbox=1,2,3", "bbox:"),
            ("/v1/places/nearest?lat=0&lon=0&k=501", "k '501' is invalid: it must be a whole number from 1 to 500"),
            ("/v1/places/nearest?lat=0&lon=0&max_distance=-3km", "max_distance:"),
            ("/v1/places/no-colon", "no-colon"),
            ("/v1/cities?q=", "query parameter 'q' is required"),
            ("/v1/cities?q=par&continent=XX", "continent 'XX' is invalid"),
            ("/v1/cities?q=" + String(repeating: "a", count: 101), "q is 101 characters long; give at most 100"),
            ("/v1/cities?q=par&country=France", "country 'FRANCE' is invalid"),
            ("/v1/airports/near?lat=0&lon=0&k=0", "k '0' is invalid"),
            ("/v1/where?lat=48&lon=2&radius=600km", "radius 600 km is too large for a city lookup: give at most 500 km"),
            ("/v1/where?lat=48&lon=2&radius=22.08e52+", "radius 2.208e+50 km is too large"),  // once a crash (Int of 2e50)
            ("/v1/where?lat=48&lon=2&radius=500.5km", "radius 500.5 km is too large"),
            ("/v1/where?lat=48&lon=2&limit=51", "limit '51' is invalid: it must be a whole number from 1 to 50"),
            ("/v1/where?lat=91&lon=2", "latitude 91.0 is invalid"),
            ("/v1/where?lat=48&lon=2&radius=-1km", "radius:"),
        ]
        try await app().test(.router) { client in
            for (uri, sentence) in cases {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .badRequest, "\(uri)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(uri)")
                let detail = response.json["detail"] as? String ?? ""
                #expect(detail.contains(sentence), "\(uri): \(detail)")
                #expect(response.json["status"] as? Int == 400 && response.json["title"] as? String == "Bad Request")
            }
        }
    }

    /// Query strings are form-encoded: `+` is a space; an empty optional value is absent; a
    /// percent-encoded id in the path is decoded.
    @Test func queryStringsAndPathsDecodeAsBrowsersEncode() async throws {
        try await app().test(.router) { client in
            let plus = try await client.execute(uri: "/v1/cities?q=sao+paul&limit=1", method: .get).json
            #expect(((plus["cities"] as? [[String: Any]])?.first?["name"] as? String) == "São Paulo")
            let empty = try await client.execute(
                uri: "/v1/places/near?lat=48.8584&lon=2.2945&radius=1km&cursor=&source=&format=&limit=", method: .get)
            #expect(empty.status == .ok && (empty.json["query"] as? [String: Any])?["limit"] as? Int == 50)
            let encoded = try await client.execute(uri: "/v1/places/airport%3ALFPG", method: .get)
            #expect(encoded.status == .ok)
            let spaced = try await client.execute(uri: "/v1/places/near?lat=48.8584&lon=2.2945&radius=1+km", method: .get)
            #expect(spaced.status == .ok)
        }
    }

    @Test func aCursorOfAnotherQueryIsRefused() async throws {
        try await app().test(.router) { client in
            let first = try await client.execute(uri: "/v1/places/near?lat=48.8584&lon=2.2945&radius=20mi&limit=2", method: .get).json
            let cursor = try #require(first["next_cursor"] as? String)
            let other = try await client.execute(uri: "/v1/places/near?lat=48.8584&lon=2.2945&radius=10mi&limit=2&cursor=\(cursor)", method: .get)
            #expect(other.status == .badRequest)
            #expect((other.json["detail"] as? String)?.contains("it belongs to a different query") == true)
        }
    }

    @Test func boxesCrossTheAntimeridian() async throws {
        try await app().test(.router) { client in
            let json = try await client.execute(uri: "/v1/places/bbox?bbox=178,-20,-178,-15&category=city", method: .get).json
            let ids = (json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(Set(ids) == ["geonames:2198148", "geonames:2204575", "geonames:2204582", "geonames:8740209"])  // Suva, Lami, Labasa, Nasinu
            #expect(ids == ids.sorted())
        }
    }

    @Test func nearestAndPlaceByID() async throws {
        try await app().test(.router) { client in
            let nearest = try await client.execute(uri: "/v1/places/nearest?lat=37.7749&lon=-122.4194&k=3&category=transport.airport", method: .get)
                .json
            #expect((nearest["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["airport:KSFO", "airport:KOAK", "airport:CA35"])
            let place = try await client.execute(uri: "/v1/places/airport:LFPG", method: .get)
            #expect(place.status == .ok)
            let first = (place.json["places"] as? [[String: Any]])?.first
            #expect(first?["name"] as? String == "Charles de Gaulle International Airport")
            #expect((first?["tags"] as? [String: String])?["iata"] == "CDG")
            let missing = try await client.execute(uri: "/v1/places/airport:NOPE", method: .get)
            #expect(missing.status == .notFound && missing.json["detail"] as? String == "no place with id airport:NOPE")
        }
    }

    @Test func citiesAutocompleteIgnoresCaseAndAccentsAndRanksByPopulation() async throws {
        try await app().test(.router) { client in
            let sao = try await client.execute(uri: "/v1/cities?q=sao%20paul&limit=3", method: .get).json
            let first = try #require((sao["cities"] as? [[String: Any]])?.first)
            #expect(first["name"] as? String == "São Paulo")
            #expect(first["country_name"] as? String == "Brazil" && first["continent"] as? String == "SA" && first["country_code"] as? String == "BR")
            let zurich = try await client.execute(uri: "/v1/cities?q=ZURI", method: .get).json
            #expect(((zurich["cities"] as? [[String: Any]])?.first?["name"] as? String) == "Zürich")
            let par = try await client.execute(uri: "/v1/cities?q=par&limit=10", method: .get).json
            let cities = try #require(par["cities"] as? [[String: Any]])
            #expect(cities.first?["name"] as? String == "Paris")
            let populations = cities.compactMap { $0["population"] as? Int }
            #expect(populations == populations.sorted(by: >), "names starting with the text, by population")
            let europe = try await client.execute(uri: "/v1/cities?q=san&continent=EU&limit=50", method: .get).json
            let continents = (europe["cities"] as? [[String: Any]])?.compactMap { $0["continent"] as? String } ?? []
            #expect(!continents.isEmpty && continents.allSatisfy { $0 == "EU" })
            let namibia = try await client.execute(uri: "/v1/cities?q=wind&country=NA", method: .get).json
            #expect((namibia["cities"] as? [[String: Any]])?.first?["name"] as? String == "Windhoek", "NA is Namibia, not a missing value")
        }
    }

    /// `GET /v1/where`: the country, continent and time zone of a point, the city it is near
    /// (Paris, not the district 1.4 km away) and the cities in reach nearest first; across the
    /// antimeridian, at sea and at the poles.
    @Test func whereSaysTheCountryAndTheCityAPointIsNear() async throws {
        try await app().test(.router) { client in
            let eiffel = try await client.execute(uri: "/v1/where?lat=48.8584&lon=2.2945", method: .get)
            #expect(eiffel.status == .ok)
            let json = eiffel.json
            #expect(json["country_code"] as? String == "FR" && json["country_name"] as? String == "France")
            #expect(json["continent"] as? String == "EU" && json["time_zone"] as? String == "Europe/Paris")
            let city = try #require(json["city"] as? [String: Any])
            #expect(city["id"] as? String == "geonames:2988507" && city["name"] as? String == "Paris")
            let paris = try #require(city["distance_m"] as? Double)
            #expect(abs(paris - 4_023.132) < 0.01, "the Eiffel Tower is 4.0 km from Paris's GeoNames point: \(paris)")
            let cities = try #require(json["cities"] as? [[String: Any]])
            #expect(cities.count == 5 && cities.first?["name"] as? String == "Paris 16 Passy")
            let distances = cities.compactMap { $0["distance_m"] as? Double }
            #expect(distances.count == 5 && distances == distances.sorted() && distances.allSatisfy { $0 <= 50_000 })
            let query = try #require(json["query"] as? [String: Any])
            #expect(query["kind"] as? String == "where" && query["radius_m"] as? Double == 50_000 && query["limit"] as? Int == 5)

            // Labasa lies west of the antimeridian, the point east of it: 78–80 km either side.
            for (longitude, expected) in [(-179.99, 79_945.0), (179.99, 78_115.0)] {
                let fiji = try await client.execute(uri: "/v1/where?lat=-16.8&lon=\(longitude)&radius=200km&limit=3", method: .get).json
                let near = (fiji["cities"] as? [[String: Any]]) ?? []
                #expect(near.map { $0["name"] as? String } == ["Labasa"], "\(longitude)")
                #expect(abs((near.first?["distance_m"] as? Double ?? 0) - expected) < 1, "\(longitude)")
                #expect(near.first?["country_name"] as? String == "Fiji")
            }
            for (uri, country) in [
                ("/v1/where?lat=30&lon=-40", nil), ("/v1/where?lat=90&lon=0&radius=500km", nil),
                ("/v1/where?lat=-90&lon=0&radius=500km", "AQ" as String?),
            ] {
                let far = try await client.execute(uri: uri, method: .get)
                #expect(far.status == .ok, "\(uri)")
                #expect(far.json["city"] is NSNull && (far.json["cities"] as? [Any])?.isEmpty == true, "\(uri)")
                #expect(far.json["country_code"] as? String == country, "\(uri)")
            }
            // Monaco's OpenStreetMap city node names no country or time zone in its tags: the
            // ones decided at import are shown.
            let monaco = try await client.execute(uri: "/v1/where?lat=43.7311&lon=7.4197&radius=1km", method: .get).json
            let osmMonaco = (monaco["cities"] as? [[String: Any]])?.first { $0["id"] as? String == "osm:n1790048269" }
            #expect(osmMonaco?["country_code"] as? String == "MC" && osmMonaco?["country_name"] as? String == "Monaco", "\(monaco)")
            #expect(osmMonaco?["continent"] as? String == "EU" && osmMonaco?["time_zone"] as? String == "Europe/Monaco")
            let zero = try await client.execute(uri: "/v1/where?lat=40.71427&lon=-74.00597&radius=0m", method: .get).json
            #expect((zero["cities"] as? [[String: Any]])?.map { $0["name"] as? String } == ["New York City"], "a city exactly on the point is in")
        }
    }

    /// The in-memory cities `GET /v1/where` reads answer as the index does: the same cities at
    /// the same distances in the same order, for random points and radii, across the
    /// antimeridian, at the poles and at radius zero.
    @Test func nearbyCitiesAnswerAsTheIndex() async throws {
        let store = try ServerFixture.shared.get().store
        let filter = PlaceFilter(categories: [.city])
        let all = try await store.within(.world, filter: filter, limit: nil, cursor: nil).matches.map(\.place)
        let nearby = NearbyCities(all)
        #expect(nearby.count == all.count && nearby.count > 34_000, "the GeoNames cities and Monaco")
        var random = SplitMix64(seed: 42)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var cases: [(Coordinate, Distance)] = [
            (try Coordinate(latitude: -16.8, longitude: -179.99), Distance(uncheckedMeters: 500_000)),
            (try Coordinate(latitude: -16.8, longitude: 179.99), Distance(uncheckedMeters: 500_000)),
            (try Coordinate(latitude: 90, longitude: 0), Distance(uncheckedMeters: 500_000)),
            (try Coordinate(latitude: -90, longitude: 0), Distance(uncheckedMeters: 500_000)),
            (try Coordinate(latitude: 78.22, longitude: 15.65), Distance(uncheckedMeters: 300_000)),  // Longyearbyen
            (try Coordinate(latitude: 40.71427, longitude: -74.00597), Distance(uncheckedMeters: 0)),
        ]
        for _ in 0..<300 {
            cases.append((try Coordinate(latitude: unit() * 180 - 90, longitude: unit() * 360 - 180), Distance(uncheckedMeters: unit() * 500_000)))
        }
        // Points near cities, where most lookups are.
        for _ in 0..<200 {
            let city = all[Int(random.next() % UInt64(all.count))].coordinate
            cases.append(
                (
                    try Coordinate(
                        latitude: max(-90, min(90, city.latitude + unit() - 0.5)),
                        longitude: Coordinate.normalizedLongitude(city.longitude + unit() - 0.5)),
                    Distance(uncheckedMeters: unit() * 100_000)
                ))
        }
        var found = 0
        for (center, radius) in cases {
            let expected = try await store.nearest(center, count: 50, maxDistance: radius, filter: filter)
            let answer = nearby.nearest(center, count: 50, within: radius)
            #expect(answer.map(\.place.id) == expected.map(\.place.id), "\(center) \(radius)")
            #expect(answer.map { $0.distance?.meters } == expected.map { $0.distance?.meters }, "\(center) \(radius)")
            found += answer.count
        }
        #expect(found > 2_000, "the cases found cities: \(found)")

        // Whereabouts asks an index as the CLI does, or the cities in memory as the service does: the same answer.
        let regions = try ServerFixture.regions.get()
        for (center, radius) in cases.prefix(40) {
            let fromIndex = try await Whereabouts.find(
                at: center, within: radius, cityCount: 5, index: store, regions: regions,
                countries: CountryTable())
            let fromMemory = try await Whereabouts.find(
                at: center, within: radius, cityCount: 5, regions: regions,
                countries: CountryTable()
            ) { center, count, radius, _ in nearby.nearest(center, count: count, within: radius) }
            #expect(
                fromIndex.cities.map(\.place.id) == fromMemory.cities.map(\.place.id) && fromIndex.city?.place.id == fromMemory.city?.place.id
                    && fromIndex.region == fromMemory.region && fromIndex.timeZone == fromMemory.timeZone, "\(center) \(radius)")
        }
    }

    /// A city imported after the service started is found once the in-memory list is rebuilt.
    @Test func citiesImportedLaterAreFound() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-cities-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.sqlite").path
        let writer = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
        @Sendable func city(_ id: String, _ name: String) throws -> Place {
            var place = try Place(
                id: PlaceID(id), name: name, coordinate: Coordinate(latitude: 35.14, longitude: -116.1), categories: [Category("city")])
            place.tags["population"] = "1000"
            return place
        }
        try writer.upsert([try city("t:1", "Barstow")])
        var configuration = ServiceConfiguration()
        configuration.cityDirectoryRefresh = .zero
        configuration.requestTimeout = .seconds(180)
        let service = GeoQueryService(index: try SpatiaLitePlaceStore(path: path), configuration: configuration)
        try await service.makeApplication().test(.router) { client in
            #expect((try await client.execute(uri: "/v1/cities?q=zzy", method: .get).json["count"] as? Int) == 0)
            try writer.upsert([try city("t:2", "Zzyzx")])
            var found = false
            let deadline = ContinuousClock.now + .seconds(120)
            while !found && ContinuousClock.now < deadline {
                found = (try await client.execute(uri: "/v1/cities?q=zzy", method: .get).json["count"] as? Int) == 1
                if !found { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(found)
        }
    }

    @Test func airportsNearHaveIATACodesNearestFirst() async throws {
        try await app().test(.router) { client in
            let json = try await client.execute(uri: "/v1/airports/near?lat=48.8584&lon=2.2945&k=5", method: .get).json
            let places = try #require(json["places"] as? [[String: Any]])
            #expect(places.count == 5)
            #expect(places.allSatisfy { !((($0["tags"] as? [String: String])?["iata"]) ?? "").isEmpty })
            let distances = places.compactMap { $0["distance_m"] as? Double }
            #expect(distances == distances.sorted())
            #expect(places.contains { $0["id"] as? String == "airport:LFPO" })
        }
    }

    @Test func countryAndContinentComeFromTheBoundariesDecidedAtImport() async throws {
        try await app().test(.router) { client in
            // Strasbourg and Kehl face each other across the Rhine.
            let base = "/v1/places/near?lat=48.5734&lon=7.7521&radius=15km&limit=500&source=geonames"
            let all = try #require(try await client.execute(uri: base, method: .get).json["places"] as? [[String: Any]])
            let german = try #require(try await client.execute(uri: base + "&country=de", method: .get).json["places"] as? [[String: Any]])
            let french = try #require(try await client.execute(uri: base + "&country=FR", method: .get).json["places"] as? [[String: Any]])
            #expect(!german.isEmpty && !french.isEmpty)
            #expect(german.allSatisfy { $0["country_code"] as? String == "DE" && $0["continent"] as? String == "EU" })
            #expect(french.allSatisfy { $0["country_code"] as? String == "FR" })
            #expect(german.contains { $0["name"] as? String == "Kehl" } && french.contains { $0["name"] as? String == "Strasbourg" })
            #expect(german.count + french.count == all.count)
            let both = try await client.execute(uri: base + "&country=DE,FR", method: .get).json["places"] as? [[String: Any]]
            #expect(both?.count == all.count)

            // Cayenne is drawn inside France's polygon but is French Guiana, in South America.
            let guiana = try await client.execute(uri: "/v1/places/nearest?lat=4.93&lon=-52.33&k=3&continent=SA&source=geonames", method: .get).json
            let first = try #require((guiana["places"] as? [[String: Any]])?.first)
            #expect(first["name"] as? String == "Cayenne" && first["country_code"] as? String == "GF")
            #expect(first["time_zone"] as? String == "America/Cayenne")
            let europe = try await client.execute(uri: "/v1/places/nearest?lat=4.93&lon=-52.33&k=1&continent=europe&source=geonames", method: .get)
                .json
            let nearestEuropean = try #require((europe["places"] as? [[String: Any]])?.first)
            #expect((nearestEuropean["distance_m"] as? Double ?? 0) > 3_000_000, "the nearest European city is across the Atlantic")
            #expect((europe["query"] as? [String: Any])?["continents"] as? [String] == ["EU"])
        }
    }

    @Test func openAtReadsOSMHoursInThePlacesTimeZone() async throws {
        try await app().test(.router) { client in
            let base = "/v1/places/near?lat=43.7396&lon=7.4276&radius=700m&limit=500&source=osm-monaco"
            let whole = try await client.execute(uri: base, method: .get).json
            #expect(whole["next_cursor"] is NSNull, "one page holds them all")
            let all = try #require(whole["places"] as? [[String: Any]])
            let withHours = all.filter { (($0["opening_hours"] as? [String: Any])?["periods"] as? [Any])?.isEmpty == false }
            #expect(withHours.count >= 10, "Monaco's OSM places with readable opening_hours")
            // Monaco's own places, and the French towns around it in Paris's zone.
            #expect(
                all.allSatisfy { place in
                    switch place["country_code"] as? String {
                    case "MC": place["time_zone"] as? String == "Europe/Monaco"
                    case "FR": place["time_zone"] as? String == "Europe/Paris"
                    default: false
                    }
                })
            // Wednesday 2026-11-25 at 10:30 in Monaco (UTC+1) is 09:30Z; 03:30 local is 02:30Z.
            for (instant, localMinute) in [("2026-11-25T09:30:00Z", 2 * 1440 + 630), ("2026-11-25T03:30:00+01:00", 2 * 1440 + 210)] {
                let open = try #require(
                    try await client.execute(
                        uri: base + "&open_at=" + instant.replacingOccurrences(of: "+", with: "%2B"),
                        method: .get
                    ).json["places"] as? [[String: Any]])
                let expected = withHours.filter { place in
                    let periods = ((place["opening_hours"] as? [String: Any])?["periods"] as? [[String: Int]]) ?? []
                    return periods.contains { period in
                        let start = (period["open_day"]! - 1) * 1440 + period["open_minute"]!
                        var end = (period["close_day"]! - 1) * 1440 + period["close_minute"]!
                        if end <= start { end += 7 * 1440 }
                        return (start..<end).contains(localMinute) || (start..<end).contains(localMinute + 7 * 1440)
                    }
                }
                #expect(open.compactMap { $0["id"] as? String } == expected.compactMap { $0["id"] as? String }, "\(instant)")
                if localMinute > 2 * 1440 + 600 { #expect(open.count >= 5) } else { #expect(open.count < withHours.count / 2) }
            }
            let now = try await client.execute(uri: base + "&open_now=true", method: .get)
            #expect(now.status == .ok)
            #expect(((now.json["query"] as? [String: Any])?["open_at"] as? String)?.hasSuffix("Z") == true)
        }
    }
}
