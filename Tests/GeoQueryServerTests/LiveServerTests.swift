import Accounts
import Foundation
import GeoCore
import GeoQueryServer
import Hummingbird
import HummingbirdTesting
import PlaceModel
import PlaceQuery
import ProviderTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The service over real sockets: a live request, clients that stall or vanish, and a real
/// browser drawing the map page.
@Suite(.serialized) struct LiveServerTests {
    @Test func aLiveRequestOverRealSockets() async throws {
        let app = try ServerFixture.service().makeApplication()
        try await app.test(.live) { client in
            let response = try await client.execute(uri: "/v1/places/nearest?lat=43.7396&lon=7.4276&k=2&category=food", method: .get)
            #expect(response.status == .ok)
            #expect((response.json["places"] as? [Any])?.count == 2)
            #expect(client.port != nil)
        }
    }

    /// A client that asks for a large answer and never reads it, and one that disconnects
    /// half-way, hold neither the server nor other clients.
    @Test func stalledAndVanishingClientsDoNotHoldTheServer() async throws {
        try await withLiveServer(try ServerFixture.service()) { port in
            // The clients block in socket calls, so they run on a thread of their own: on the
            // cooperative pool they would take a thread the server's handlers need (the pool has
            // one per core, and other suites block theirs too), and a wait for the server could
            // then be a wait for ourselves.
            let replies = try await onAThreadOfItsOwn {
                let request = "GET /v1/places/bbox?bbox=-180,-90,180,90&limit=500&format=geojson HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                var stalled: [Int32] = []
                for _ in 0..<8 {
                    let socket = try RawSocket.connect(port: port)
                    try RawSocket.send(socket, request + request + request)  // pipelined, never read
                    stalled.append(socket)
                }
                for _ in 0..<8 {
                    let socket = try RawSocket.connect(port: port)
                    try RawSocket.send(socket, request)
                    _ = try RawSocket.receive(socket, atMost: 1000)  // read the start, then vanish
                    close(socket)
                }
                // Each read waits at most 120 s (SO_RCVTIMEO) and throws if nothing comes: a held
                // server never answers and fails the test, without asserting how long anything took.
                var replies: [String] = []
                for _ in 0..<20 {
                    let socket = try RawSocket.connect(port: port)
                    try RawSocket.send(socket, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    replies.append(try RawSocket.receive(socket, atMost: 4096))
                    close(socket)
                }
                for socket in stalled { close(socket) }
                return replies
            }
            #expect(replies.count == 20 && replies.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK") })
        }
    }

    /// A connection with no request under way is closed after the idle timeout: one that never
    /// sends, one that stops half-way through a request head (slowloris), and a kept-alive one
    /// after its answer. (Each read waits at most 120 s and fails the test if the server never
    /// closes; nothing here asserts how long anything took.)
    @Test func idleConnectionsAreClosed() async throws {
        let service = try ServerFixture.service { $0.idleTimeout = .milliseconds(400) }
        try await withLiveServer(service) { port in
            let outcome = try await onAThreadOfItsOwn {
                let silent = try RawSocket.connect(port: port)
                let trickling = try RawSocket.connect(port: port)
                try RawSocket.send(trickling, "GET /healthz HTTP/1.1\r\nHost: 127.")
                let keptAlive = try RawSocket.connect(port: port)
                try RawSocket.send(keptAlive, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                let answer = try RawSocket.receive(keptAlive, atMost: 4096)
                let closed = [silent, trickling, keptAlive].map { RawSocket.closedByPeer($0) }
                [silent, trickling, keptAlive].forEach { close($0) }
                let fresh = try RawSocket.connect(port: port)
                try RawSocket.send(fresh, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let later = try RawSocket.receive(fresh, atMost: 4096)
                close(fresh)
                return (answer, closed, later)
            }
            #expect(outcome.0.hasPrefix("HTTP/1.1 200 OK"))
            #expect(outcome.1 == [true, true, true], "silent, trickling, kept alive")
            #expect(outcome.2.hasPrefix("HTTP/1.1 200 OK"), "the server still answers new connections")
        }
    }

    /// A body whose declared length is over the route's limit is answered 413 at once, before a
    /// byte of it is read, and the connection is closed: a `Content-Length` of 10¹² once got no
    /// answer and held the socket until the idle timeout. (The idle timeout here is longer than
    /// the socket's 120 s read: only the server's closing ends the read with true.)
    @Test func aBodyDeclaredTooLargeIsRefusedAtOnceAndTheConnectionCloses() async throws {
        let service = try ServerFixture.service { $0.idleTimeout = .seconds(600) }
        try await withLiveServer(service) { port in
            /// Declares a terabyte, sends one byte: the answer, and whether the server then closed.
            func declareATerabyte(_ path: String) async throws -> (String, Bool) {
                try await onAThreadOfItsOwn {
                    let socket = try RawSocket.connect(port: port)
                    defer { close(socket) }
                    try RawSocket.send(
                        socket, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n{"
                    )
                    let answer = try RawSocket.receive(socket, atMost: 4096)
                    return (answer, RawSocket.closedByPeer(socket))
                }
            }
            let (answer, closed) = try await declareATerabyte("/v1/route")
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
            #expect(answer.contains("1000000000000 bytes"), "the sentence names the declared size")
            #expect(closed, "the server closed the connection")
            // Refused for another reason first (no user store here: 503), the same.
            let (other, otherClosed) = try await declareATerabyte("/v1/gems")
            #expect(other.hasPrefix("HTTP/1.1 4") || other.hasPrefix("HTTP/1.1 5"), "\(other)")
            #expect(otherClosed, "the server closed the connection")
        }
    }

    /// Runs blocking work on a new thread and waits for it without holding a thread of the
    /// cooperative pool.
    func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Headless Chromium loads the map page from a live server, searches "Paris" (the page's
    /// `?q=` parameter does what typing does) and must draw markers and list places within 20
    /// miles. Tiles point at a closed port: the points are drawn without them. A screenshot is
    /// kept at .build/map-page.png for people to look at.
    @Test func theMapPageDrawsPlacesInARealBrowser() async throws {
        let chromium = try #require(Self.chromium, "Debian's chromium must be installed (make deps)")
        let service = try ServerFixture.service { $0.tilesURL = "http://127.0.0.1:9/{z}/{x}/{y}.png" }
        try await withLiveServer(service) { port in
            let url = "http://127.0.0.1:\(port)/?q=Paris"
            let dom = try await run(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--dump-dom", url])
            let listed = dom.components(separatedBy: "class=\"place\"").count - 1
            let markers = dom.components(separatedBy: "gq-marker").count - 1
            #expect(listed >= 50, "the list within 20 miles of Paris is filled")
            #expect(markers >= 20, "markers are drawn")
            #expect(dom.contains("places within 20 miles, nearest first"))
            #expect(dom.contains("data-id=\"geonames:2988507\""), "Paris itself is listed")
            #expect(dom.contains("<div id=\"where\" aria-live=\"polite\">Near Paris, France · Europe/Paris</div>"), "the circle's centre in words")
            let screenshot = repositoryRoot.appendingPathComponent(".build/map-page.png").path
            _ = try await run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000",
                    "--window-size=1200,800", "--screenshot=\(screenshot)", url,
                ])
            #expect(FileManager.default.fileExists(atPath: screenshot))
            // A city-state is named once.
            let monaco = try await run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--dump-dom",
                    "http://127.0.0.1:\(port)/?q=Monaco",
                ])
            #expect(monaco.contains("<div id=\"where\" aria-live=\"polite\">Near Monaco · Europe/Monaco</div>"), "the caption of Monaco")
        }
    }

    /// The category filter: its list is the taxonomy from /v1/categories, and `?category=`
    /// narrows the places in view and the 20-mile list (beside Paris, transport is the airports).
    @Test func theMapPageFiltersByCategory() async throws {
        let chromium = try #require(Self.chromium, "Debian's chromium must be installed (make deps)")
        let service = try ServerFixture.service { $0.tilesURL = "http://127.0.0.1:9/{z}/{x}/{y}.png" }
        try await withLiveServer(service) { port in
            let dom = try await run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--dump-dom",
                    "http://127.0.0.1:\(port)/?q=Paris&category=transport",
                ])
            #expect(dom.components(separatedBy: "<option").count - 1 == Category.taxonomy.count + 1, "every category and 'All categories'")
            let items = dom.components(separatedBy: "class=\"place\"").dropFirst()
            #expect(items.count >= 3, "the airports within 20 miles of Paris are listed")
            #expect(items.allSatisfy { $0.components(separatedBy: "</li>")[0].contains("data-categories=\"transport") }, "only transport is listed")
            #expect(dom.contains("<div class=\"categories\">Airport</div>"), "categories are shown by their labels")
            #expect(dom.contains("data-id=\"airport:LFPO\"") && !dom.contains("data-id=\"geonames:2988507\""), "Orly, not the city of Paris")
        }
    }

