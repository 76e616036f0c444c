import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlaceModel
import ProviderTestSupport
import Providers
import Testing

/// Images, surprise-me cities and places by region over the shipped data.
@Suite(.ownThreads) struct DiscoveryRouteTests {
    func app(_ adjust: (inout ServiceConfiguration) -> Void = { _ in }) throws -> some ApplicationProtocol {
        try ServerFixture.service(adjust).makeApplication()
    }

    /// Every provider at a closed port, so no test leaves the machine.
    static func offline(_ extra: [String: String] = [:]) -> ProviderSettings {
        var variables: [String: String] = [:]
        for name in ProviderName.allCases {
            if let variable = ProviderEnvironment.baseURLVariable(for: name) { variables[variable] = "http://127.0.0.1:9" }
        }
        return ProviderSettings(
            environment: ProviderEnvironment(variables.merging(extra) { $1 }), retry: .init(maxAttempts: 1, baseDelay: 0.01, maxDelay: 0.01),
            timeout: 30)
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

    // MARK: Surprise me

    @Test func randomCityIsReproducibleFilteredAndDressed() async throws {
        try await app { $0.providers = Self.offline() }.test(.router) { client in
            let first = try await client.execute(uri: "/v1/discover/random-city?continent=Europe&seed=42", method: .get)
            #expect(first.status == .ok, "\(first.text)")
            let city = try #require(first.json["city"] as? [String: Any])
            #expect(city["continent"] as? String == "EU" && first.json["seed"] as? Int == 42)
            #expect((first.json["candidates"] as? Int ?? 0) > 1_000)
            let again = try await client.execute(uri: "/v1/discover/random-city?continent=EU&seed=42", method: .get)
            #expect((again.json["city"] as? [String: Any])?["id"] as? String == city["id"] as? String, "the same seed, the same city")
            // Offline: no picture and no weather, each named under sources; airports and suggestions are local.
            #expect(first.json["image"] is NSNull && first.json["weather"] is NSNull)
            let failed = ((first.json["sources"] as? [[String: Any]]) ?? []).compactMap { $0["provider"] as? String }
            #expect(failed.contains("wikimedia-commons") && failed.contains("open-meteo"))

            for seed in 0..<12 {
                let answer = try await client.execute(
                    uri: "/v1/discover/random-city?continent=AS&weighting=population&per_group=1&seed=\(seed)", method: .get)
                #expect((answer.json["city"] as? [String: Any])?["continent"] as? String == "AS", "seed \(seed)")
            }
            let french = try await client.execute(uri: "/v1/discover/random-city?country=France&min_population=500000&seed=7", method: .get)
            let big = try #require(french.json["city"] as? [String: Any])
            #expect(big["country_code"] as? String == "FR" && (big["population"] as? Int ?? 0) >= 500_000)

            let monaco = try await client.execute(uri: "/v1/discover/random-city?country=MC&per_group=3&seed=1", method: .get)
            #expect((monaco.json["city"] as? [String: Any])?["name"] as? String == "Monaco")
            let groups = try #require(monaco.json["suggestions"] as? [[String: Any]])
            #expect(!groups.isEmpty, "Monaco's OpenStreetMap places give suggestions")
            let radius = try #require(monaco.json["suggestion_radius_m"] as? Double)
            let order = ["historic", "culture", "landmark", "nature", "water", "activity", "food", "drink", "religious", "shopping"]
            #expect(groups.compactMap { $0["group"] as? String } == order.filter { name in groups.contains { $0["group"] as? String == name } })
            for group in groups {
                let places = try #require(group["places"] as? [[String: Any]])
                let distances = places.compactMap { $0["distance_m"] as? Double }
                #expect(!places.isEmpty && places.count <= 3 && distances == distances.sorted() && distances.allSatisfy { $0 <= radius })
                let name = try #require(group["group"] as? String)
                #expect(places.allSatisfy { (($0["categories"] as? [String]) ?? []).contains { $0 == name || $0.hasPrefix(name + ".") } })
            }
            let airports = try #require(monaco.json["airports"] as? [[String: Any]])
            #expect(airports.first?["id"] as? String == "airport:NCE" || (airports.first?["name"] as? String)?.contains("Nice") == true)

            for (uri, words) in [
                ("continent=Atlantis", "continent 'Atlantis' is invalid"), ("weighting=heavy", "use uniform or population"),
                ("seed=-1", "seed"), ("country=Atlantis", "country 'Atlantis' is invalid"),
            ] {
                let bad = try await client.execute(uri: "/v1/discover/random-city?" + uri, method: .get)
                #expect(bad.status == .badRequest && (bad.json["detail"] as? String)?.contains(words) == true, "\(uri): \(bad.text)")
            }
            let none = try await client.execute(uri: "/v1/discover/random-city?country=MC&continent=AS", method: .get)
            #expect(none.status == .notFound)
        }
    }

    @Test func providersWithKeysAddToTheSuggestions() async throws {
        let yelp = try await LoopbackServer.start(replies: [.recorded("yelp_search.json")])
        defer { Task { await yelp.stop() } }
        let settings = Self.offline(["GEOQUERY_YELP_BASE_URL": yelp.baseURL.absoluteString, "YELP_API_KEY": "yelp-key-0123456789"])
        try await app { $0.providers = settings }.test(.router) { client in
            // Draw big US cities until San Francisco comes up (the recorded Yelp answer is at Mint Plaza).
            var answer: [String: Any]?
            for seed in 0..<400 {
                let drawn = try await client.execute(
                    uri: "/v1/discover/random-city?country=US&min_population=800000&weighting=population&per_group=3&seed=\(seed)", method: .get)
                if (drawn.json["city"] as? [String: Any])?["name"] as? String == "San Francisco" {
                    answer = drawn.json
                    break
                }
            }
            let found = try #require(answer, "some seed draws San Francisco")
            let groups = try #require(found["suggestions"] as? [[String: Any]])
            let yelpPlaces = groups.flatMap { group in ((group["places"] as? [[String: Any]]) ?? []).map { (group["group"] as? String ?? "", $0) } }
                .filter { (($0.1["id"] as? String) ?? "").hasPrefix("yelp:") }
            #expect(!yelpPlaces.isEmpty, "Yelp's places join the groups: \(groups.map { $0["group"] ?? "" })")
            #expect(
                yelpPlaces.allSatisfy { group, place in
                    ((place["categories"] as? [String]) ?? []).contains { $0 == group || $0.hasPrefix(group + ".") }
                })
            #expect(!yelpPlaces.contains { ($0.1["name"] as? String) == "Gone For Good Bakery" }, "closed places are not suggested")
            #expect(groups.allSatisfy { (($0["places"] as? [Any]) ?? []).count <= 3 }, "groups stay capped")
            #expect(await yelp.requests.first?.headers["authorization"] == "Bearer yelp-key-0123456789")
        }
    }

