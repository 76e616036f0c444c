// The `service-routes` fuzz target: every route of `geoquery serve`, over a real loopback
// socket, with hostile query strings and bodies. The service runs in this process (so libFuzzer
// sees its coverage and AddressSanitizer its memory) over a SpatiaLite index of the shipped
// cities and airports and a user store in the scratch directory, with one signed-in user who owns
// a gem, an itinerary and a trip. Providers point at a closed loopback port, so nothing leaves the
// machine; Google, Yelp and HERE have keys, so provider ids reach the code that builds their URLs.
//
// An input is text: its first line is `METHOD /path?query` (a leading `-` sends no token;
// `{gem}`, `{itinerary}`, `{trip}` and `{user}` become the fixture's), the rest is the body.
// A finding is a crash, a hang (libFuzzer's -timeout) or an answer 500: a bad request must get a
// 4xx naming what is wrong, and a provider that does not answer a 502/503/504.
import Foundation
import GeoQueryServer
import Hummingbird
import Logging
import PlaceImport
import PlaceStore
import Providers
import Regions
import ServiceLifecycle

/// The running service and what the fixture made in it.
final class RouteFuzzService: Sendable {
    let base: String
    let token: String
    let replacements: [(String, String)]
    let transport = OutboundHTTPTransport(reach: .anyAddress, maximumAnswerBytes: 64 << 20)

    /// Starts the service and makes the fixture; exits the process when it cannot.
    static let shared: RouteFuzzService = {
        do { return try RouteFuzzService() } catch {
            FileHandle.standardError.write(Data("service-routes: the service did not start: \(error)\n".utf8))
            exit(70)
        }
    }()