    /// Offline (tiles on a closed port), the map page draws the shipped country borders and
    /// says that tiles are unavailable. A link with `lat`, `lon`, `zoom` and `q` opens that view
    /// and searches the places in it; the address bar keeps following the view; the view's
    /// count and the list's status are two lines; on a phone's 390 px the map keeps the top
    /// half; the API description and each place's JSON are linked.
    @Test func theMapPageWorksOfflineOnAPhoneAndCanBeShared() async throws {
        let chromium = try #require(Self.chromium, "Debian's chromium must be installed (make deps)")
        let service = try ServerFixture.service { $0.tilesURL = "http://127.0.0.1:9/{z}/{x}/{y}.png" }
        try await withLiveServer(service) { port in
            let dom = try await run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--window-size=390,844", "--dump-dom",
                    "http://127.0.0.1:\(port)/?lat=43.7396&lon=7.4276&zoom=15&q=cafe",
                ])
            #expect(dom.contains("data-basemap=\"countries\""), "the borders are the base map")
            #expect(dom.contains("Map tiles are unavailable; showing country borders instead."))
            #expect(dom.components(separatedBy: "gq-border").count > 10, "the borders are drawn")
            #expect(dom.contains("data-permalink=\"?lat=43.73960&amp;lon=7.42760&amp;zoom=15&amp;q=cafe\""), "the link's view, kept in the URL")
            #expect(dom.contains("places in view match “cafe”, nearest first"), "the list says what it lists")
            #expect(dom.contains("data-id=\"osm:n4316767531\""), "Café de Paris is found")
            let viewStatus = (dom.components(separatedBy: "<div id=\"view-status\" aria-live=\"polite\">").dropFirst().first ?? "")
                .components(separatedBy: "</div>")[0]
            #expect(viewStatus.hasSuffix(" places in view"), "the view's count has its own line: \(viewStatus)")
            #expect(dom.contains("href=\"/openapi.json\""), "the API is linked")
            let size = dom.components(separatedBy: "data-map-size=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
            let parts = size.split(separator: "x").compactMap { Int($0) }
            #expect(parts.count == 2 && parts[0] >= 380 && parts[1] >= 400, "the map on a phone: \(size)")
        }
    }

    /// The map page is anonymous: a public gem beside Paris is in its "within 20 miles" list
    /// in headless Chromium, and a private gem at the same spot is in no part of the page.
    @Test func theMapPageShowsPublicGemsAndNoPrivateOnes() async throws {
        let chromium = try #require(Self.chromium, "Debian's chromium must be installed (make deps)")
        let fixture = try await AccountFixture { $0.tilesURL = "http://127.0.0.1:9/{z}/{x}/{y}.png" }
        defer { fixture.remove() }
        let now = Date()
        try await fixture.store.createUser(UserAccount(username: "ann", email: "ann@example.org", passwordHash: "x", createdAt: now))
        for (local, name, visibility) in [
            ("publicbeside0paris", "Courtyard of the Lamps", HiddenGem.Visibility.public),
            ("privatebesideparis", "Ann's Secret Garden", .private),
        ] {
            let id = try PlaceID(source: "gem", localID: local)
            try await fixture.store.createGem(
                Place(
                    id: id, name: name, coordinate: try Coordinate(latitude: 48.85345, longitude: 2.34885),
                    provenance: Provenance(source: "gem", sourceID: local),
                    gem: HiddenGem(owner: "ann", visibility: visibility, createdAt: now, updatedAt: now)))
        }
        try await withLiveServer(fixture.service) { port in
            let dom = try await run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--dump-dom",
                    "http://127.0.0.1:\(port)/?q=Paris",
                ])
            #expect(dom.contains("places within 20 miles, nearest first"), "the list is filled")
            #expect(dom.contains("data-id=\"gem:publicbeside0paris\"") && dom.contains("Courtyard of the Lamps"), "the public gem is listed")
            #expect(!dom.contains("privatebesideparis") && !dom.contains("Secret Garden"), "the private gem is nowhere on the page")
        }
    }

    /// Headless Chromium opens a share link's map page (`/s/{token}`): the itinerary's stops are
    /// drawn as numbered markers with each day's line and listed; a revoked link draws nothing.
    @Test func aSharedItineraryOpensOnTheMapPage() async throws {
        let chromium = try #require(Self.chromium, "Debian's chromium must be installed (make deps)")
        let fixture = try await AccountFixture { $0.tilesURL = "http://127.0.0.1:9/{z}/{x}/{y}.png" }
        defer { fixture.remove() }
        let now = Date()
        try await fixture.store.createUser(UserAccount(username: "ann", email: "ann@example.org", passwordHash: "x", createdAt: now))
        let document = """
            {"title":"Paris in spring","destination":{"lat":48.8566,"lon":2.3522},"start_date":"2027-04-10","end_date":"2027-04-11",
             "time_zone":"Europe/Paris","transport":[],
             "lodging":[{"id":"l1","name":"Hôtel du Marais","location":{"lat":48.859,"lon":2.362},"check_in":"2027-04-10","check_out":"2027-04-11"}],
             "stops":[{"id":"louvre","location":{"lat":48.8606,"lon":2.3376,"name":"Louvre"},"day":1,"duration_minutes":120},
                      {"id":"orsay","location":{"lat":48.86,"lon":2.3266,"name":"Orsay"},"day":1,"duration_minutes":90},
                      {"id":"tower","location":{"lat":48.8584,"lon":2.2945,"name":"Eiffel Tower"},"day":2,"duration_minutes":60}]}
            """
        try await fixture.store.createPlan(
            PlanRecord(
                id: "it_0123456789abcdef01234567", kind: .itinerary, owner: "ann", visibility: .private,
                startsAt: now, endsAt: now, createdAt: now, updatedAt: now, document: Data(document.utf8)))
        let token = SessionToken.make()
        try await fixture.store.createShare(
            ShareLink(
                id: "sh_1", tokenHash: SessionToken.hash(token), planID: "it_0123456789abcdef01234567",
                createdAt: now))
        try await withLiveServer(fixture.service) { port in
            let dom = try await run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--dump-dom",
                    "http://127.0.0.1:\(port)/s/\(token)",
                ])
            #expect(dom.contains("Itinerary: Paris in spring — 3 stops"), "the status line")
            #expect(dom.components(separatedBy: "class=\"stop\"").count - 1 == 3, "three stops listed")
            #expect(dom.contains(">1.1<") && dom.contains(">1.2<") && dom.contains(">2.1<"), "numbered markers per day")
            #expect(dom.contains("gq-day"), "each day's line is drawn")
            #expect(dom.contains("data-id=\"louvre\""))
            _ = try await fixture.store.revokeShare(id: "sh_1", of: "it_0123456789abcdef01234567", at: Date())
            let revoked = try await run(
                chromium,
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--dump-dom",
                    "http://127.0.0.1:\(port)/s/\(token)",
                ])
            #expect(revoked.contains("Could not load the itinerary") && !revoked.contains("class=\"stop\""))
        }
    }

    /// A page served from another origin (a loopback server on its own port) signs up, signs
    /// in, makes a gem and reads it back through the live service in headless Chromium, which
    /// enforces CORS as any browser does: the JSON bodies and the bearer token make it ask
    /// first. With the page's origin not allowed, the browser stops at the first preflight and
    /// no account is made.
    @Test func aPageOnAnotherOriginUsesTheAPIInARealBrowser() async throws {
        let chromium = try #require(Self.chromium, "Debian's chromium must be installed (make deps)")
        let page = try await LoopbackServer.start { _ in
            LoopbackServer.Reply(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(Self.crossOriginPage.utf8))
        }
        defer { Task { await page.stop() } }
        let pageOrigin = page.baseURL.absoluteString
        for allowed in [true, false] {
            let fixture = try await AccountFixture {
                $0.allowedOrigins = .only([allowed ? pageOrigin : "https://app.example.com"])
            }
            defer { fixture.remove() }
            let dom = try await withLiveServer(fixture.service) { port in
                try await run(
                    chromium,
                    [
                        "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000", "--dump-dom",
                        "\(pageOrigin)/?api=http://127.0.0.1:\(port)",
                    ])
            }
            // What the script wrote: the text between <pre id="out"> and </pre>.
            let written = dom.components(separatedBy: "<pre id=\"out\">").dropFirst().first?.components(separatedBy: "</pre>").first ?? ""

            if allowed {
                #expect(written.contains("signed up: 201"), "\(written)")
                #expect(written.contains("gem: 201 Quiet cove"), "\(written)")
                #expect(written.contains("near: 200 Quiet cove, link: yes"), "the paging header is exposed: \(written)")
                #expect(written.contains("me without token: 401 Bearer"), "an error and its header are readable: \(written)")
                #expect(!written.contains("failed"), "\(written)")
            } else {
                #expect(written == "failed: TypeError\n", "the browser refuses the answer: \(written)")
                #expect(try await fixture.store.user(named: "corsfan") == nil, "the preflight stopped the sign-up")
            }
        }
    }

    /// The page of ``aPageOnAnotherOriginUsesTheAPIInARealBrowser()``: each step's result as a
    /// line of the `out` element, `failed: …` when the browser refuses.
    static let crossOriginPage = """
        <!doctype html><html><head><title>another origin</title></head><body><pre id="out"></pre><script>
        const api = new URLSearchParams(location.search).get('api');
        const out = document.getElementById('out');
        const say = line => { out.textContent += line + '\\n'; };
        const json = body => ({method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
        (async () => {
          try {
            const made = await fetch(api + '/v1/users', json({username: 'corsfan', email: 'corsfan@example.org', password: 'a long enough secret'}));
            say('signed up: ' + made.status);
            const session = await (await fetch(api + '/v1/sessions', json({username: 'corsfan', password: 'a long enough secret'}))).json();
            const bearer = {'Authorization': 'Bearer ' + session.token};
            for (const [name, lat] of [['Quiet cove', 43.7301], ['Quieter cove', 43.7350]]) {
              const request = json({name, lat, lon: 7.4201, visibility: 'public'});
              request.headers = {...request.headers, ...bearer};
              const gem = await fetch(api + '/v1/gems', request);
              if (name === 'Quiet cove') say('gem: ' + gem.status + ' ' + (await gem.json()).name);
            }
            const near = await fetch(api + '/v1/gems/near?lat=43.73&lon=7.42&limit=1', {headers: bearer});
            say('near: ' + near.status + ' ' + (await near.json()).places[0].name + ', link: ' + (near.headers.get('Link') ? 'yes' : 'no'));
            const me = await fetch(api + '/v1/me');
            say('me without token: ' + me.status + ' ' + (me.headers.get('WWW-Authenticate') || '').split(' ')[0]);
          } catch (error) {
            say('failed: ' + error.name);
          }
        })();
        </script></body></html>
        """

    /// Runs a program and returns its standard output; the wait happens on a Dispatch thread,
    /// not on the cooperative pool the server's handlers need.
    /// Debian's headless-capable browser, where the Makefile installs it.
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func run(_ program: String, _ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(program, arguments) })
            }
        }
    }

    func runBlocking(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Plain blocking TCP sockets on loopback, for clients that misbehave on purpose.
enum RawSocket {
    struct Failure: Error { var what: String }

    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(what: "socket") }
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(socket)
            throw Failure(what: "connect to \(port)")
        }
        return socket
    }

    static func send(_ socket: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw Failure(what: "send") }
    }

    /// Reads until the peer closes the connection (true) or the read fails or times out (false),
    /// dropping whatever arrives first.
    static func closedByPeer(_ socket: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let received = recv(socket, &buffer, buffer.count, 0)
            if received == 0 { return true }
            if received < 0 { return false }
        }
    }

    static func receive(_ socket: Int32, atMost count: Int) throws -> String {
        var buffer = [UInt8](repeating: 0, count: count)
        let received = recv(socket, &buffer, count, 0)
        guard received > 0 else { throw Failure(what: "receive") }
        return String(decoding: buffer[..<received], as: UTF8.self)
    }
}