    /// The last city a user was shown is kept in the store: sent to two servers in turn, a
    /// user still never gets the same city twice in a row.
    @Test func twoServersInTurnNeverShowTheSameCityTwiceInARow() async throws {
        let fixture = try await AccountFixture { $0.providers = Self.offline() }
        try await fixture.testOnTwoServers { first, second in
            let token = try await first.account("traveller")
            var previous: String?
            for round in 0..<6 {
                let server = round % 2 == 0 ? first : second
                let answer = try await server.send(.get, "/v1/discover/random-city?country=LU&seed=5&per_group=1", token: token)
                let id = try #require((answer.json["city"] as? [String: Any])?["id"] as? String)
                #expect(id != previous, "round \(round)")
                previous = id
            }
        }
    }

    @Test func aSignedInUserNeverGetsTheSameCityTwiceInARow() async throws {
        let fixture = try await AccountFixture { $0.providers = Self.offline() }
        try await fixture.test { client in
            let token = try await client.account("wanderer")
            var previous: String?
            for _ in 0..<6 {
                // The same seed each time: anonymous answers would repeat; hers may not.
                let answer = try await client.send(.get, "/v1/discover/random-city?country=LU&seed=5&per_group=1", token: token)
                let id = try #require((answer.json["city"] as? [String: Any])?["id"] as? String)
                #expect(id != previous)
                previous = id
            }
            // Saving the result: the city as a favourite, the suggestions as a private plan.
            let shown = try await client.send(.get, "/v1/discover/random-city?country=MC&seed=1&per_group=2", token: token)
            let city = try #require((shown.json["city"] as? [String: Any])?["id"] as? String)
            let suggestions = ((shown.json["suggestions"] as? [[String: Any]]) ?? []).flatMap { ($0["places"] as? [[String: Any]]) ?? [] }
                .compactMap { $0["id"] as? String }
            #expect(!suggestions.isEmpty)
            let list = suggestions.map { "\"\($0)\"" }.joined(separator: ",")
            let body = #"{"place_id":"\#(city)","suggestions":[\#(list)]}"#
            #expect(try await client.send(.post, "/v1/me/favorites", json: body).status == .unauthorized)
            let saved = try await client.send(.post, "/v1/me/favorites", token: token, json: body)
            #expect(saved.status == .created, "\(saved.text)")
            let plan = try #require(saved.json["itinerary_id"] as? String)
            let mine = try await client.send(.get, "/v1/itineraries/\(plan)", token: token)
            #expect(mine.status == .ok && (mine.json["stops"] as? [Any])?.count == suggestions.count)
            #expect(try await client.ids("/v1/me/favorites", token: token).isEmpty, "favourites list under 'favorites'")
            let favorites = try await client.send(.get, "/v1/me/favorites", token: token)
            #expect(((favorites.json["favorites"] as? [[String: Any]]) ?? []).contains { $0["place_id"] as? String == city })
            // Another user cannot see the saved plan.
            let other = try await client.account("stranger")
            #expect(try await client.send(.get, "/v1/itineraries/\(plan)", token: other).status == .notFound)
            let bad = try await client.send(.post, "/v1/me/favorites", token: token, json: #"{"place_id":"\#(city)","suggestions":["nowhere"]}"#)
            #expect(bad.status == .badRequest)
            // A suggestion that is another user's private gem, or no place at all, saves nothing.
            let secret = try await client.gem(other, name: "Not Yours", lat: 43.7384, lon: 7.4246, visibility: "private")
            let plansBefore = try await client.send(.get, "/v1/itineraries", token: token).text
            for suggestion in [secret, "geonames:1"] {
                let refused = try await client.send(
                    .post, "/v1/me/favorites", token: token,
                    json: #"{"place_id":"\#(city)","suggestions":["\#(suggestions[0])","\#(suggestion)"]}"#)
                #expect(
                    refused.status == .badRequest
                        && (refused.json["detail"] as? String)?.contains("\(suggestion) is not a place you can see") == true,
                    "\(refused.text)")
            }
            #expect(try await client.send(.get, "/v1/itineraries", token: token).text == plansBefore, "no plan saved")
        }
    }

    // MARK: Places by region

    @Test func regionsAgreeWithBruteForceOverTheBoundaries() async throws {
        try await app().test(.router) { client in
            // Around Monaco's border: every place near, then the ones the boundaries put in MC.
            let all = try await client.execute(
                uri: "/v1/places/near?lat=43.7384&lon=7.4246&radius=30km&category=city&category=transport&limit=500", method: .get)
            let everything = try #require(all.json["places"] as? [[String: Any]])
            #expect(all.json["next_cursor"] is NSNull, "one page holds the circle")
            let inMonaco = everything.filter { $0["country_code"] as? String == "MC" }.compactMap { $0["id"] as? String }
            #expect(!inMonaco.isEmpty && inMonaco.count < everything.count, "the circle crosses into France and Italy")
            for region in ["MC", "mc", "Monaco", "country:MC"] {
                let answer = try await client.execute(
                    uri: "/v1/places/near?lat=43.7384&lon=7.4246&radius=30km&category=city&category=transport&limit=500&region=\(region)",
                    method: .get)
                #expect(((answer.json["places"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == inMonaco, "\(region)")
            }
            let european = try await client.execute(uri: "/v1/places/bbox?bbox=7.40,43.72,7.45,43.76&limit=500&region=Europe", method: .get)
            let byContinent = try await client.execute(uri: "/v1/places/bbox?bbox=7.40,43.72,7.45,43.76&limit=500&continent=EU", method: .get)
            #expect(european.status == .ok)
            #expect(
                ((european.json["places"] as? [[String: Any]]) ?? []).map { $0["id"] as? String }
                    == ((byContinent.json["places"] as? [[String: Any]]) ?? []).map { $0["id"] as? String })

            // A city sets the centre and a radius that fits it.
            let city = try await client.execute(uri: "/v1/places/near?region=Nice&limit=50", method: .get)
            #expect(city.status == .ok, "\(city.text)")
            let query = try #require(city.json["query"] as? [String: Any])
            #expect(abs((query["lat"] as? Double ?? 0) - 43.70) < 0.05 && (query["radius_m"] as? Double ?? 0) >= 2_000)
            #expect(((city.json["places"] as? [[String: Any]]) ?? []).isEmpty == false)

            for (uri, words) in [
                ("/v1/places/near?region=SA&lat=0&lon=0&radius=1km", "write continent:SA or country:SA"),
                ("/v1/places/near?region=Qwxzzy", "is not a country, continent or city"),
                ("/v1/places/near?region=Nice&lat=43.7&lon=7.4", "leave out lat and lon"),
                ("/v1/places/bbox?bbox=7.40,43.72,7.45,43.76&region=Nice", "is a city"),
                ("/v1/places/near?region=FR&country=MC&lat=43.7&lon=7.4&radius=1km", "give one"),
            ] {
                let bad = try await client.execute(uri: uri, method: .get)
                #expect(bad.status == .badRequest && (bad.json["detail"] as? String)?.contains(words) == true, "\(uri): \(bad.text)")
            }
        }
    }

