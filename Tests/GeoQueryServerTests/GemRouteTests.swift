import Accounts
import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlaceModel
import PlaceQuery
import ProviderTestSupport
import Providers
import Testing

/// Hidden gems: who sees which, who may change what, ratings, favourites, photos.
@Suite(.ownThreads) struct GemRouteTests {
    /// Somewhere in the Sahara, where the shipped data has no places: the answers hold gems only.
    static let lat = 23.5, lon = 12.5

    /// `POST /v1/route` with place ids goes through gems too, those its caller may see: a
    /// gem hidden from the caller is answered as an unknown id, word for word.
    @Test func aRouteGoesThroughTheGemsItsCallerMaySee() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("router")
            let friend = try await client.account("router.friend")
            let stranger = try await client.account("router.stranger")
            #expect(try await client.send(.post, "/v1/me/friends/router", token: friend).status == .created)
            #expect(try await client.send(.post, "/v1/me/friends/router.friend", token: owner).status == .ok)
            var gems: [String: String] = [:]
            for (n, visibility) in ["public", "unlisted", "friends", "private"].enumerated() {
                gems[visibility] = try await client.gem(
                    owner, name: "Stop \(visibility)", lat: Self.lat + Double(n) * 0.01, lon: Self.lon,
                    visibility: visibility)
            }
            func route(_ visibility: String, token: String?) async throws -> TestResponse {
                try await client.send(
                    .post, "/v1/route?start=\(gems["public"]!)", token: token,
                    json: #"{"places":["\#(gems["public"]!)","\#(gems[visibility]!)","geonames:2988507"]}"#)
            }
            let seen: [(String, String?, Set<String>)] = [
                ("owner", owner, ["public", "unlisted", "friends", "private"]),
                ("friend", friend, ["public", "unlisted", "friends"]),
                ("stranger", stranger, ["public", "unlisted"]), ("anonymous", nil, ["public", "unlisted"]),
            ]
            for (who, token, visible) in seen {
                for visibility in ["unlisted", "friends", "private"] {
                    let answer = try await route(visibility, token: token)
                    if visible.contains(visibility) {
                        #expect(answer.status == .ok, "\(who), \(visibility): \(answer.text)")
                        let order = answer.json["order"] as? [String] ?? []
                        #expect(order.first == gems["public"] && Set(order) == [gems["public"]!, gems[visibility]!, "geonames:2988507"])
                    } else {
                        #expect(answer.status == .unprocessableContent, "\(who), \(visibility): \(answer.text)")
                        #expect(
                            answer.json["detail"] as? String
                                == "no place with id \(gems[visibility]!); route stops must be places of the index or gems you may see")
                    }
                }
            }
            let unknown = try await client.send(
                .post, "/v1/route", token: stranger, json: #"{"places":["gem:000000000000000000000000","geonames:2988507"]}"#)
            #expect(
                unknown.json["detail"] as? String
                    == "no place with id gem:000000000000000000000000; route stops must be places of the index or gems you may see")
            #expect(
                try await client.send(.post, "/v1/route", token: "not-a-token", json: #"{"places":["geonames:2988507"]}"#).status == .unauthorized)
        }
    }

    @Test func eachViewerSeesOnlyTheGemsTheyMay() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("owner")
            let other = try await client.account("other")
            var publicGems: [String] = []
            for n in 0..<4 {
                publicGems.append(
                    try await client.gem(owner, name: "Dune \(n)", lat: Self.lat + Double(n) * 0.001, lon: Self.lon, visibility: "public"))
            }
            let unlisted = try await client.gem(owner, name: "Dune unlisted", lat: Self.lat + 0.0005, lon: Self.lon, visibility: "unlisted")
            let secret = try await client.gem(owner, name: "Dune secret", lat: Self.lat + 0.0015, lon: Self.lon, visibility: "private")
            let othersSecret = try await client.gem(other, name: "Other secret", lat: Self.lat + 0.0025, lon: Self.lon, visibility: "private")

            let near = "/v1/places/near?lat=\(Self.lat)&lon=\(Self.lon)&radius=10km&limit=2"
            // Anonymous and the other user: public gems only, on every page; the owner: theirs too.
            #expect(Set(try await client.allPages(near)) == Set(publicGems))
            #expect(Set(try await client.allPages(near, token: other)) == Set(publicGems + [othersSecret]))
            #expect(Set(try await client.allPages(near, token: owner)) == Set(publicGems + [secret]))
            let unpaged = "/v1/places/near?lat=\(Self.lat)&lon=\(Self.lon)&radius=10km&limit=500"
            let anonymous = try await client.send(.get, unpaged)
            #expect(anonymous.json["count"] as? Int == 4)
            // A cursor of the owner's query does not serve another viewer's.
            let ownerPage = try await client.send(.get, near, token: owner).json
            let ownerCursor = try #require(ownerPage["next_cursor"] as? String)
            #expect(try await client.send(.get, near + "&cursor=" + ownerCursor, token: other).status == .badRequest)

            let box = "/v1/places/bbox?bbox=\(Self.lon - 0.1),\(Self.lat - 0.1),\(Self.lon + 0.1),\(Self.lat + 0.1)&limit=500"
            #expect(Set(try await client.ids(box)) == Set(publicGems))
            #expect(Set(try await client.ids(box, token: owner)) == Set(publicGems + [secret]))
            let nearest = "/v1/places/nearest?lat=\(Self.lat)&lon=\(Self.lon)&k=20&max_distance=50km"
            #expect(Set(try await client.ids(nearest, token: other)) == Set(publicGems + [othersSecret]))
            let text = "/v1/places/near?lat=\(Self.lat)&lon=\(Self.lon)&radius=10km&query=dune"
            #expect(Set(try await client.ids(text)) == Set(publicGems))
            #expect(Set(try await client.ids(text, token: owner)) == Set(publicGems + [secret]))
            let gemsNear = "/v1/gems/near?lat=\(Self.lat)&lon=\(Self.lon)"
            #expect(Set(try await client.ids(gemsNear, token: other)) == Set(publicGems + [othersSecret]))

            // By id: public and unlisted for anyone, private for the owner alone (404 as if absent).
            for (id, anonymousStatus) in [(publicGems[0], HTTPResponse.Status.ok), (unlisted, .ok), (secret, .notFound)] {
                #expect(try await client.send(.get, "/v1/gems/\(id)").status == anonymousStatus)
                #expect(try await client.send(.get, "/v1/gems/\(id)", token: other).status == anonymousStatus)
                #expect(try await client.send(.get, "/v1/places/\(id)", token: other).status == anonymousStatus)
                #expect(try await client.send(.get, "/v1/gems/\(id)", token: owner).status == .ok)
            }
            let shown = try await client.send(.get, "/v1/gems/\(secret)", token: owner).json
            let gem = shown
            #expect(gem["source"] as? String == "gem" && gem["categories"] as? [String] == ["landmark.viewpoint"])
            #expect((gem["gem"] as? [String: Any])?["owner"] as? String == "owner")
            #expect((gem["gem"] as? [String: Any])?["description"] as? String == "quiet at dawn")
            let mine = try await client.ids("/v1/me/gems?limit=500", token: owner)
            #expect(Set(mine) == Set(publicGems + [unlisted, secret]))
        }
    }

    /// A JSON body sent as another media type is a 415 that says what to send (with curl's
    /// default named); JSON with parameters or a `+json` type is read; no Content-Type is read as JSON.
    /// A create retried with its `Idempotency-Key` (a phone that lost the answer) answers the
    /// first answer again and creates nothing; the key is the account's, and bound to the
    /// request it first came with.
    @Test func aRetriedCreateWithItsIdempotencyKeyCreatesOnce() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("retrier")
            let other = try await client.account("retrier.other")
            let key = HTTPField.Name("Idempotency-Key")!
            let gem = #"{"name":"Once only","lat":23.5,"lon":12.5,"visibility":"public"}"#
            let first = try await client.send(.post, "/v1/gems", token: owner, json: gem, headers: [key: "7f9c-once"])
            #expect(first.status == .created && first.headers[HTTPField.Name("Idempotent-Replayed")!] == nil, "\(first.text)")
            let again = try await client.send(.post, "/v1/gems", token: owner, json: gem, headers: [key: "7f9c-once"])
            #expect(again.status == .created && again.text == first.text, "\(again.text)")
            #expect(again.headers[.location] == first.headers[.location] && again.headers[.eTag] == first.headers[.eTag])
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            func count(_ token: String) async throws -> Int {
                (try await client.send(.get, "/v1/me/gems", token: token).json["places"] as? [Any])?.count ?? -1
            }
            #expect(try await count(owner) == 1, "the retry created nothing")

            // The same key with another body is refused; another account's same key is its own.
            let changed = try await client.send(
                .post, "/v1/gems", token: owner, json: #"{"name":"Twice","lat":23.5,"lon":12.5}"#, headers: [key: "7f9c-once"])
            #expect(changed.status == .unprocessableContent && (changed.json["detail"] as? String)?.contains("7f9c-once") == true)
            let theirs = try await client.send(.post, "/v1/gems", token: other, json: gem, headers: [key: "7f9c-once"])
            #expect(theirs.status == .created && theirs.json["id"] as? String != first.json["id"] as? String)
            #expect(try await count(other) == 1)
            #expect(try await count(owner) == 1)

            // A failed request frees its key: the corrected retry is done.
            let bad = try await client.send(.post, "/v1/gems", token: owner, json: #"{"name":"x","lat":91,"lon":1}"#, headers: [key: "k-2"])
            #expect(bad.status == .badRequest)
            let fixed = try await client.send(.post, "/v1/gems", token: owner, json: #"{"name":"x","lat":23.6,"lon":12.5}"#, headers: [key: "k-2"])
            #expect(fixed.status == .created && fixed.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            // Without a key, two creates are two gems; a key that is not text is named.
            for _ in 0..<2 { #expect(try await client.send(.post, "/v1/gems", token: owner, json: gem).status == .created) }
            #expect(try await count(owner) == 4)
            let spaced = try await client.send(.post, "/v1/gems", token: owner, json: gem, headers: [key: "two words"])
            #expect(spaced.status == .badRequest && (spaced.json["detail"] as? String)?.contains("'two words'") == true)
            // A key holds no more of a body than its route would: 2 MiB to a JSON route is a
            // 413 (the JSON limit, 1 MiB, not a photo's), sent declared or streamed, and the key
            // stays free.
            let huge = Array(repeating: UInt8(ascii: " "), count: 2 << 20)
            let declared = try await client.send(.post, "/v1/gems", token: owner, bytes: huge, headers: [key: "k-huge"])
            #expect(
                declared.status == .contentTooLarge && (declared.json["detail"] as? String)?.contains("1048576 bytes") == true, "\(declared.text)")
            let retried = try await client.send(.post, "/v1/gems", token: owner, json: gem, headers: [key: "k-huge"])
            #expect(retried.status == .created && retried.headers[HTTPField.Name("Idempotent-Replayed")!] == nil, "\(retried.text)")
            #expect(try await count(owner) == 5)
            // Without a session, or with a token that is not one, the key changes nothing: 401
            // as before; sign-in with a key is sign-in.
            #expect(try await client.send(.post, "/v1/gems", json: gem, headers: [key: "7f9c-once"]).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/gems", token: "stale", json: gem, headers: [key: "7f9c-once"]).status == .unauthorized)
            let signIn = try await client.send(
                .post, "/v1/sessions", token: "stale", json: #"{"username":"retrier","password":"a long enough secret"}"#, headers: [key: "s-1"])
            #expect(signIn.status == .created && signIn.json["token"] is String, "\(signIn.text)")
        }
    }

    @Test func aBodyThatIsNotSentAsJSONIs415() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let token = try await client.account("typist")
            let gem = #"{"name":"Typed Spring","lat":23.5,"lon":12.5}"#
            for (type, hint) in [("text/plain", false), ("application/x-www-form-urlencoded", true), ("multipart/form-data; boundary=x", false)] {
                let refused = try await client.send(.post, "/v1/gems", token: token, bytes: Array(gem.utf8), headers: [.contentType: type])
                #expect(refused.status == .unsupportedMediaType, "\(type): \(refused.text)")
                let essence = String(type.split(separator: ";")[0])
                #expect(
                    (refused.json["detail"] as? String)?.hasPrefix(
                        "Content-Type '\(essence)' is not accepted; send a JSON object as application/json") == true)
                #expect(((refused.json["detail"] as? String)?.contains("-H 'Content-Type: application/json'") == true) == hint)
            }
            for type in ["application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"] {
                let made = try await client.send(.post, "/v1/gems", token: token, bytes: Array(gem.utf8), headers: [.contentType: type])
                #expect(made.status == .created, "\(type): \(made.text)")
            }
            let untyped = try await client.send(.post, "/v1/gems", token: token, bytes: Array(gem.utf8))
            #expect(untyped.status == .created, "\(untyped.text)")
            let mine = try await client.send(.get, "/v1/me/gems", token: token)
            #expect((mine.json["places"] as? [Any])?.count == 4, "the refused bodies made nothing")
        }
    }

    @Test func onlyTheOwnerChangesOrDeletesAGem() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("maker")
            let intruder = try await client.account("intruder")
            let open = try await client.gem(owner, name: "Open Spring", lat: Self.lat, lon: Self.lon, visibility: "public")
            let hidden = try await client.gem(owner, name: "Hidden Spring", lat: Self.lat, lon: Self.lon + 0.001, visibility: "private")
            let png: [UInt8] = TestImages.png(withText: false)

            // Anonymous: 401. The other user: 403 where they can see the gem, 404 where they cannot.
            for (id, status) in [(open, HTTPResponse.Status.forbidden), (hidden, .notFound)] {
                let attempts: [(HTTPRequest.Method, String, String?, [UInt8]?)] = [
                    (.patch, "/v1/gems/\(id)", #"{"name":"Mine now"}"#, nil),
                    (.delete, "/v1/gems/\(id)", nil, nil),
                    (.post, "/v1/gems/\(id)/photos", nil, png),
                ]
                for (method, uri, json, bytes) in attempts {
                    #expect(try await client.send(method, uri, json: json, bytes: bytes).status == .unauthorized, "\(method) \(uri)")
                    #expect(try await client.send(method, uri, token: intruder, json: json, bytes: bytes).status == status, "\(method) \(uri)")
                }
                let after = try await client.send(.get, "/v1/gems/\(id)", token: owner).json
                let place = after
                #expect((place["name"] as? String)?.hasSuffix("Spring") == true && place["photos"] == nil, "unchanged")
                #expect(
                    try await client.send(.put, "/v1/gems/\(id)/rating", token: intruder, json: #"{"stars":1}"#).status
                        == (status == .forbidden ? .ok : .notFound))
                #expect(
                    try await client.send(.put, "/v1/me/favorites/\(id)", token: intruder).status
                        == (status == .forbidden ? .created : .notFound))
            }
            // The owner edits: name, visibility; bad fields are named.
            let edited = try await client.send(
                .patch, "/v1/gems/\(open)", token: owner, json: #"{"name":"Open Spring (east)","visibility":"unlisted"}"#)
            #expect(edited.status == .ok)
            #expect((edited.json["gem"] as? [String: Any])?["visibility"] as? String == "unlisted")
            let bad = try await client.send(.patch, "/v1/gems/\(open)", token: owner, json: #"{"visibility":"everyone"}"#)
            #expect(bad.json["detail"] as? String == "visibility 'everyone' is invalid: use public, unlisted, friends or private")
            let badCategory = try await client.send(.post, "/v1/gems", token: owner, json: #"{"name":"x","lat":1,"lon":1,"categories":["shiny"]}"#)
            #expect(
                badCategory.status == .badRequest
                    && (badCategory.json["detail"] as? String)?.hasPrefix("category 'shiny' is not in the taxonomy: the top levels are food, ")
                        == true
            )
            let nearMiss = try await client.send(
                .post, "/v1/gems", token: owner, json: #"{"name":"x","lat":1,"lon":1,"categories":["nature.viewpoint"]}"#)
            #expect(
                nearMiss.status == .badRequest
                    && (nearMiss.json["detail"] as? String)?
                        .hasPrefix(
                            "category 'nature.viewpoint' is not in the taxonomy: did you mean landmark.viewpoint? Under nature there are nature.arch, "
                        ) == true
            )
            let badLat = try await client.send(.post, "/v1/gems", token: owner, json: #"{"name":"x","lat":91,"lon":1}"#)
            #expect(badLat.status == .badRequest && (badLat.json["detail"] as? String)?.contains("91") == true)
            #expect(try await client.send(.post, "/v1/gems", json: #"{"name":"x","lat":1,"lon":1}"#).status == .unauthorized)
            // Unlisted now: out of every list, still reachable by id.
            #expect(try await client.ids("/v1/places/near?lat=\(Self.lat)&lon=\(Self.lon)&radius=1km", token: intruder).isEmpty)
            #expect(try await client.send(.get, "/v1/gems/\(open)", token: intruder).status == .ok)
            #expect(try await client.send(.delete, "/v1/gems/\(open)", token: owner).status == .noContent)
            #expect(try await client.send(.get, "/v1/gems/\(open)", token: owner).status == .notFound)
        }
    }

    @Test func ratingsAreOnePerUserNeverTheOwnersAndFeedMinRating() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("rated")
            let first = try await client.account("rater.one")
            let second = try await client.account("rater.two")
            let gem = try await client.gem(owner, name: "Rated Rock", lat: Self.lat, lon: Self.lon, visibility: "public")
            let own = try await client.send(.put, "/v1/gems/\(gem)/rating", token: owner, json: #"{"stars":5}"#)
            #expect(own.status == .forbidden)
            #expect(try await client.send(.put, "/v1/gems/\(gem)/rating", json: #"{"stars":5}"#).status == .unauthorized)
            for (stars, given) in [
                ("0", "the number 0"), ("6", "the number 6"), ("4.5", "the number 4.5"), ("\"five\"", "the string \"five\""),
                ("true", "true"), ("[5]", "an array of 1 entry"),
            ] {
                let bad = try await client.send(.put, "/v1/gems/\(gem)/rating", token: first, json: #"{"stars":\#(stars)}"#)
                #expect(bad.status == .badRequest && bad.json["detail"] as? String == "stars is \(given); it must be a whole number from 1 to 5")
            }
            let missing = try await client.send(.put, "/v1/gems/\(gem)/rating", token: first, json: "{}")
            #expect(missing.json["detail"] as? String == "field 'stars' is required: a whole number from 1 to 5")
            _ = try await client.send(.put, "/v1/gems/\(gem)/rating", token: first, json: #"{"stars":2}"#)
            let changed = try await client.send(.put, "/v1/gems/\(gem)/rating", token: first, json: #"{"stars":4}"#)
            #expect(changed.json["rating"] as? Double == 4 && changed.json["rating_count"] as? Int == 1)
            let both = try await client.send(.put, "/v1/gems/\(gem)/rating", token: second, json: #"{"stars":1}"#)
            #expect(both.json["rating"] as? Double == 2.5 && both.json["rating_count"] as? Int == 2)
            let place = try await client.send(.get, "/v1/gems/\(gem)").json
            let stored = place["rating"] as? [String: Any]
            #expect(stored?["value"] as? Double == 2.5 && stored?["count"] as? Int == 2 && stored?["scale"] as? Double == 5)
            let near = "/v1/places/near?lat=\(Self.lat)&lon=\(Self.lon)&radius=1km"
            #expect(try await client.ids(near + "&min_rating=2.5") == [gem])
            #expect(try await client.ids(near + "&min_rating=3").isEmpty)
            let removed = try await client.send(.delete, "/v1/gems/\(gem)/rating", token: second)
            #expect(removed.json["rating"] as? Double == 4 && removed.json["your_stars"] is NSNull)
            #expect(try await client.ids(near + "&min_rating=3") == [gem])
        }
    }

    @Test func gemsNearDefaultsToAndCapsAtTwentyMiles() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("faraway")
            // 25 km north and 40 km north: in and out of 20 miles (32.19 km).
            let inside = try await client.gem(owner, name: "Inside", lat: Self.lat + 0.2256, lon: Self.lon, visibility: "public")
            _ = try await client.gem(owner, name: "Outside", lat: Self.lat + 0.3612, lon: Self.lon, visibility: "public")
            let plain = try await client.send(.get, "/v1/gems/near?lat=\(Self.lat)&lon=\(Self.lon)").json
            #expect((plain["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [inside])
            let query = try #require(plain["query"] as? [String: Any])
            #expect(query["radius_m"] as? Double == 32186.88 && query["radius_capped"] as? Bool == false)
            let wide = try await client.send(.get, "/v1/gems/near?lat=\(Self.lat)&lon=\(Self.lon)&radius=100mi").json
            let capped = try #require(wide["query"] as? [String: Any])
            #expect(capped["radius_capped"] as? Bool == true && capped["radius_m"] as? Double == 32186.88)
            #expect((wide["places"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test func favouritesListGonePlacesAsGone() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let owner = try await client.account("fav.owner")
            let fan = try await client.account("fan")
            let gem = try await client.gem(owner, name: "Loved", lat: Self.lat, lon: Self.lon, visibility: "public")
            #expect(try await client.send(.put, "/v1/me/favorites/\(gem)", token: fan).status == .created)
            #expect(try await client.send(.put, "/v1/me/favorites/\(gem)", token: fan).status == .ok)
            #expect(try await client.send(.put, "/v1/me/favorites/geonames:2988507", token: fan).status == .created)
            #expect(try await client.send(.put, "/v1/me/favorites/google:ChIJLU7jZClu5kcR4PcOOO6p3I0", token: fan).status == .created)
            #expect(try await client.send(.put, "/v1/me/favorites/geonames:1", token: fan).status == .notFound)
            #expect(try await client.send(.put, "/v1/me/favorites/geonames:2988507").status == .unauthorized)
            #expect(try await client.send(.delete, "/v1/gems/\(gem)", token: owner).status == .noContent)
            let first = try await client.send(.get, "/v1/me/favorites?limit=2", token: fan).json
            let page = try #require(first["favorites"] as? [[String: Any]])
            #expect(page.map { $0["place_id"] as? String } == ["google:ChIJLU7jZClu5kcR4PcOOO6p3I0", "geonames:2988507"])
            #expect(page.map { $0["status"] as? String } == ["provider", "ok"])
            #expect((page[1]["place"] as? [String: Any])?["name"] as? String == "Paris")
            let cursor = try #require(first["next_cursor"] as? String)
            let rest = try await client.send(.get, "/v1/me/favorites?limit=2&cursor=\(cursor)", token: fan).json
            let gone = try #require(rest["favorites"] as? [[String: Any]])
            #expect(gone.map { $0["status"] as? String } == ["gone"] && gone.first?["place"] is NSNull)
            // Another user's list is their own; removing twice is 404 the second time.
            #expect((try await client.send(.get, "/v1/me/favorites", token: owner).json["count"]) as? Int == 0)
            #expect(try await client.send(.delete, "/v1/me/favorites/geonames:2988507", token: owner).status == .notFound)
            #expect(try await client.send(.delete, "/v1/me/favorites/geonames:2988507", token: fan).status == .noContent)
            #expect(try await client.send(.delete, "/v1/me/favorites/geonames:2988507", token: fan).status == .notFound)
        }
    }

    /// A page of favourites mixes the index's places and gems of several visibilities, read in
    /// one read each: a friend sees the friends-only gems of both friends; when one friendship
    /// ends, that friend's gems (and only theirs) are gone, and a gem made private is gone.
    @Test func favouriteGemsFollowTheirVisibilityAndFriendships() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let fan = try await client.account("gem.fan")
            let (lat, lon) = (Self.lat, Self.lon)
            var owners: [String] = [], friendsOnly: [String] = []
            for name in ["first.friend", "second.friend"] {
                let owner = try await client.account(name)
                #expect(try await client.send(.post, "/v1/me/friends/gem.fan", token: owner).status == .created)
                #expect(try await client.send(.post, "/v1/me/friends/\(name)", token: fan).status == .ok, "accepted")
                owners.append(owner)
                for n in 1...2 { friendsOnly.append(try await client.gem(owner, name: "\(name) \(n)", lat: lat, lon: lon, visibility: "friends")) }
            }
            let shown = try await client.gem(owners[0], name: "Public", lat: lat, lon: lon, visibility: "public")
            let hiddenLater = try await client.gem(owners[1], name: "Private later", lat: lat, lon: lon, visibility: "unlisted")
            let favourites = friendsOnly + [shown, hiddenLater, "geonames:2988507"]
            for id in favourites {
                #expect(try await client.send(.put, "/v1/me/favorites/\(id)", token: fan).status == .created, "\(id)")
            }
            func statuses() async throws -> [String: String] {
                let listed = try #require(try await client.send(.get, "/v1/me/favorites?limit=100", token: fan).json["favorites"] as? [[String: Any]])
                return Dictionary(
                    uniqueKeysWithValues: listed.compactMap { item in
                        (item["place_id"] as? String).map { ($0, item["status"] as? String ?? "?") }
                    })
            }
            #expect(try await statuses() == Dictionary(uniqueKeysWithValues: favourites.map { ($0, "ok") }))

            #expect(try await client.send(.patch, "/v1/gems/\(hiddenLater)", token: owners[1], json: #"{"visibility":"private"}"#).status == .ok)
            #expect(try await client.send(.delete, "/v1/me/friends/gem.fan", token: owners[0]).status == .noContent)
            var expected = Dictionary(uniqueKeysWithValues: favourites.map { ($0, "ok") })
            for id in friendsOnly.prefix(2) + [hiddenLater] { expected[id] = "gone" }
            #expect(try await statuses() == expected)
        }
    }

    /// Provider places are kept by id and fetched again when listed: from a loopback Yelp here,
    /// which answers by path (the favourites are fetched concurrently, in no fixed order).
    @Test func providerFavouritesAreFetchedAgainWhenListed() async throws {
        let yelp = try await LoopbackServer.start { request in
            request.path.hasSuffix("/WavvLdfdP6g8aZTtbBQHTw")
                ? .recorded("yelp_business_details.json")
                : .json(#"{"error":{"code":"BUSINESS_NOT_FOUND","description":"The requested business could not be found."}}"#, status: 404)
        }
        defer { Task { await yelp.stop() } }
        let environment = ProviderEnvironment([
            ProviderEnvironment.baseURLVariable(for: .yelp)!: yelp.baseURL.absoluteString,
            ProviderEnvironment.keyVariable(for: .yelp)!: "test-key-0123456789",
        ])
        let fixture = try await AccountFixture { $0.providers = ProviderSettings(environment: environment, retry: .none, timeout: 30) }
        try await fixture.test { client in
            let fan = try await client.account("yelp.fan")
            for id in ["google:ChIJLU7jZClu5kcR4PcOOO6p3I0", "yelp:closed-for-good", "yelp:WavvLdfdP6g8aZTtbBQHTw"] {
                #expect(try await client.send(.put, "/v1/me/favorites/\(id)", token: fan).status == .created)
            }
            let listed = try #require(try await client.send(.get, "/v1/me/favorites", token: fan).json["favorites"] as? [[String: Any]])
            #expect(listed.map { $0["status"] as? String } == ["ok", "gone", "provider"], "\(listed)")
            #expect((listed[0]["place"] as? [String: Any])?["name"] as? String == "Blue Bottle Coffee")
            #expect(Set(await yelp.requests.map(\.path)) == ["/v3/businesses/WavvLdfdP6g8aZTtbBQHTw", "/v3/businesses/closed-for-good"])
            #expect(await yelp.requests.count == 2)
        }
    }
    /// A provider id is data, never URL text: with a Google key set (against a loopback stand-in),
    /// `google:a b` once made Foundation trap on an invalid path and killed the server, again
    /// after every restart through the stored favourite. Now it is refused where it enters, a
    /// favourite stored before is `gone` without a request, and valid ids reach the provider
    /// percent-encoded as one path segment.
    @Test func providerIDsAreCheckedAndNeverURLText() async throws {
        let stand = try await LoopbackServer.start { request in
            .json(#"{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}"#, status: 404)
        }
        defer { Task { await stand.stop() } }
        var variables: [String: String] = [:]
        for provider in [ProviderName.google, .yelp, .here] {
            variables[ProviderEnvironment.baseURLVariable(for: provider)!] = stand.baseURL.absoluteString
            variables[ProviderEnvironment.keyVariable(for: provider)!] = "dummy-key-0123456789"
        }
        let fixture = try await AccountFixture {
            $0.providers = ProviderSettings(environment: ProviderEnvironment(variables), retry: .none, timeout: 30)
        }
        try await fixture.test { client in
            let fan = try await client.account("id.fan")
            for bad in ["google:a%20b", "google:a%2Fb", "google:x%0Ay", "yelp:a%3Fb", "here:here:pds%20x", "foursquare:4b0%25"] {
                let answer = try await client.send(.put, "/v1/me/favorites/\(bad)", token: fan)
                #expect(answer.status == .badRequest, "\(bad): \(answer.text)")
                #expect(answer.text.contains("is not a"), "the sentence names what is valid: \(answer.text)")
            }
            // Stored before the check (an older server): listed as gone, no request made.
            try await fixture.store.addFavorite(try PlaceID("google:a b"), for: "id.fan", at: Date())
            #expect(try await client.send(.put, "/v1/me/favorites/google:ChIJLU7jZClu5kcR4PcOOO6p3I0", token: fan).status == .created)
            #expect(try await client.send(.put, "/v1/me/favorites/yelp:caf%C3%A9-de-flore", token: fan).status == .created)
            let listed = try await client.send(.get, "/v1/me/favorites", token: fan)
            #expect(listed.status == .ok, "\(listed.text)")
            let statuses = ((listed.json["favorites"] as? [[String: Any]]) ?? []).map { "\($0["place_id"] ?? "")=\($0["status"] ?? "")" }
            #expect(Set(statuses) == ["google:a b=gone", "google:ChIJLU7jZClu5kcR4PcOOO6p3I0=gone", "yelp:café-de-flore=gone"], "\(statuses)")
            let paths = await stand.requests.map(\.path)
            #expect(
                Set(paths.map { $0.removingPercentEncoding ?? $0 }) == ["/v1/places/ChIJLU7jZClu5kcR4PcOOO6p3I0", "/v3/businesses/café-de-flore"],
                "\(paths)")
            // The same ids through a plan's place.
            let itinerary = try await client.send(
                .post, "/v1/itineraries", token: fan,
                json: """
                    {"title":"x","destination":{"place_id":"google:a b"},"start_date":"2027-04-10","end_date":"2027-04-12"}
                    """)
            #expect(itinerary.status == .badRequest && itinerary.text.contains("destination.place_id"), "\(itinerary.text)")
            let trip = try await client.send(
                .post, "/v1/trips", token: fan,
                json: """
                    {"title":"x","place":{"place_id":"yelp:a/b"},"start":"2030-06-12T12:00:00+02:00","end":"2030-06-12T16:00:00+02:00"}
                    """)
            #expect(trip.status == .badRequest && trip.text.contains("place.place_id"), "\(trip.text)")
        }
    }
}

