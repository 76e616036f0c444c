import Accounts
import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlaceImport
import PlaceModel
import PlaceQuery
import PlaceStore
import ProviderTestSupport
import Testing

@testable import GeoQueryServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sign-up, sign-in, sessions, profiles and account deletion, in-process over a real user store.
@Suite struct AccountRouteTests {
    @Test func signUpSignInProfileAndSignOut() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let token = try await client.account("anna.b")
            let me = try await client.send(.get, "/v1/me", token: token)
            #expect(me.status == .ok && me.json["username"] as? String == "anna.b" && me.json["email"] as? String == "anna.b@example.org")
            // Sign-in answers the same shape as sign-up: a second session, and the profile.
            let second = try await client.send(.post, "/v1/sessions", json: #"{"username":"anna.b","password":"a long enough secret"}"#)
            #expect(second.status == .created && second.json["token"] as? String != token)
            #expect((second.json["user"] as? [String: Any])?["email"] as? String == "anna.b@example.org")
            #expect(Set(second.json.keys) == ["token", "token_type", "expires_at", "username", "user"], "\(second.text)")

            // Case-insensitively unique, and every bad field named with what is valid.
            let again = try await client.send(
                .post, "/v1/users", json: #"{"username":"Anna.B","email":"x@example.org","password":"another long secret"}"#)
            #expect(again.status == .conflict && again.json["detail"] as? String == "username 'anna.b' is taken: choose another")
            let cases: [(String, String)] = [
                (#"{"username":"a!","email":"a@example.org","password":"a long enough secret"}"#, "username 'a!' is invalid"),
                (#"{"username":"bob","email":"nope","password":"a long enough secret"}"#, "email 'nope' is invalid"),
                (#"{"username":"bob","email":"bob@example.org","password":"short"}"#, "use at least 12"),
                (#"{"username":"bob","email":"bob@example.org","password":"password1234"}"#, "most common passwords"),
                (#"{"username":"bob","email":"bob@example.org","password":"            "}"#, "only white space"),
                (#"{"username":"zed","email":"carol.x@example.org","password":"carol.x is the best"}"#, "contains the email address"),
                (
                    #"{"username":"bob","email":"bob@example.org","password":"\#(String(repeating: "é", count: 40))"}"#,
                    "bcrypt reads only the first 72 bytes"
                ),
                (#"{"username":"bob","email":"bob@example.org"}"#, "field 'password' is required"),
                (#"{"username":"bob","email":"bob@example.org","password":"a long enough secret","admin":true}"#, "unknown field 'admin'"),
            ]
            for (body, expected) in cases {
                let refused = try await client.send(.post, "/v1/users", json: body)
                #expect(refused.status == .badRequest && refused.headers[.contentType] == "application/problem+json")
                #expect((refused.json["detail"] as? String)?.contains(expected) == true, "\(body) → \(refused.text)")
            }

            // Email works as the login too; a wrong password and an unknown user answer alike.
            let byEmail = try await client.signIn("ANNA.B@example.org")
            #expect(!byEmail.isEmpty && byEmail != token)
            let wrong = try await client.send(.post, "/v1/sessions", json: #"{"username":"anna.b","password":"not the password"}"#)
            let unknown = try await client.send(.post, "/v1/sessions", json: #"{"username":"nobody","password":"not the password"}"#)
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(wrong.json["detail"] as? String == unknown.json["detail"] as? String)

            // Profile changes; the public profile shows no email.
            let patched = try await client.send(
                .patch, "/v1/me", token: token,
                json: """
                    {"display_name":"Anna","bio":"Finds quiet places","language":"pt-BR","units":"imperial","home_location":{"lat":43.7,"lon":7.4}}
                    """)
            #expect(patched.status == .ok && (patched.json["settings"] as? [String: Any])?["units"] as? String == "imperial")
            let badUnits = try await client.send(.patch, "/v1/me", token: token, json: #"{"units":"furlongs"}"#)
            #expect(badUnits.status == .badRequest && badUnits.json["detail"] as? String == "units 'furlongs' is invalid: use metric or imperial")
            // The settings as GET /v1/me shows them may come back as they are.
            let mine = try await client.send(.get, "/v1/me", token: token).json
            var settings = try #require(mine["settings"] as? [String: Any])
            settings["units"] = "metric"
            let asShown = String(decoding: try JSONSerialization.data(withJSONObject: ["settings": settings]), as: UTF8.self)
            let resent = try await client.send(.patch, "/v1/me", token: token, json: asShown)
            #expect(resent.status == .ok, "\(resent.text)")
            let now = try #require(resent.json["settings"] as? [String: Any])
            #expect(now["units"] as? String == "metric" && now["language"] as? String == "pt-BR")
            #expect((now["home_location"] as? [String: Any])?["lat"] as? Double == 43.7)
            let twice = try await client.send(.patch, "/v1/me", token: token, json: #"{"units":"metric","settings":{"units":"imperial"}}"#)
            #expect(twice.json["detail"] as? String == "units is given twice, at the top level and in settings: give it once")
            let stray = try await client.send(.patch, "/v1/me", token: token, json: #"{"settings":{"theme":"dark"}}"#)
            #expect(stray.json["detail"] as? String == "unknown field 'settings.theme': the fields are language, home_location, units, notifications")
            let profile = try await client.send(.get, "/v1/users/anna.b")
            #expect(profile.json["display_name"] as? String == "Anna" && profile.json["email"] == nil)
            #expect(try await client.send(.get, "/v1/users/nobody").status == .notFound)
            _ = try await client.account("annabel")
            _ = try await client.account("bob_1")
            let found = try await client.send(.get, "/v1/users?q=ann&limit=1")
            #expect((found.json["users"] as? [[String: Any]])?.map { $0["username"] as? String } == ["anna.b"])
            let cursor = try #require(found.json["next_cursor"] as? String)
            let rest = try await client.send(.get, "/v1/users?q=ann&limit=1&cursor=\(cursor)")
            #expect((rest.json["users"] as? [[String: Any]])?.map { $0["username"] as? String } == ["annabel"])
            #expect(rest.json["next_cursor"] is NSNull)

            // Signed out, the token no longer opens anything; without one, 401 says how to sign in.
            #expect(try await client.send(.delete, "/v1/sessions/current", token: token).status == .noContent)
            let after = try await client.send(.get, "/v1/me", token: token)
            #expect(after.status == .unauthorized && after.headers[.wwwAuthenticate] == "Bearer")
            #expect(try await client.send(.get, "/v1/me").status == .unauthorized)
            #expect(try await client.send(.get, "/v1/me", token: byEmail).status == .ok)
        }
    }

    @Test func passwordsAndTokensAreStoredOnlyAsHashes() async throws {
        let fixture = try await AccountFixture()
        let store = fixture.store
        try await fixture.test { client in
            let token = try await client.account("hashes")
            let account = try #require(try await store.user(named: "hashes"))
            #expect(account.passwordHash.hasPrefix("$2b$11$") && !account.passwordHash.contains("a long enough secret"))
            #expect(try await store.session(tokenHash: token) == nil)
            let session = try #require(try await store.session(tokenHash: SessionToken.hash(token)))
            #expect(session.username == "hashes")
            // 30 days from now, give or take the test's own time.
            #expect(abs(session.expiresAt.timeIntervalSinceNow - 30 * 86_400) < 120)
        }
    }

    /// A token opens its session (read with its account in one statement) until the session
    /// ends: an ended session is 401, a session near its end is moved 30 days on by its use, and
    /// a session whose account is gone opens nothing.
    @Test func sessionsEndAndSlide() async throws {
        let fixture = try await AccountFixture()
        let store = fixture.store
        try await fixture.test { client in
            let token = try await client.account("slider")
            let hash = SessionToken.hash(token)
            let (session, account) = try #require(try await store.sessionWithAccount(tokenHash: hash))
            #expect(session.username == "slider" && account.username == "slider" && account.email == "slider@example.org")
            #expect(try await store.sessionWithAccount(tokenHash: SessionToken.hash("not a token")) == nil)

            // Ended an hour ago: refused, and not revived.
            let ended = SessionToken.make()
            try await store.createSession(
                SessionRecord(
                    tokenHash: SessionToken.hash(ended), username: "slider",
                    createdAt: Date(timeIntervalSinceNow: -40 * 86_400),
                    expiresAt: Date(timeIntervalSinceNow: -3_600)))
            #expect(try await client.send(.get, "/v1/me", token: ended).status == .unauthorized)
            #expect(try await store.session(tokenHash: SessionToken.hash(ended))?.expiresAt ?? .distantFuture < Date())

            // A day left: one request moves its end to 30 days from now.
            let ending = SessionToken.make()
            try await store.createSession(
                SessionRecord(
                    tokenHash: SessionToken.hash(ending), username: "slider",
                    createdAt: Date(timeIntervalSinceNow: -29 * 86_400),
                    expiresAt: Date(timeIntervalSinceNow: 86_400)))
            #expect(try await client.send(.get, "/v1/places/near?lat=0&lon=0&radius=1km", token: ending).status == .ok)
            let slid = try #require(try await store.session(tokenHash: SessionToken.hash(ending)))
            #expect(abs(slid.expiresAt.timeIntervalSinceNow - 30 * 86_400) < 120, "\(slid.expiresAt)")
        }
    }

    /// Stored token hashes are lower-case hex SHA-256 (FIPS 180-2's test vectors), so sessions
    /// written before a change of encoder still open; every byte value encodes as `%02x` does.
    @Test func tokenHashesAreLowerCaseHexSHA256() {
        #expect(SessionToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SessionToken.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let every = (0...255).map { UInt8($0) }
        #expect(Hex.lowercase(every) == every.map { String(format: "%02x", $0) }.joined())
        #expect(Hex.lowercase([UInt8]()) == "")
    }

    @Test func aPasswordChangeEndsEveryOtherSession() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let first = try await client.account("changer")
            let second = try await client.signIn("changer")
            let noCurrent = try await client.send(.patch, "/v1/me", token: first, json: #"{"password":"a brand new passphrase"}"#)
            #expect(noCurrent.status == .badRequest)
            let wrongCurrent = try await client.send(
                .patch, "/v1/me", token: first,
                json: #"{"password":"a brand new passphrase","current_password":"guess guess guess"}"#)
            #expect(wrongCurrent.status == .badRequest)
            let changed = try await client.send(
                .patch, "/v1/me", token: first,
                json: #"{"password":"a brand new passphrase","current_password":"a long enough secret"}"#)
            #expect(changed.status == .ok)
            #expect(try await client.send(.get, "/v1/me", token: first).status == .ok)
            #expect(try await client.send(.get, "/v1/me", token: second).status == .unauthorized)
            let old = try await client.send(.post, "/v1/sessions", json: #"{"username":"changer","password":"a long enough secret"}"#)
            #expect(old.status == .unauthorized)
            _ = try await client.signIn("changer", password: "a brand new passphrase")
        }
    }

    /// `/v1/me/sessions`: every device signed in, what it said it was, and ending one or all
    /// but the asker's; another user can neither see nor end them.
    @Test func aPersonSeesTheirSessionsAndEndsOneOrAllOthers() async throws {
        let fixture = try await AccountFixture()
        let store = fixture.store
        try await fixture.test { client in
            let first = try await client.account("traveller")
            // An expired session: never listed, and gone at the next sign-in.
            let expired = SessionToken.make()
            try await store.createSession(
                SessionRecord(
                    tokenHash: SessionToken.hash(expired), username: "traveller",
                    createdAt: Date(timeIntervalSinceNow: -40 * 86_400),
                    expiresAt: Date(timeIntervalSinceNow: -3_600)))
            let stranger = try await client.account("stranger")
            func signIn(as userAgent: String) async throws -> String {
                let session = try await client.send(
                    .post, "/v1/sessions", json: #"{"username":"traveller","password":"a long enough secret"}"#,
                    headers: [.userAgent: userAgent])
                return try #require(session.json["token"] as? String)
            }
            let phone = try await signIn(as: "GemApp/2.1\t(iPhone;   iOS 19)")
            #expect(try await store.session(tokenHash: SessionToken.hash(expired)) == nil, "deleted at the sign-in")
            let laptop = try await signIn(as: "Firefox/140")
            let listed = try await client.send(.get, "/v1/me/sessions", token: laptop)
            #expect(listed.status == .ok && listed.headers[.cacheControl] == "no-store")
            let sessions = listed.json["sessions"] as? [[String: Any]] ?? []
            #expect(listed.json["count"] as? Int == 3 && sessions.count == 3)
            #expect(sessions.filter { $0["current"] as? Bool == true }.map { $0["client"] as? String } == ["Firefox/140"])
            let phoneID = try #require(sessions.first { $0["client"] as? String == "GemApp/2.1 (iPhone; iOS 19)" }?["id"] as? String)
            #expect(phoneID == SessionToken.publicID(ofHash: SessionToken.hash(phone)) && phoneID.count == 16)
            #expect(sessions.allSatisfy { $0["created_at"] is String && $0["last_used_at"] is String && $0["expires_at"] is String })
            for secret in [first, phone, laptop] {
                #expect(!listed.text.contains(secret) && !listed.text.contains(SessionToken.hash(secret)), "no token, no stored hash")
            }

            // Another user sees only their own and cannot end this one.
            let theirs = try await client.send(.get, "/v1/me/sessions", token: stranger).json
            #expect(theirs["count"] as? Int == 1 && !(String(describing: theirs)).contains(phoneID))
            #expect(try await client.send(.delete, "/v1/me/sessions/\(phoneID)", token: stranger).status == .notFound)
            #expect(try await client.send(.delete, "/v1/me/sessions", token: stranger).json["ended"] as? Int == 0)
            #expect(try await client.send(.get, "/v1/me", token: phone).status == .ok, "still signed in")
            #expect(try await client.send(.get, "/v1/me/sessions").status == .unauthorized)

            // The lost phone is signed out from the laptop.
            #expect(try await client.send(.delete, "/v1/me/sessions/\(phoneID)", token: laptop).status == .noContent)
            #expect(try await client.send(.get, "/v1/me", token: phone).status == .unauthorized)
            let unknown = try await client.send(.delete, "/v1/me/sessions/\(phoneID)", token: laptop)
            #expect(unknown.status == .notFound && (unknown.json["detail"] as? String)?.contains("no session \(phoneID) among yours") == true)
            #expect(try await client.send(.get, "/v1/me/sessions", token: laptop).json["count"] as? Int == 2)

            // Everywhere else: the first session ends, the laptop's stays.
            #expect(try await client.send(.delete, "/v1/me/sessions", token: laptop).json["ended"] as? Int == 1)
            #expect(try await client.send(.get, "/v1/me", token: first).status == .unauthorized)
            let left = try await client.send(.get, "/v1/me/sessions", token: laptop).json["sessions"] as? [[String: Any]] ?? []
            #expect(left.count == 1 && left.first?["current"] as? Bool == true)
            #expect(try await client.send(.get, "/v1/me", token: stranger).status == .ok, "the other user's session is untouched")
        }
    }

    /// Every answer says not to sniff, frame or refer; the map page has a policy of its own (its
    /// inline script by hash, and it may be embedded); an answer to a signed-in request is never
    /// stored by a cache.
    @Test func securityHeadersOnEveryAnswer() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let token = try await client.account("careful")
            let near = "/v1/places/near?lat=48.8584&lon=2.2945&radius=1km"
            for (path, who) in [("/healthz", nil), (near, nil), (near, token), ("/v1/me", token), ("/v1/nowhere", nil)] as [(String, String?)] {
                let answer = try await client.send(.get, path, token: who)
                #expect(answer.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
                #expect(answer.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
                #expect(answer.headers[HTTPField.Name("Content-Security-Policy")!] == "default-src 'none'; frame-ancestors 'none'", "\(path)")
                #expect(answer.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(path)")
                if who != nil { #expect(answer.headers[.cacheControl] == "no-store", "\(path) signed in") }
            }
            #expect(try await client.send(.get, near).headers[.cacheControl] != "no-store", "an anonymous answer may be cached")
            let page = try await client.send(.get, "/")
            let policy = try #require(page.headers[HTTPField.Name("Content-Security-Policy")!])
            #expect(
                policy.contains("script-src 'self' 'sha256-") && !policy.contains("frame-ancestors")
                    && policy.contains("img-src 'self' data: https://tile.openstreetmap.org"), "\(policy)")
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == nil)
        }
    }

    @Test func signInsAreRateLimitedPerAccountAndPerAddress() async throws {
        let fixture = try await AccountFixture {
            $0.signInAttemptsPerAccount = 3
            $0.signInAttemptsPerAddress = 8
            // An hour, not the minute it is by default: a busy test machine may take more than a
            // minute over the bcrypt hashes below, and the first attempts would age out.
            $0.signInAddressWindow = .seconds(3_600)
        }
        try await fixture.test { client in
            _ = try await client.account("target")
            // The guesses count against the account whichever of its names they give: once they
            // counted per identifier, and an account got a window's guesses per name.
            for login in ["target", "target@example.org", "TARGET"] {
                let wrong = try await client.send(.post, "/v1/sessions", json: #"{"username":"\#(login)","password":"wrong wrong wrong"}"#)
                #expect(wrong.status == .unauthorized)
            }
            // Even the right password waits now, by either name: the account is locked for the window.
            let byEmail = try await client.send(.post, "/v1/sessions", json: #"{"username":"Target@example.org","password":"a long enough secret"}"#)
            #expect(byEmail.status == .tooManyRequests, "\(byEmail.text)")
            let locked = try await client.send(.post, "/v1/sessions", json: #"{"username":"target","password":"a long enough secret"}"#)
            #expect(locked.status == .tooManyRequests)
            let wait = try #require(locked.headers[.retryAfter].flatMap { Int($0) })
            #expect(wait > 0 && wait <= 900)
            #expect((locked.json["detail"] as? String)?.hasPrefix("too many sign-in attempts") == true)
            // Other accounts from the same address: the address limit (8 attempts in the window)
            // counts all, those above among them (sign-up signs in without an attempt).
            var statuses: [HTTPResponse.Status] = []
            for n in 0..<6 {
                statuses.append(
                    try await client.send(.post, "/v1/sessions", json: #"{"username":"other\#(n)","password":"wrong wrong wrong"}"#).status)
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 5 && statuses.last == .tooManyRequests, "\(statuses)")
        }
    }

    /// Each sign-up costs a bcrypt hash, and a wrong current password is a guess: both are limited.
    @Test func signUpsAndPasswordGuessesAreRateLimited() async throws {
        let fixture = try await AccountFixture {
            $0.signUpsPerAddress = 2
            $0.signInAttemptsPerAccount = 2
        }
        try await fixture.test { client in
            let token = try await client.account("first.one")
            _ = try await client.account("second.one")
            let third = try await client.send(
                .post, "/v1/users", json: #"{"username":"third.one","email":"t@example.org","password":"a long enough secret"}"#)
            #expect(third.status == .tooManyRequests && third.headers[.retryAfter] != nil)
            for _ in 0..<2 {
                let guess = try await client.send(
                    .patch, "/v1/me", token: token, json: #"{"password":"a brand new passphrase","current_password":"just a guess here"}"#)
                #expect(guess.status == .badRequest)
            }
            let right = try await client.send(
                .patch, "/v1/me", token: token,
                json: #"{"password":"a brand new passphrase","current_password":"a long enough secret"}"#)
            #expect(right.status == .tooManyRequests, "locked for the window, even with the right password")
        }
    }

    @Test func deletingAnAccountDeletesWhatItMade() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let leaving = try await client.account("leaving")
            let staying = try await client.account("staying")
            let publicGem = try await client.gem(leaving, name: "Leaver's Lookout", lat: 10.001, lon: 20.001, visibility: "public")
            let privateGem = try await client.gem(leaving, name: "Leaver's Secret", lat: 10.002, lon: 20.002, visibility: "private")
            let stayingGem = try await client.gem(staying, name: "Stayer's Spring", lat: 10.003, lon: 20.003, visibility: "public")
            #expect(try await client.send(.put, "/v1/gems/\(stayingGem)/rating", token: leaving, json: #"{"stars":5}"#).status == .ok)
            #expect(try await client.send(.put, "/v1/me/favorites/\(publicGem)", token: staying).status == .created)

            #expect(try await client.send(.delete, "/v1/me", token: leaving).status == .noContent)
            #expect(try await client.send(.get, "/v1/me", token: leaving).status == .unauthorized)
            for gem in [publicGem, privateGem] {
                #expect(try await client.send(.get, "/v1/gems/\(gem)").status == .notFound)
            }
            #expect(try await client.ids("/v1/places/near?lat=10&lon=20&radius=5km") == [stayingGem])
            // The rating left with its author; the favourite of the deleted gem is listed as gone.
            let rating = try await client.send(.get, "/v1/gems/\(stayingGem)", token: staying)
            #expect(rating.json["rating"] == nil && rating.json["id"] as? String == stayingGem)
            let favorites = try await client.send(.get, "/v1/me/favorites", token: staying)
            #expect((favorites.json["favorites"] as? [[String: Any]])?.first?["status"] as? String == "gone")
            // The username is free again.
            _ = try await client.account("leaving")
        }
    }

    /// `GET /v1/me/export`: everything one user made or was given — their private gems too —
    /// as a download, and nothing of anyone else's that they may not see.
    @Test func anExportHoldsEverythingTheUserMadeAndNothingOfOthers() async throws {
        let fixture = try await AccountFixture()
        try await fixture.test { client in
            let ann = try await client.account("exporter")
            let bob = try await client.account("neighbour")
            let lookout = try await client.gem(ann, name: "Exporter's Lookout", lat: 30.001, lon: 40.001, visibility: "public")
            let secret = try await client.gem(ann, name: "Exporter's Secret", lat: 30.002, lon: 40.002, visibility: "private")
            let spring = try await client.gem(bob, name: "Neighbour's Spring", lat: 30.003, lon: 40.003, visibility: "public")
            let hideaway = try await client.gem(bob, name: "Neighbour's Hideaway", lat: 30.004, lon: 40.004, visibility: "private")
            #expect(try await client.send(.put, "/v1/gems/\(spring)/rating", token: ann, json: #"{"stars":4}"#).status == .ok)
            #expect(try await client.send(.put, "/v1/me/favorites/\(spring)", token: ann).status == .created)
            let photo = try await client.send(.post, "/v1/gems/\(lookout)/photos", token: ann, bytes: TestImages.png(withText: false))
            #expect(photo.status == .created)
            #expect(try await client.send(.post, "/v1/me/friends/neighbour", token: ann).status == .created)
            #expect(try await client.send(.post, "/v1/itineraries", token: ann, json: PlanRouteTests.itinerary).status == .created)
            let trip = try await client.send(
                .post, "/v1/trips", token: bob,
                json: TripRouteTests.trip(
                    start: "2030-06-12T12:00:00+02:00", end: "2030-06-12T16:00:00+02:00", invitees: ["exporter"]))
            #expect(trip.status == .created, "\(trip.text)")

            #expect(try await client.send(.get, "/v1/me/export").status == .unauthorized)
            let export = try await client.send(.get, "/v1/me/export", token: ann)
            #expect(export.status == .ok)
            #expect(export.headers[HTTPField.Name("Content-Disposition")!] == "attachment; filename=\"geoquery-export-exporter.json\"")
            #expect(export.headers[.cacheControl] == "no-store")
            let json = export.json
            let exportedSessions = json["sessions"] as? [[String: Any]] ?? []
            #expect(exportedSessions.count == 1 && exportedSessions.first?["current"] as? Bool == true, "\(exportedSessions)")
            #expect(json["format"] as? String == "geoquery-export/1")
            let account = json["account"] as? [String: Any]
            #expect(account?["username"] as? String == "exporter" && account?["email"] as? String == "exporter@example.org")
            #expect(
                Set(((json["gems"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }) == [lookout, secret],
                "every gem they own, the private one too")
            let ratings = (json["ratings"] as? [[String: Any]]) ?? []
            #expect(ratings.count == 1 && ratings.first?["gem_id"] as? String == spring && ratings.first?["stars"] as? Int == 4)
            #expect(((json["favorites"] as? [[String: Any]]) ?? []).compactMap { $0["place_id"] as? String } == [spring])
            #expect(((json["photos"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == [photo.json["id"] as? String ?? "?"])
            let friends = (json["friends"] as? [[String: Any]]) ?? []
            #expect(friends.count == 1 && friends.first?["username"] as? String == "neighbour" && friends.first?["state"] as? String == "requested")
            #expect((json["itineraries"] as? [[String: Any]])?.first?["title"] as? String == "Paris in spring")
            #expect((json["trips"] as? [[String: Any]])?.first?["title"] as? String == "Picnic", "a trip they were invited to")
            #expect(((json["notifications"] as? [[String: Any]]) ?? []).contains { $0["kind"] as? String == "trip_invitation" })
            // Nothing of the neighbour's they may not see; no secret of their own account.
            #expect(!export.text.contains(hideaway) && !export.text.contains("Neighbour's Hideaway"))
            #expect(!export.text.contains("password") && !export.text.contains(ann), "no password hash, no token")

            let theirs = try await client.send(.get, "/v1/me/export", token: bob)
            #expect(Set(((theirs.json["gems"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }) == [spring, hideaway])
            #expect(!theirs.text.contains(secret) && !theirs.text.contains("Exporter's Secret"), "the other user's export is theirs alone")
        }
    }

    /// An export longer than a page of each list and than one piece of the answer is whole,
    /// over real sockets (chunked): every gem and favourite once, in order, and the document
    /// valid JSON to its end.
    @Test func aLargeExportIsSentInPiecesAndIsWhole() async throws {
        let fixture = try await AccountFixture()
        let now = Date()
        try await fixture.test(.live) { client in
            let ann = try await client.account("collector")
            let other = try await client.account("bystander")
            let count = UserExport.pageSize * 2 + 7
            var made: [String] = []
            for number in 0..<count {
                let local = String(format: "collector%05d", number)
                let id = try PlaceID(source: "gem", localID: local)
                let owner = number % 50 == 49 ? "bystander" : "collector"
                try await fixture.store.createGem(
                    Place(
                        id: id, name: "Gem \(number) " + String(repeating: "long name ", count: 8),
                        coordinate: try Coordinate(latitude: 10 + Double(number) / 1_000, longitude: 20),
                        provenance: Provenance(source: "gem", sourceID: local),
                        gem: HiddenGem(
                            owner: owner, visibility: number % 3 == 0 ? .private : .public,
                            createdAt: now, updatedAt: now)))
                if owner == "collector" { made.append(id.rawValue) }
                if number % 2 == 0 { _ = try await fixture.store.addFavorite(id, for: "collector", at: now) }
            }
            // Read with URLSession and 2 minutes to spare: HummingbirdTesting's live client gives
            // up after 20 s without a byte, which a busy machine running every suite at once
            // reached (86 s for this test once, 9 s alone).
            let port = try #require(client.client.port)
            var exportRequest = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/v1/me/export")), timeoutInterval: 120)
            exportRequest.setValue("Bearer \(ann)", forHTTPHeaderField: "Authorization")
            let (exportBody, exportResponse) = try await URLSession.shared.data(for: exportRequest)
            #expect((exportResponse as? HTTPURLResponse)?.statusCode == 200)
            let exportText = String(decoding: exportBody, as: UTF8.self)
            #expect(exportText.utf8.count > UserExport.pieceBytes * 2, "several pieces: \(exportText.utf8.count) bytes")
            let json = (try? JSONSerialization.jsonObject(with: exportBody)) as? [String: Any] ?? [:]
            #expect(json["format"] as? String == "geoquery-export/1", "the document parses to its end")
            let gems = ((json["gems"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            #expect(gems == made.sorted(), "every gem of theirs once, in id order, over three pages: \(gems.count) of \(made.count)")
            let favorites = ((json["favorites"] as? [[String: Any]]) ?? []).compactMap { $0["place_id"] as? String }
            #expect(favorites.count == (count + 1) / 2 && Set(favorites).count == favorites.count, "\(favorites.count)")
            #expect((json["sessions"] as? [[String: Any]])?.count == 1, "the sections after the long ones are there")
            #expect(!exportText.contains("collector00049"), "not the bystander's gems")
            // Also with time to spare: a loaded make test once passed the live client's 20 s here.
            exportRequest.setValue("Bearer \(other)", forHTTPHeaderField: "Authorization")
            let (smallBody, smallResponse) = try await URLSession.shared.data(for: exportRequest)
            let small = (try? JSONSerialization.jsonObject(with: smallBody)) as? [String: Any] ?? [:]
            #expect(
                (smallResponse as? HTTPURLResponse)?.statusCode == 200 && small["format"] as? String == "geoquery-export/1",
                "a short export ends too: \(String(decoding: smallBody.prefix(200), as: UTF8.self))")
        }
    }
}

/// Blocking work on a thread of its own, awaited without holding a cooperative thread.
final class BlockingJob<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `outcome` is written once by the job's thread before `done` is
    // signalled, and read only after the signal.
    private var outcome: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            outcome = Result { try body() }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    func result() async throws -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                done.wait()
                continuation.resume()
            }
        }
        return try outcome!.get()
    }
}

/// Gems live in a store of their own: a nightly import holds the places file's write lock for
/// its whole transaction, and a gem write must not wait for it.
@Suite(.ownThreads) struct ImportVersusGemWriteTests {
    /// Thread-safe record of what the import saw.
    final class Record: @unchecked Sendable {
        // @unchecked Sendable: `gemWrittenDuringImport` is written by the import thread before it
        // signals, read by the test after it joins the import.
        var gemWrittenDuringImport = false
    }

    @Test func aGemIsWrittenWhileAnImportHoldsThePlacesFile() async throws {
        let fixture = try await AccountFixture()
        let directory = fixture.directory
        // 120 000 rows: the importer reports progress every 50 000, inside its transaction.
        let csv = directory.appendingPathComponent("nightly.csv")
        var text = "id,name,lat,lon\n"
        for n in 0..<120_000 { text += "\(n),Place \(n),\(Double(n % 1_700) / 20 - 42),\(Double(n % 3_500) / 10 - 175)\n" }
        try text.write(to: csv, atomically: true, encoding: .utf8)
        let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("places.sqlite").path, mode: .createIfMissing)
        try index.upsert([try Place(id: PlaceID("nightly:seed"), name: "Seed", coordinate: Coordinate(latitude: 1, longitude: 1))])

        let underWay = DispatchSemaphore(value: 0), gemWritten = DispatchSemaphore(value: 0)
        let record = Record()
        // The import runs on a thread of its own, as `geoquery import` runs in its own process:
        // it blocks while it holds the transaction, which must not take a thread of the
        // cooperative pool that the service and the other tests run on.
        let importing = BlockingJob {
            var first = true
            return try PlaceImporter.importFile(
                csv.path, format: .csv, into: index, source: "nightly",
                progress: { _, _ in
                    guard first else { return }
                    first = false
                    underWay.signal()
                    // Hold the transaction open until the gem is written (or 180 s, so a failure ends).
                    record.gemWrittenDuringImport = gemWritten.wait(timeout: .now() + 180) == .success
                })
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                underWay.wait()
                continuation.resume()
            }
        }
        try await fixture.test { client in
            let owner = try await client.account("night.owl")
            let gem = try await client.gem(owner, name: "Written mid-import", lat: 12, lon: 34, visibility: "public")
            gemWritten.signal()
            #expect(try await client.ids("/v1/gems/near?lat=12&lon=34") == [gem])
        }
        let summary = try await importing.result()
        #expect(record.gemWrittenDuringImport, "the gem was written while the import's transaction was open")
        #expect(summary.rowsRead == 120_000)
        #expect(try index.count(source: "nightly") == 120_000)
    }
}