    private init() throws {
        let directory = FuzzFiles.directory + "/service"
        try FileManager.default.createDirectory(atPath: directory + "/photos", withIntermediateDirectories: true)
        let placesPath = directory + "/places.sqlite"
        let index = try SpatiaLitePlaceIndex(path: placesPath, mode: .createIfMissing)
        var options = ImportOptions()
        let regions = try RegionLocator(dataDirectory: "geodata")
        options.regions = regions
        for (file, format) in [("geodata/cities15000.csv", ImportFormat.geonamesCSV), ("geodata/airports.csv", .airportsCSV)] {
            _ = try PlaceImporter.importFile(file, format: format, into: index, options: options)
        }
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.passwordCost = 11  // the lowest the service allows; sign-ups past the first hit the rate limit
        configuration.countries = try CountryTable(contentsOf: "geodata/countries.csv")
        configuration.regions = regions
        configuration.photoDirectory = directory + "/photos"
        configuration.requestTimeout = .seconds(8)
        var variables: [String: String] = [:]
        for name in ProviderName.allCases {
            if let variable = ProviderEnvironment.baseURLVariable(for: name) { variables[variable] = "http://127.0.0.1:9" }
        }
        // Keys for the providers that look places up by id, so that fuzzed ids reach the code
        // that builds their URLs (a `google:` id once made Foundation trap there).
        for name in [ProviderName.google, .yelp, .here] {
            if let variable = ProviderEnvironment.keyVariable(for: name) { variables[variable] = "fuzz-key-0123456789" }
        }
        configuration.providers = ProviderSettings(
            environment: ProviderEnvironment(variables),
            retry: .init(maxAttempts: 1, baseDelay: 0.01, maxDelay: 0.01), timeout: 2)
        var logger = Logger(label: "geoquery.fuzz")
        logger.logLevel = .critical
        let service = GeoQueryService(
            index: try SpatiaLitePlaceStore(path: placesPath),
            userData: try SQLiteUserStore(path: directory + "/users.sqlite", threads: 2),
            configuration: configuration, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = service.makeApplication { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [.named("http", application)], logger: logger))
        Task { try await group.run() }
        let port = try FuzzFiles.wait { () async -> Int in
            var iterator = ports.makeAsyncIterator()
            return await iterator.next() ?? 0
        }
        base = "http://127.0.0.1:\(port)"

        // The fixture: one user, signed in, with a gem, an itinerary and a trip.
        _ = try Self.send(
            transport, base, "POST", "/v1/users", token: nil,
            body: #"{"username":"fuzzer","email":"fuzzer@example.org","password":"a long fuzzing secret"}"#)
        let session = try Self.send(
            transport, base, "POST", "/v1/sessions", token: nil,
            body: #"{"username":"fuzzer","password":"a long fuzzing secret"}"#)
        token = try Self.field("token", of: session)
        let gem = try Self.send(
            transport, base, "POST", "/v1/gems", token: token,
            body: #"{"name":"Secret cove","lat":43.73,"lon":7.42,"categories":["water"],"visibility":"public"}"#)
        let itinerary = try Self.send(
            transport, base, "POST", "/v1/itineraries", token: token,
            body: #"{"title":"Monaco","destination":{"lat":43.73,"lon":7.42},"start_date":"2027-04-10","end_date":"2027-04-11"}"#)
        let trip = try Self.send(
            transport, base, "POST", "/v1/trips", token: token,
            body: #"{"title":"Picnic","place":{"lat":43.73,"lon":7.42},"start":"2030-06-12T12:00:00+02:00","end":"2030-06-12T16:00:00+02:00"}"#)
        replacements = [
            ("{gem}", try Self.field("id", of: gem, inFirstOf: "places")), ("{itinerary}", try Self.field("id", of: itinerary)),
            ("{trip}", try Self.field("id", of: trip)), ("{user}", "fuzzer"),
        ]
    }

    /// Sends one fuzz input; aborts (a finding) on an answer 500.
    func run(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        let firstLine = text.prefix { $0 != "\n" }
        let body = text.dropFirst(firstLine.count + 1)
        var line = String(firstLine)
        var withToken = true
        if line.hasPrefix("-") {
            withToken = false
            line.removeFirst()
        }
        let parts = line.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].allSatisfy({ $0.isASCII && $0.isLetter }), parts[0].count <= 7 else { return }
        var target = String(parts[1])
        for (placeholder, value) in replacements { target = target.replacingOccurrences(of: placeholder, with: value) }
        guard target.hasPrefix("/") else { return }
        guard
            let answer = try? Self.send(
                transport, base, parts[0].uppercased(), Self.percentEncoded(target),
                token: withToken ? token : nil, body: body.isEmpty ? nil : String(body))
        else { return }
        if answer.status == 500 {
            FileHandle.standardError.write(
                Data("service-routes: \(line) answered 500: \(String(decoding: answer.body.prefix(500), as: UTF8.self))\n".utf8))
            abort()
        }
    }

    /// The target with every byte a URL may not carry as it is percent-encoded (so that the
    /// request reaches the service rather than stopping in the URL parser).
    static func percentEncoded(_ target: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~/?&=%+,:;@!$'()*")
        var result = ""
        for byte in target.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 128, allowed.contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        // A stray '%' not followed by two hex digits would make the URL invalid: encode it.
        return result.replacingOccurrences(of: "%(?![0-9A-Fa-f]{2})", with: "%25", options: .regularExpression)
    }

    static func send(
        _ transport: OutboundHTTPTransport, _ base: String, _ method: String, _ target: String,
        token: String?, body: String?
    ) throws -> ProviderResponse {
        guard let url = URL(string: base + target) else { throw URLError(.badURL) }
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        let request = ProviderRequest(method: method, url: url, headers: headers, body: body.map { Data($0.utf8) }, timeout: 30)
        return try FuzzFiles.wait { () async throws -> ProviderResponse in try await transport.send(request) }
    }

    /// A string member of an answer (or of the first object of its array `list`).
    static func field(_ name: String, of response: ProviderResponse, inFirstOf list: String? = nil) throws -> String {
        let answer = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        let object = list.map { (answer?[$0] as? [[String: Any]])?.first } ?? answer
        guard (200..<300).contains(response.status), let value = object?[name] as? String else {
            throw FuzzSetupError(message: "the fixture got \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
        }
        return value
    }
}

struct FuzzSetupError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