/// Photos: type by magic bytes, metadata removed (a real JPEG with GPS tags made by Pillow),
/// the size limit, content-addressed serving with ETag, deletion with the gem.
@Suite(.ownThreads) struct PhotoRouteTests {
    static let python = repositoryRoot.appendingPathComponent(".build/venv/bin/python")

    /// A 16×16 JPEG whose EXIF holds a GPS position, from Pillow (installed by `make test`).
    static func jpegWithGPS(in directory: URL) throws -> [UInt8] {
        let output = directory.appendingPathComponent("gps.jpg")
        try run([
            "-c",
            """
            import sys
            from PIL import Image, ExifTags
            exif = Image.Exif()
            exif[ExifTags.Base.Make] = "PhoneMaker"
            exif[ExifTags.IFD.GPSInfo] = {1: "N", 2: (48.0, 51.0, 29.0), 3: "E", 4: (2.0, 17.0, 40.0)}
            Image.new("RGB", (16, 16), (200, 100, 50)).save(sys.argv[1], "JPEG", exif=exif.tobytes())
            """, output.path,
        ])
        return [UInt8](try Data(contentsOf: output))
    }

    /// A plain JPEG of the given size, from Pillow.
    static func jpeg(width: Int, height: Int, in directory: URL) throws -> [UInt8] {
        let output = directory.appendingPathComponent("plain-\(width)x\(height).jpg")
        try run([
            "-c", "import sys\nfrom PIL import Image\nImage.new('RGB', (\(width), \(height)), (20, 120, 200)).save(sys.argv[1], 'JPEG')",
            output.path,
        ])
        return [UInt8](try Data(contentsOf: output))
    }

