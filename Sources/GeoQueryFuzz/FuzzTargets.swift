// `make fuzz`: libFuzzer targets for every reader of untrusted bytes. Built only when
// GEOQUERY_FUZZ is set (Package.swift), with `-sanitize=fuzzer,address`; libFuzzer supplies
// `main`, and `FUZZ_TARGET` picks the target. A finding is a crash, a sanitizer report, or a
// timeout (a hang); an input that is merely refused with an error is fine.
import Accounts
import Foundation
import GeoCore
import GeoQueryWire
import PlaceImport
import PlaceModel
import PlaceQuery
import Providers
import Routing

@testable import GeoQueryServer

/// One fuzz target: what it feeds the bytes to.
struct FuzzTarget: Sendable {
    var name: String
    var run: @Sendable (Data) -> Void
}

/// A dump format read from a file (the readers take paths), to the end.
private func importTarget(_ name: String, _ format: ImportFormat, suffix: String) -> FuzzTarget {
    FuzzTarget(name: name) { data in
        let path = FuzzFiles.write(data, suffix: suffix)
        guard var reader = try? format.reader(path: path, importedAt: Date(timeIntervalSince1970: 0)) else { return }
        while let record = try? reader.next() { _ = record }
    }
}

/// A provider adapter answering from a transport that returns the fuzz bytes as the body.
private struct BodyTransport: HTTPTransport {
    let body: Data
    func send(_ request: ProviderRequest) async throws -> ProviderResponse {
        ProviderResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }
}

private func providerTarget(_ name: String, _ make: @escaping @Sendable (ProviderSettings) -> any PlaceProvider) -> FuzzTarget {
    FuzzTarget(name: name) { data in
        let settings = ProviderSettings(environment: ProviderEnvironment(FuzzFiles.keys), transport: BodyTransport(body: data))
        let provider = make(settings)
        let request = PlaceSearchRequest(
            center: Coordinate(uncheckedLatitude: 48.85, longitude: 2.35),
            radius: Distance(uncheckedMeters: 1000), query: "cafe")
        FuzzFiles.block { _ = try? await provider.search(request) }
    }
}

private func weatherTarget(_ name: String, _ make: @escaping @Sendable (ProviderSettings) -> any WeatherProvider) -> FuzzTarget {
    FuzzTarget(name: name) { data in
        let settings = ProviderSettings(environment: ProviderEnvironment(FuzzFiles.keys), transport: BodyTransport(body: data))
        let provider = make(settings)
        FuzzFiles.block { _ = try? await provider.weather(at: Coordinate(uncheckedLatitude: 48.85, longitude: 2.35), days: 3) }
    }
}

private func imageTarget(_ name: String, _ make: @escaping @Sendable (ProviderSettings) -> any ImageProvider) -> FuzzTarget {
    FuzzTarget(name: name) { data in
        let settings = ProviderSettings(environment: ProviderEnvironment(FuzzFiles.keys), transport: BodyTransport(body: data))
        let provider = make(settings)
        guard let query = try? ImageQuery(coordinate: Coordinate(uncheckedLatitude: 38.71, longitude: -9.14), title: "Lisbon") else { return }
        FuzzFiles.block { _ = try? await provider.images(for: query) }
    }
}

