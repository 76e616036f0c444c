import Foundation
import GeoQueryServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// CORS: which pages on other origins may read the API from a browser, the preflights, and
/// that errors carry the headers as answers do. A real browser's view is in
/// ``LiveServerTests/aPageOnAnotherOriginUsesTheAPIInARealBrowser()``.
@Suite struct CrossOriginTests {
    static let app = "https://app.example.com"
    static let other = "https://elsewhere.example.net"

    @Test func originListsAreReadAsBrowsersWriteThem() throws {
        #expect(try AllowedOrigins(parsing: "") == .none)
        #expect(try AllowedOrigins(parsing: " * ") == .any)
        #expect(
            try AllowedOrigins(parsing: "HTTPS://App.Example.com:443, http://localhost:5173,http://[::1]:80,https://app.example.com")
                == .only(["https://app.example.com", "http://localhost:5173", "http://[::1]"]))
        let bad = [
            "app.example.com": "app.example.com", "https://app.example.com/": "https://app.example.com/",
            "https://app.example.com/path": "https://app.example.com/path", "ftp://files.example.com": "ftp://files.example.com",
            "https://": "https://", "https://a.example:0": "https://a.example:0", "https://a.example:99999": "https://a.example:99999",
            "*,https://a.example": "*", "https://a.example,": "", "https://user@a.example": "https://user@a.example",
            "https://a.example?x=1": "https://a.example?x=1", "http://a.example:８０": "http://a.example:８０",
            "https://a]b.example": "https://a]b.example", "http://[]": "http://[]", "http://[::g]": "http://[::g]",
        ]
        for (text, part) in bad {
            #expect(throws: AllowedOrigins.ParseError(value: part), "\(text)") { try AllowedOrigins(parsing: text) }
        }
        #expect(
            AllowedOrigins.ParseError(value: "app.example.com").description
                == "'app.example.com' is not an origin: give scheme://host[:port] with http or https and no path "
                + "(such as https://app.example.com), several separated by commas, or * for any origin")
    }

    @Test func anAllowedOriginReadsAnswersAndErrorsAndIsAskedFirst() async throws {
        let fixture = try await AccountFixture { $0.allowedOrigins = .only([Self.app]) }
        try await fixture.test { client in
            let origin: HTTPFields = [.origin: Self.app]
            var preflight = origin
            preflight[.accessControlRequestMethod] = "PATCH"
            preflight[.accessControlRequestHeaders] = "authorization, content-type"
            let asked = try await client.send(.options, "/v1/gems/gem:anything", headers: preflight)
            #expect(asked.status == .noContent)
            #expect(asked.headers[.accessControlAllowOrigin] == Self.app)
            let methods = asked.headers[.accessControlAllowMethods] ?? ""
            #expect(["GET", "POST", "PUT", "PATCH", "DELETE"].allSatisfy { methods.contains($0) }, "\(methods)")
            let allowedHeaders = asked.headers[.accessControlAllowHeaders] ?? ""
            #expect(allowedHeaders.contains("authorization") && allowedHeaders.contains("content-type"), "\(allowedHeaders)")
            #expect(asked.headers[.accessControlMaxAge] == "600")
            #expect(asked.headers[.accessControlAllowCredentials] == nil, "no cookies are ever asked for")

            let ann = try await client.account("ann")
            let made = try await client.send(
                .post, "/v1/gems", token: ann, json: #"{"name":"Quiet cove","lat":43.73,"lon":7.42,"visibility":"public"}"#,
                headers: origin)
            #expect(made.status == .created && made.headers[.accessControlAllowOrigin] == Self.app)
            #expect(made.headers[values: .vary].contains("Origin"))
            let exposed = made.headers[.accessControlExposeHeaders] ?? ""
            #expect(["Link", "Retry-After", "ETag", "Location", "WWW-Authenticate"].allSatisfy { exposed.contains($0) }, "\(exposed)")

            let bad = try await client.send(.get, "/v1/places/near?lat=91&lon=7.42", headers: origin)
            #expect(bad.status == .badRequest && bad.headers[.contentType] == "application/problem+json")
            #expect(bad.headers[.accessControlAllowOrigin] == Self.app, "a page can read why it was refused")
            let anonymous = try await client.send(.get, "/v1/me", headers: origin)
            #expect(anonymous.status == .unauthorized && anonymous.headers[.accessControlAllowOrigin] == Self.app)
            let missing = try await client.send(.get, "/v2/nothing", headers: origin)
            #expect(missing.status == .notFound && missing.headers[.accessControlAllowOrigin] == Self.app)
        }
    }

    /// CORS lets a page read answers; it gives no one a right they lack. Another user's edit from
    /// an allowed origin is refused as from anywhere, and changes nothing.
    @Test func anAllowedOriginGainsNoRightsOverAnothersGem() async throws {
        let fixture = try await AccountFixture { $0.allowedOrigins = .only([Self.app]) }
        try await fixture.test { client in
            let origin: HTTPFields = [.origin: Self.app]
            let ann = try await client.account("ann"), bob = try await client.account("bob")
            let id = try await client.gem(ann, name: "Quiet cove", lat: 43.73, lon: 7.42, visibility: "public")
            let edit = try await client.send(.patch, "/v1/gems/\(id)", token: bob, json: #"{"name":"Bob's now"}"#, headers: origin)
            #expect(edit.status == .forbidden && edit.headers[.accessControlAllowOrigin] == Self.app)
            let delete = try await client.send(.delete, "/v1/gems/\(id)", token: bob, headers: origin)
            #expect(delete.status == .forbidden)
            let gem = try await client.send(.get, "/v1/gems/\(id)", headers: origin)
            #expect(gem.json["name"] as? String == "Quiet cove")
        }
    }

    @Test func anotherOriginGetsNoHeadersAndNoPreflight() async throws {
        try await ServerFixture.service { $0.allowedOrigins = .only([Self.app]) }.makeApplication().test(.router) { client in
            let answer = try await client.execute(
                uri: "/v1/places/near?lat=43.7396&lon=7.4276&radius=1km", method: .get,
                headers: [.origin: Self.other])
            #expect(answer.status == .ok && answer.headers[.accessControlAllowOrigin] == nil)
            #expect(answer.headers[values: .vary].contains("Origin"), "the answer depends on the origin")
            let asked = try await client.execute(
                uri: "/v1/places/near", method: .options,
                headers: [.origin: Self.other, .accessControlRequestMethod: "GET"])
            #expect(asked.status == .methodNotAllowed && asked.headers[.accessControlAllowOrigin] == nil)
            let nullOrigin = try await client.execute(uri: "/healthz", method: .get, headers: [.origin: "null"])
            #expect(nullOrigin.headers[.accessControlAllowOrigin] == nil)
            let plain = try await client.execute(uri: "/healthz", method: .get)
            #expect(plain.headers[.accessControlAllowOrigin] == nil && plain.headers[values: .vary].contains("Origin"))
        }
    }

    @Test func noOriginByDefaultAndAnyOriginOnRequest() async throws {
        try await ServerFixture.service().makeApplication().test(.router) { client in
            let answer = try await client.execute(uri: "/healthz", method: .get, headers: [.origin: Self.app])
            #expect(answer.status == .ok && answer.headers[.accessControlAllowOrigin] == nil)
            let asked = try await client.execute(uri: "/v1/places/near", method: .options, headers: [.origin: Self.app])
            #expect(asked.status == .methodNotAllowed)
        }
        try await ServerFixture.service { $0.allowedOrigins = .any }.makeApplication().test(.router) { client in
            let answer = try await client.execute(uri: "/healthz", method: .get, headers: [.origin: Self.other])
            #expect(answer.headers[.accessControlAllowOrigin] == "*")
            #expect(!answer.headers[values: .vary].contains("Origin"), "one answer for every origin")
            let asked = try await client.execute(
                uri: "/v1/places/near", method: .options,
                headers: [.origin: Self.other, .accessControlRequestMethod: "GET"])
            #expect(asked.status == .noContent && asked.headers[.accessControlAllowOrigin] == "*")
        }
    }
}
