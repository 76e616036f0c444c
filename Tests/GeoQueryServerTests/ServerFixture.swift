import Foundation
import GeoQueryServer
import Hummingbird
import HummingbirdTesting
import Logging
import PlaceImport
import PlaceStore
import ProviderTestSupport
import Regions
import ServiceLifecycle
import Testing

/// The repository's root (for `geodata/`).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A real SpatiaLite index of the shipped data (34 006 GeoNames cities, 28 298 airports, Monaco's
/// OpenStreetMap POIs), built once for the suite in a temporary directory.
final class ServerFixture: Sendable {
    let directory: URL
    let path: String
    let store: SpatiaLitePlaceStore

    init() throws {
        directory = try TemporaryDirectories.make("geoquery-server")
        path = directory.appendingPathComponent("places.sqlite").path
        let index = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
        let geodata = repositoryRoot.appendingPathComponent("geodata")
        var options = ImportOptions()
        options.regions = try RegionLocator(dataDirectory: geodata.path)
        for (file, format, source) in [
            ("cities15000.csv", ImportFormat.geonamesCSV, nil), ("airports.csv", .airportsCSV, nil),
            ("monaco.osm.pbf", .osm, "osm-monaco"),
        ] {
            _ = try PlaceImporter.importFile(
                geodata.appendingPathComponent(file).path, format: format, into: index, source: source,
                options: options)
        }
        store = try SpatiaLitePlaceStore(path: path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    static let shared = Result { try ServerFixture() }
    /// The boundaries, loaded once for every service the tests build.
    static let regions = Result { try RegionLocator(dataDirectory: repositoryRoot.appendingPathComponent("geodata").path) }

    /// The service over the fixture, as `geoquery serve` builds it (countries from geodata/).
    static func service(_ adjust: (inout ServiceConfiguration) -> Void = { _ in }) throws -> GeoQueryService {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.countries = try CountryTable(contentsOf: repositoryRoot.appendingPathComponent("geodata/countries.csv").path)
        configuration.regions = try regions.get()
        configuration.boundariesFile = repositoryRoot.appendingPathComponent("geodata/countries.geojson.gz").path
        // Tests never assert timings: every suite shares this process and two cores, and one
        // request can wait many seconds for a thread. Tests of deadlines set their own.
        configuration.requestTimeout = .seconds(180)
        adjust(&configuration)
        var logger = Logger(label: "geoquery.test")
        logger.logLevel = .warning
        return GeoQueryService(index: try shared.get().store, configuration: configuration, logger: logger)
    }
}

/// Runs the service's application for real on a free loopback port while `body` runs, then
/// shuts it down gracefully.
func withLiveServer<T: Sendable>(_ service: GeoQueryService, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let application = service.makeApplication { port in continuation.yield(port) }
    let group = ServiceGroup(configuration: .init(services: [.named("http", application)], logger: service.logger))
    return try await withThrowingTaskGroup(of: T?.self) { tasks in
        tasks.addTask {
            try await group.run()
            return nil
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        let result: T
        do {
            result = try await body(port)
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        for try await _ in tasks {}
        return result
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
}