    /// `GET /v1/places?region=` (and `near` with a region and no centre): every place of the
    /// country, best first, in pages that add up to the unpaged answer; a rated gem leads, a
    /// private one only for its owner.
    @Test func placesOfARegionBestFirstInPages() async throws {
        let fixture = try await AccountFixture { $0.providers = Self.offline() }
        try await fixture.test { client in
            let ann = try await client.account("ann"), bob = try await client.account("bob")
            let top = try await client.gem(ann, name: "Rampe Major steps", lat: 43.7310, lon: 7.4200, visibility: "public")
            let hidden = try await client.gem(ann, name: "Quiet bench", lat: 43.7320, lon: 7.4210, visibility: "private")
            #expect(try await client.send(.put, "/v1/gems/\(top)/rating", token: bob, json: #"{"stars":5}"#).status == .ok)
            // Brute force: everything the boundaries put in Monaco, from a circle that holds the country.
            let circle = try await client.allPages("/v1/places/near?lat=43.7384&lon=7.4246&radius=40km&limit=500&country=MC")
            #expect(circle.count > 20, "Monaco's OSM places and cities")
            let whole = try await client.allPages("/v1/places?region=Monaco&limit=500")
            #expect(Set(whole) == Set(circle), "the region holds what the circle finds in MC")
            #expect(whole.first == top, "the only rated place leads")
            #expect(!whole.contains(hidden))
            let unrated = Array(whole.dropFirst())
            #expect(unrated == unrated.sorted { PlaceID.utf8Precedes($0, $1) }, "unrated places follow by id")
            #expect(try await client.allPages("/v1/places?region=MC&limit=97") == whole)
            #expect(try await client.allPages("/v1/places?region=MC&limit=500", token: ann).contains(hidden), "the owner sees a private gem")
            #expect(try await client.allPages("/v1/places/near?region=MC&limit=500") == whole, "near with a region and no centre")
            let answer = try await client.send(.get, "/v1/places?region=Europe&category=transport&limit=3")
            #expect(answer.status == .ok && (answer.json["query"] as? [String: Any])?["kind"] as? String == "region", "\(answer.text)")
            #expect(((answer.json["places"] as? [[String: Any]]) ?? []).count == 3 && answer.json["next_cursor"] is String)
            for (uri, words) in [
                ("/v1/places?category=food", "need a region"), ("/v1/places?region=Nice", "is a city"),
                ("/v1/places?region=MC&cursor=AAAAAAAAAAAAAAAAAAAAAAAAAAA", "cursor"),
            ] {
                let bad = try await client.send(.get, uri)
                #expect(bad.status == .badRequest && (bad.json["detail"] as? String)?.contains(words) == true, "\(uri): \(bad.text)")
            }
        }
    }