/// Every target, by the name `FUZZ_TARGET` gives.
let fuzzTargets: [String: FuzzTarget] = {
    let targets = [
        importTarget("csv", .csv, suffix: ".csv"),
        importTarget("geonames-csv", .geonamesCSV, suffix: ".csv"),
        importTarget("geonames", .geonames, suffix: ".txt"),
        importTarget("airports-csv", .airportsCSV, suffix: ".csv"),
        importTarget("foursquare-csv", .foursquareCSV, suffix: ".csv"),
        importTarget("geojson", .geojson, suffix: ".geojson"),
        importTarget("geojsonseq", .geojsonseq, suffix: ".geojsonseq"),
        importTarget("osm-xml", .osm, suffix: ".osm"),
        importTarget("osm-pbf", .osm, suffix: ".osm.pbf"),
        FuzzTarget(name: "tsplib") { data in _ = try? TSPLIBProblem(text: String(decoding: data, as: UTF8.self)) },
        FuzzTarget(name: "matrix-json") { data in
            _ = try? RouteStops.matrix(text: String(decoding: data, as: UTF8.self), origin: "fuzz")
        },
        FuzzTarget(name: "route-points") { data in
            _ = try? RouteStops.points(geoJSON: String(decoding: data, as: UTF8.self), origin: "fuzz")
        },
        FuzzTarget(name: "cursor") { data in
            _ = try? PageCursor(decoding: String(decoding: data, as: UTF8.self), expectedFingerprint: 42)
        },
        // The service's query strings, read as every place route reads them.
        FuzzTarget(name: "query-string") { data in
            let query = String(decoding: data, as: UTF8.self)
            let allowed =
                ["lat", "lon", "radius", "limit", "cursor", "format", "bbox", "k", "max_distance"]
                + GeoQueryService.filterParameters
            guard let parameters = try? QueryParameters(query: query, allowed: allowed) else { return }
            _ = try? parameters.coordinate()
            _ = try? parameters.distance("radius")
            _ = try? parameters.filter(countries: ["FR", "DE"])
            _ = try? parameters.int("limit", range: 1...500)
            if let box = try? parameters.single("bbox") { _ = try? BoundingBox(parsing: box) }
        },
        // Uploaded photos: type sniffing and metadata removal on hostile bytes.
        FuzzTarget(name: "photo") { data in
            _ = try? PhotoSanitizer.sanitize([UInt8](data))
        },
        // JSON bodies of the account and gem routes, read as the routes read them.
        FuzzTarget(name: "service-body") { data in
            guard
                let body = try? JSONBody(
                    data: data,
                    allowed: GeoQueryService.gemFields + [
                        "username", "email", "password",
                        "display_name", "bio", "language", "units", "home_location",
                    ])
            else { return }
            _ = try? AccountRules.username(body.string("username") ?? "")
            _ = try? AccountRules.email(body.string("email") ?? "")
            _ = try? AccountRules.checkPassword(body.string("password") ?? "", username: "fuzz")
            _ = try? body.coordinate("home_location")
            var gem = Place(
                id: PlaceID(trustedRawValue: "gem:0"), name: "x", coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0),
                gem: HiddenGem(owner: "fuzz", visibility: .private))
            _ = try? GeoQueryService.apply(body, to: &gem, creating: true)
        },
        providerTarget("google") { GooglePlacesAdapter(settings: $0, pageTokenDelay: 0) },
        providerTarget("yelp") { YelpAdapter(settings: $0) },
        providerTarget("foursquare") { FoursquareAdapter(settings: $0) },
        providerTarget("here") { HEREAdapter(settings: $0) },
        weatherTarget("open-meteo") { OpenMeteoAdapter(settings: $0) },
        weatherTarget("openweathermap") { OpenWeatherMapAdapter(settings: $0) },
        weatherTarget("pirateweather") { PirateWeatherAdapter(settings: $0) },
        imageTarget("commons") { WikimediaCommonsAdapter(settings: $0) },
        imageTarget("pixabay") { PixabayAdapter(settings: $0) },
        imageTarget("unsplash") { UnsplashAdapter(settings: $0) },
        // Every route of the service over a loopback socket (ServiceRoutesTarget.swift).
        FuzzTarget(name: "service-routes") { data in RouteFuzzService.shared.run(data) },
    ]
    return Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
}()

/// Scratch files and keys for the targets.
enum FuzzFiles {
    /// Provider keys so that every adapter sends its request (to the fuzz transport).
    static let keys = [
        "GOOGLE_PLACES_API_KEY": "k", "YELP_API_KEY": "k", "FOURSQUARE_API_KEY": "k", "HERE_API_KEY": "k",
        "OPENWEATHERMAP_API_KEY": "k", "PIRATEWEATHER_API_KEY": "k",
        "PIXABAY_API_KEY": "k", "UNSPLASH_ACCESS_KEY": "k",
    ]
    static let directory: String = {
        let base = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? NSTemporaryDirectory()
        let path = base + "/geoquery-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static func write(_ data: Data, suffix: String) -> String {
        let path = directory + "/input" + suffix
        FileManager.default.createFile(atPath: path, contents: data)
        return path
    }

    /// Runs async work to the end on this thread's behalf.
    static func block(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await work()
            done.signal()
        }
        done.wait()
    }

    /// Runs async work to the end on this thread's behalf and hands back its result.
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        block {
            do { box.set(.success(try await work())) } catch { box.set(.failure(error)) }
        }
        return try box.get()
    }
}

/// The result of work run on another thread, read once it has signalled.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: written once by the task before it signals the semaphore the reader
    // waits on, and read only after; the semaphore orders the two.
    private var result: Result<T, any Error>?
    func set(_ value: Result<T, any Error>) { result = value }
    func get() throws -> T { try result!.get() }
}

// SAFETY of the global: set once in LLVMFuzzerInitialize, before any input runs, and only read
// after (libFuzzer runs inputs on one thread).
nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
    guard let target = fuzzTargets[name] else {
        FileHandle.standardError.write(
            Data("FUZZ_TARGET '\(name)' is unknown: use one of \(fuzzTargets.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(64)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selected?.run(Data(bytes: bytes, count: size))
    return 0
}

/// libFuzzer's entry for programs that have a `main` of their own.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// SwiftPM links an executable's entry as `<module>_main`: hand the command line to libFuzzer.
@_cdecl("GeoQueryFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    _ = fuzzInitialize(&count, &arguments)
    return LLVMFuzzerRunDriver(&count, &arguments) { bytes, size in fuzzOneInput(bytes, size) }
}