    /// What Pillow reads in a JPEG: `width height gps-entries`.
    static func describe(_ bytes: [UInt8], in directory: URL) throws -> String {
        let file = directory.appendingPathComponent("served.jpg")
        try Data(bytes).write(to: file)
        return try run([
            "-c",
            """
            import sys
            from PIL import Image, ExifTags
            image = Image.open(sys.argv[1]); image.load()
            print(image.width, image.height, len(image.getexif().get_ifd(ExifTags.IFD.GPSInfo)))
            """, file.path,
        ]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return String(decoding: output, as: UTF8.self)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python.path), "needs Pillow in .build/venv (make test installs it)"))
    func photosAreSniffedStrippedAndServed() async throws {
        let fixture = try await AccountFixture { $0.maximumPhotoBytes = 64 * 1024 }
        let directory = fixture.directory
        let original = try Self.jpegWithGPS(in: directory)
        #expect(try Self.describe(original, in: directory) == "16 16 4", "the upload carries a GPS position")
        try await fixture.test { client in
            let owner = try await client.account("photographer")
            let gem = try await client.gem(owner, name: "Photo Spot", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "public")
            // Declared as PNG, sniffed as JPEG.
            let uploaded = try await client.send(
                .post, "/v1/gems/\(gem)/photos", token: owner, bytes: original,
                headers: [.contentType: "image/png"])
            #expect(uploaded.status == .created && uploaded.json["content_type"] as? String == "image/jpeg")
            let id = try #require(uploaded.json["id"] as? String)
            let served = try await client.send(.get, "/v1/photos/\(id)")
            #expect(served.status == .ok && served.headers[.contentType] == "image/jpeg" && served.headers[.eTag] == "\"\(id)\"")
            let bytes = Array(served.body.readableBytesView)
            let exifMarker = Array("Exif\u{0}\u{0}".utf8)
            #expect(!bytes.isEmpty && !(0..<max(0, bytes.count - 5)).contains { Array(bytes[$0..<($0 + 6)]) == exifMarker })
            #expect(try Self.describe(bytes, in: directory) == "16 16 0", "the image decodes, without GPS")
            #expect(try await client.send(.get, "/v1/photos/\(id)", headers: [.ifNoneMatch: "\"\(id)\""]).status == .notModified)
            let shown = try await client.send(.get, "/v1/gems/\(gem)").json
            let photos = shown["photos"] as? [[String: Any]]
            // One photo object: its id, an absolute URL on the request's host, its size in pixels.
            #expect(photos?.first?["url"] as? String == "http://localhost/v1/photos/\(id)", "\(String(describing: photos))")
            #expect(photos?.first?["id"] as? String == id && photos?.first?["width"] as? Int == 16 && photos?.first?["height"] as? Int == 16)

            // PNG text chunks go too; other types and oversized bodies are refused.
            let png = try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: TestImages.png(withText: true))
            let pngID = try #require(png.json["id"] as? String)
            let pngBytes = Array(try await client.send(.get, "/v1/photos/\(pngID)").body.readableBytesView)
            #expect(pngBytes == StoredPhoto.bytes(TestImages.png(withText: false)), "tEXt removed: the same as a PNG without it")
            #expect(!pngBytes.isEmpty && !(0..<max(0, pngBytes.count - 4)).contains { Array(pngBytes[$0..<($0 + 4)]) == Array("tEXt".utf8) })
            let gif = try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8))
            #expect(gif.status == .unsupportedMediaType && (gif.json["detail"] as? String)?.contains("not a JPEG, PNG or WebP") == true)
            let huge = try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: original + [UInt8](repeating: 0, count: 70_000))
            #expect(huge.status == .contentTooLarge)
            // More than 40 megapixels is refused from the header, before a pixel is decoded: a
            // 30 000 × 30 000 PNG and a 65 535² JPEG were once stored and served to every viewer.
            let bomb = try await client.send(
                .post, "/v1/gems/\(gem)/photos", token: owner, bytes: TestImages.png(declaredWidth: 30_000, height: 30_000))
            #expect(
                bomb.status == .unprocessableContent && (bomb.json["detail"] as? String)?.contains("30000 × 30000 pixels") == true, "\(bomb.text)")
            var giant = try Self.jpeg(width: 16, height: 16, in: directory)
            // The frame header's height and width (after its marker, length and precision), found
            // by walking the segments.
            var offset = 2
            while offset + 4 < giant.count, giant[offset] == 0xFF, ![0xC0, 0xC1, 0xC2].contains(giant[offset + 1]) {
                offset += 2 + Int(giant[offset + 2]) << 8 + Int(giant[offset + 3])
            }
            try #require(offset + 9 < giant.count && giant[offset] == 0xFF)
            var widest = giant
            giant.replaceSubrange((offset + 5)..<(offset + 9), with: [0xFD, 0xE8, 0xFD, 0xE8])
            let giantAnswer = try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: giant)
            #expect(giantAnswer.status == .unprocessableContent && giantAnswer.text.contains("65000 × 65000"), "\(giantAnswer.text)")
            // 65 535² is past what libjpeg reads at all: refused from the header too.
            widest.replaceSubrange((offset + 5)..<(offset + 9), with: [0xFF, 0xFF, 0xFF, 0xFF])
            let widestAnswer = try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: widest)
            #expect(widestAnswer.status == .unsupportedMediaType && widestAnswer.text.contains("cannot be decoded"), "\(widestAnswer.text)")

            // Variants for lists and pins: never wider than asked, never enlarged, kept.
            let wide = try Self.jpeg(width: 400, height: 300, in: directory)
            let wideID = try #require(try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: wide).json["id"] as? String)
            let small = try await client.send(.get, "/v1/photos/\(wideID)?w=160")
            #expect(small.status == .ok && small.headers[.contentType] == "image/jpeg" && small.headers[.eTag] == "\"\(wideID)-w160\"")
            #expect(try Self.describe(Array(small.body.readableBytesView), in: directory) == "160 120 0")
            #expect(
                try Self.describe(Array(try await client.send(.get, "/v1/photos/\(wideID)?w=640").body.readableBytesView), in: directory)
                    == "400 300 0")
            #expect(try await client.send(.get, "/v1/photos/\(wideID)?w=161").status == .badRequest)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("photos/\(wideID.prefix(2))/\(wideID).w160").path))

            // Deleting the gem deletes the photos nothing else uses.
            #expect(try await client.send(.delete, "/v1/gems/\(gem)", token: owner).status == .noContent)
            #expect(try await client.send(.get, "/v1/photos/\(id)").status == .notFound)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("photos/\(id.prefix(2))/\(id)").path))
        }
    }

    @Test func onlyTheOwnerTakesAPhotoOffAGemAndAFileStaysWhileSomethingUsesIt() async throws {
        let fixture = try await AccountFixture()
        let directory = fixture.directory
        try await fixture.test { client in
            let owner = try await client.account("shutterbug")
            let stranger = try await client.account("stranger")
            let gem = try await client.gem(owner, name: "Two Views", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "public")
            let hidden = try await client.gem(owner, name: "Own View", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "private")
            var ids: [String] = []
            for level: UInt8 in [10, 20] {
                let uploaded = try await client.send(.post, "/v1/gems/\(gem)/photos", token: owner, bytes: TestImages.png(grey: level))
                ids.append(try #require(uploaded.json["id"] as? String))
            }
            let hiddenPhoto = try await client.send(.post, "/v1/gems/\(hidden)/photos", token: owner, bytes: TestImages.png(grey: 30))
            let hiddenID = try #require(hiddenPhoto.json["id"] as? String)
            // The second photo is the owner's avatar too.
            #expect(try await client.send(.put, "/v1/me/avatar", token: owner, bytes: TestImages.png(grey: 20)).json["id"] as? String == ids[1])
            func photoURLs(_ gem: String) async throws -> [String] {
                let shown = try await client.send(.get, "/v1/gems/\(gem)", token: owner).json
                let photos = shown["photos"] as? [[String: Any]] ?? []
                return photos.compactMap { photo in (photo["url"] as? String).map { URL(string: $0)?.path ?? $0 } }
            }
            func file(_ id: String) -> String { directory.appendingPathComponent("photos/\(id.prefix(2))/\(id)").path }
            #expect(try await photoURLs(gem) == ids.map { "/v1/photos/\($0)" })

            // Another user: 403 on a gem they can see, 404 on one they cannot, 401 without a token.
            let refused = try await client.send(.delete, "/v1/gems/\(gem)/photos/\(ids[0])", token: stranger)
            #expect(refused.status == .forbidden)
            #expect(try await client.send(.delete, "/v1/gems/\(hidden)/photos/\(hiddenID)", token: stranger).status == .notFound)
            #expect(try await client.send(.delete, "/v1/gems/\(gem)/photos/\(ids[0])").status == .unauthorized)
            #expect(try await photoURLs(gem) == ids.map { "/v1/photos/\($0)" }, "nothing changed")
            #expect(try await photoURLs(hidden) == ["/v1/photos/\(hiddenID)"])
            #expect(try await client.send(.get, "/v1/photos/\(ids[0])").status == .ok && FileManager.default.fileExists(atPath: file(ids[0])))

            // The owner: the photo leaves the gem, and its file goes when nothing else uses it.
            #expect(try await client.send(.delete, "/v1/gems/\(gem)/photos/\(ids[0])", token: owner).status == .noContent)
            #expect(try await photoURLs(gem) == ["/v1/photos/\(ids[1])"])
            #expect(try await client.send(.get, "/v1/photos/\(ids[0])").status == .notFound && !FileManager.default.fileExists(atPath: file(ids[0])))
            let again = try await client.send(.delete, "/v1/gems/\(gem)/photos/\(ids[0])", token: owner)
            #expect(again.status == .notFound && (again.json["detail"] as? String)?.contains("is not a photo of gem \(gem)") == true)
            #expect(try await client.send(.delete, "/v1/gems/\(gem)/photos/\(ids[1])", token: owner).status == .noContent)
            #expect(try await photoURLs(gem).isEmpty)
            #expect(
                try await client.send(.get, "/v1/photos/\(ids[1])").status == .ok && FileManager.default.fileExists(atPath: file(ids[1])),
                "the avatar still uses it")
        }
    }
    @Test func anAccountStoresPhotosUpToItsLimitAndAStoredPhotoCostsNothing() async throws {
        let size = StoredPhoto.bytes(TestImages.png(grey: 10)).count
        let fixture = try await AccountFixture { $0.photoStorageLimit = size * 5 / 2 }
        let directory = fixture.directory
        try await fixture.test { client in
            let owner = try await client.account("collector")
            let other = try await client.account("neighbour")
            let gem = try await client.gem(owner, name: "Full Album", lat: GemRouteTests.lat, lon: GemRouteTests.lon, visibility: "public")
            func storage(_ token: String) async throws -> (used: Int?, limit: Int?) {
                let me = try await client.send(.get, "/v1/me", token: token).json["photo_storage"] as? [String: Any]
                return (me?["used_bytes"] as? Int, me?["limit_bytes"] as? Int)
            }
            func upload(_ grey: UInt8, by token: String, to gem: String) async throws -> TestResponse {
                try await client.send(.post, "/v1/gems/\(gem)/photos", token: token, bytes: TestImages.png(grey: grey))
            }
            #expect(try await storage(owner) == (0, size * 5 / 2))
            let first = try await upload(10, by: owner, to: gem), second = try await upload(20, by: owner, to: gem)
            #expect(first.status == .created && second.status == .created)
            #expect(try await storage(owner) == (2 * size, size * 5 / 2))

            // A third new photo does not fit: refused, its file never kept, the gem unchanged.
            let third = try await upload(30, by: owner, to: gem)
            #expect(third.status == .forbidden, "\(third.text)")
            let detail = third.json["detail"] as? String ?? ""
            #expect(detail.contains("collector's photos take") && detail.contains("to make room"), "\(detail)")
            let thirdID = StoredPhoto.id(TestImages.png(grey: 30))
            #expect(try await client.send(.get, "/v1/photos/\(thirdID)").status == .notFound)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("photos/\(thirdID.prefix(2))/\(thirdID)").path))
            #expect(try await client.send(.put, "/v1/me/avatar", token: owner, bytes: TestImages.png(grey: 30)).status == .forbidden)
            let shown = try await client.send(.get, "/v1/gems/\(gem)").json
            #expect((shown["photos"] as? [[String: Any]])?.count == 2)
            #expect(try await storage(owner) == (2 * size, size * 5 / 2), "a refusal takes nothing")

            // Someone else's storage is their own; a photo they stored costs the collector nothing.
            #expect(
                try await upload(
                    30, by: other,
                    to: try await client.gem(
                        other, name: "Theirs", lat: GemRouteTests.lat,
                        lon: GemRouteTests.lon, visibility: "public")
                ).status == .created)
            #expect(try await upload(30, by: owner, to: gem).status == .created)
            #expect(try await storage(owner).used == 2 * size)
            #expect(try await storage(other).used == size)

            // Taking a photo off frees its room.
            let firstID = try #require(first.json["id"] as? String)
            #expect(try await client.send(.delete, "/v1/gems/\(gem)/photos/\(firstID)", token: owner).status == .noContent)
            #expect(try await storage(owner).used == size)
            #expect(try await upload(40, by: owner, to: gem).status == .created)

            // What takes each account's storage, and where it shows each photo: its own objects only.
            func listed(_ token: String) async throws -> [(id: String, uses: [String])] {
                let answer = try await client.send(.get, "/v1/me/photos", token: token)
                #expect(answer.status == .ok && answer.headers[.cacheControl] == "no-store")
                return (answer.json["photos"] as? [[String: Any]] ?? []).map { photo in
                    (photo["id"] as? String ?? "", (photo["used_by"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? ""):\($0["id"] ?? "")" })
                }
            }
            let mine = try await listed(owner)
            #expect(Set(mine.map(\.id)) == Set([20, 40].map { StoredPhoto.id(TestImages.png(grey: $0)) }), "the two photos it uploaded first")
            #expect(mine.allSatisfy { $0.uses == ["gem:\(gem)"] }, "\(mine)")
            let theirs = try await listed(other)
            #expect(
                theirs.map(\.id) == [thirdID] && theirs.first?.uses.count == 1,
                "the collector's gem showing the same photo is not theirs to see: \(theirs)")
            #expect(try await client.send(.get, "/v1/me/photos").status == .unauthorized)
        }
    }
}