    // MARK: Suggested itineraries

    @Test func suggestedItineraryKeepsHoursAndBudgetAndSaves() async throws {
        let fixture = try await AccountFixture { $0.providers = Self.offline() }
        try await fixture.test { client in
            let body =
                #"{"destination":{"lat":43.7384,"lon":7.4246},"days":2,"start_date":"2027-05-03","day_start":"10:00","day_end":"17:00","budget":{"amount":40,"currency":"EUR"},"preferred":["culture"],"mode":"walk"}"#
            let answer = try await client.send(.post, "/v1/discover/itinerary", json: body)
            #expect(answer.status == .ok, "\(answer.text)")
            let days = try #require(answer.json["days"] as? [[String: Any]])
            #expect(answer.json["note"] is NSNull)
            // In the Sahara the shipped data has nothing to visit: no days, and the reason.
            let empty = try await client.send(.post, "/v1/discover/itinerary", json: #"{"destination":{"lat":23.5,"lon":12.5},"radius":"2km"}"#)
            #expect(empty.status == .ok && (empty.json["days"] as? [Any])?.isEmpty == true, "\(empty.text)")
            #expect(
                empty.json["note"] as? String
                    == "no places to visit within 2km of the destination in this index: give a larger radius (at most 100km)")
            #expect(days.count == 2 && days.map { $0["date"] as? String } == ["2027-05-03", "2027-05-04"])
            var total = 0.0
            for day in days {
                let stops = try #require(day["stops"] as? [[String: Any]])
                for stop in stops {
                    let start = try #require(stop["start"] as? String)
                    let minutes = Int(start.prefix(2))! * 60 + Int(start.suffix(2))!
                    #expect(minutes >= 600 && minutes + (stop["duration_minutes"] as? Int ?? 0) <= 17 * 60, "\(start)")
                    total += stop["estimated_cost"] as? Double ?? 0
                    #expect(!((stop["why"] as? [String]) ?? []).isEmpty)
                }
            }
            #expect(total <= 40, "the budget is never exceeded")
            #expect((answer.json["candidates"] as? Int ?? 0) > 0 && answer.json["itinerary_id"] is NSNull)
            #expect(answer.json["opening_hours_applied"] as? Bool == true)

            let saving = body.replacingOccurrences(of: "\"days\":2", with: "\"days\":2,\"save\":true")
            #expect(try await client.send(.post, "/v1/discover/itinerary", json: saving).status == .unauthorized)
            let token = try await client.account("planner")
            let saved = try await client.send(.post, "/v1/discover/itinerary", token: token, json: saving)
            #expect(saved.status == .created, "\(saved.text)")
            let id = try #require(saved.json["itinerary_id"] as? String)
            let plan = try await client.send(.get, "/v1/itineraries/\(id)", token: token)
            let stopCount = days.reduce(0) { $0 + (($1["stops"] as? [Any])?.count ?? 0) }
            #expect(plan.status == .ok && (plan.json["stops"] as? [Any])?.count == stopCount)
            let other = try await client.account("nosy")
            #expect(try await client.send(.get, "/v1/itineraries/\(id)", token: other).status == .notFound)

            for (json, words) in [
                (#"{"days":2}"#, "destination"),
                (#"{"destination":"Monaco","days":40}"#, "days is the number 40; it must be a whole number from 1 to 14"),
                (#"{"destination":"Monaco","pace":"frantic"}"#, "pace 'frantic'"),
                (#"{"destination":"Monaco","day_start":"18:00","day_end":"09:00"}"#, "must be after"),
                (#"{"destination":"Monaco","save":true}"#, "start_date"),
            ] {
                let bad = try await client.send(.post, "/v1/discover/itinerary", token: token, json: json)
                #expect(bad.status == .badRequest && (bad.json["detail"] as? String)?.contains(words) == true, "\(json): \(bad.text)")
            }
        }
    }

    // MARK: Popular

    /// A place counts for the city it is best described as near, as `/v1/where` says: a gem
    /// by the Louvre for Paris, not for "Paris 01 Louvre", the district GeoNames lists nearer.
    @Test func aPlaceCountsForTheCityItIsNearNotForADistrict() async throws {
        let fixture = try await AccountFixture { $0.providers = Self.offline() }
        try await fixture.test { client in
            let owner = try await client.account("dee_p"), fan = try await client.account("eli_p")
            let gem = try await client.gem(owner, name: "Pyramid bench", lat: 48.8610, lon: 2.3358, visibility: "public")
            let nearest = try await client.send(.get, "/v1/places/nearest?lat=48.8610&lon=2.3358&k=1&category=city").json
            let district = try #require((nearest["places"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(district != "geonames:2988507", "GeoNames lists a district nearer than Paris itself")
            let captioned = try await client.send(.get, "/v1/where?lat=48.8610&lon=2.3358").json
            #expect((captioned["city"] as? [String: Any])?["id"] as? String == "geonames:2988507")
            #expect(try await client.send(.put, "/v1/me/favorites/\(gem)", token: fan).status == .created)
            let destinations = try await client.send(.get, "/v1/discover/popular?kind=destinations").json
            let ids = ((destinations["results"] as? [[String: Any]]) ?? []).compactMap { ($0["place"] as? [String: Any])?["id"] as? String }
            #expect(ids == ["geonames:2988507"], "\(ids)")
        }
    }

    @Test func popularRanksAScriptedHistoryAndHidesWhatAViewerMayNotSee() async throws {
        let fixture = try await AccountFixture { $0.providers = Self.offline() }
        try await fixture.test { client in
            let ann = try await client.account("ann_p"), ben = try await client.account("ben_p"), cai = try await client.account("cai_p")
            let gem = try await client.gem(cai, name: "Rock pool", lat: 43.7312, lon: 7.4210, visibility: "public")
            let secret = try await client.gem(ann, name: "Secret cove", lat: 43.7330, lon: 7.4200, visibility: "private")
            for (token, place) in [(ann, "airport:LFPG"), (ann, "geonames:2988507"), (ben, "geonames:2988507"), (ann, secret)] {
                #expect(try await client.send(.put, "/v1/me/favorites/\(place)", token: token).status == .created)
            }
            // Favouriting again is not a new action.
            #expect(try await client.send(.put, "/v1/me/favorites/geonames:2988507", token: ben).status == .ok)
            let plan = try await client.send(
                .post, "/v1/itineraries", token: cai,
                json: """
                    {"title":"South","destination":{"place_id":"geonames:2988507"},"start_date":"2027-05-03","end_date":"2027-05-04",
                     "stops":[{"location":{"place_id":"geonames:2988507"},"day":1},{"location":{"place_id":"airport:LFMN"},"day":2}]}
                    """)
            #expect(plan.status == .created, "\(plan.text)")
            // The same place again on the same itinerary is not a new action.
            let planID = plan.json["id"] as? String ?? ""
            let again = try await client.send(.post, "/v1/itineraries/\(planID)/stops", token: cai, json: #"{"place_id":"airport:LFMN","day":1}"#)
            #expect(again.status == .created, "\(again.text)")
            #expect(try await client.send(.put, "/v1/gems/\(gem)/rating", token: ann, json: #"{"stars":5}"#).status == .ok)
            #expect(try await client.send(.put, "/v1/gems/\(gem)/rating", token: ann, json: #"{"stars":4}"#).status == .ok)

            func ranked(_ query: String, token: String? = nil) async throws -> [String] {
                let answer = try await client.send(.get, "/v1/discover/popular?" + query, token: token)
                #expect(answer.status == .ok, "\(query): \(answer.text)")
                return ((answer.json["results"] as? [[String: Any]]) ?? []).compactMap { ($0["place"] as? [String: Any])?["id"] as? String }
            }
            // Paris: two favourites (3 each) and a plan stop (2); CDG a favourite; Nice's airport a
            // stop and the rock pool a rating (2 each). The private cove is ann's alone.
            let everyone = try await ranked("period=7d")
            // The rock pool's one rating (4 stars) is a small prior that puts it before the airport.
            #expect(everyone == ["geonames:2988507", "airport:LFPG", gem, "airport:LFMN"], "\(everyone)")
            let annSees = try await ranked("period=7d", token: ann)
            #expect(annSees.count == 5 && annSees.contains(secret), "ann sees her private gem: \(annSees)")
            #expect(try await ranked("period=7d", token: ben) == everyone, "another user never sees ann's private gem")
            #expect(try await ranked("region=FR") == ["geonames:2988507", "airport:LFPG", "airport:LFMN"])
            #expect(try await ranked("region=MC") == [gem])
            #expect(try await ranked("category=transport") == ["airport:LFPG", "airport:LFMN"])
            #expect(
                try await ranked("region=Nice") == ["airport:LFMN"], "a city: within its reach (8 km for Nice; the rock pool in Monaco is 13 km away)"
            )
            let top = try await client.send(.get, "/v1/discover/popular?limit=1")
            let first = try #require((top.json["results"] as? [[String: Any]])?.first)
            #expect(first["events"] as? Int == 3 && abs((first["activity"] as? Double ?? 0) - 8) < 0.01)
            let transport = try await client.send(.get, "/v1/discover/popular?category=transport")
            let nice = ((transport.json["results"] as? [[String: Any]]) ?? []).first {
                ($0["place"] as? [String: Any])?["id"] as? String == "airport:LFMN"
            }
            #expect(nice?["events"] as? Int == 1, "one stop, counted once though added twice")

            // Pages of one continue exactly.
            var paged: [String] = [], next: String? = "/v1/discover/popular?period=7d&limit=1"
            while let uri = next {
                let answer = try await client.send(.get, uri)
                paged += ((answer.json["results"] as? [[String: Any]]) ?? []).compactMap { ($0["place"] as? [String: Any])?["id"] as? String }
                next = (answer.json["next_cursor"] as? String).map {
                    "/v1/discover/popular?period=7d&limit=1&cursor=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)
                }
            }
            #expect(paged == everyone)

            let destinations = try await ranked("kind=destinations")
            #expect(destinations.first == "geonames:2988507", "Paris leads the destinations: \(destinations)")
            #expect(destinations.count >= 3, "CDG, Nice's airport and the rock pool count for their cities")

            // A shared itinerary's first view counts for its places (1 each); reloading it does not.
            let share = try await client.send(.post, "/v1/itineraries/\(planID)/shares", token: cai)
            let link = try #require(share.json["token"] as? String)
            for _ in 0..<3 { #expect(try await client.send(.get, "/v1/shared/\(link)").status == .ok) }
            let viewed = try await client.send(.get, "/v1/discover/popular?limit=1")
            let paris = try #require((viewed.json["results"] as? [[String: Any]])?.first)
            #expect(paris["events"] as? Int == 4 && abs((paris["activity"] as? Double ?? 0) - 9) < 0.01, "\(paris)")

            for (query, words) in [
                ("period=2d", "use 7d, 30d or 365d"), ("kind=things", "use places or destinations"),
                ("kind=destinations&category=food", "category applies to kind=places"), ("cursor=zzz", "cursor"),
            ] {
                let bad = try await client.send(.get, "/v1/discover/popular?" + query)
                #expect(bad.status == .badRequest && (bad.json["detail"] as? String)?.contains(words) == true, "\(query): \(bad.text)")
            }
        }
    }
}
