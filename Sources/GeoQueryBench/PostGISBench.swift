import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceStore
import PostGISStore
import PostgresNIO
import PostgresTestSupport

/// The PostGIS rows of `make bench` (`--postgis-only` for these alone, `--no-postgis` to skip):
/// a throwaway cluster in a temporary directory, the bench's places loaded through the snapshot
/// import (COPY into staging, merge in one transaction), then the same query centres as the
/// SpatiaLite rows through
/// - the library (``PostGISPlaceIndex/near(_:radius:filter:limit:cursor:)``, exact by GeoCore),
/// - a hand-written `ST_DWithin` statement on the same pool over a copy of the places with a
///   `geography` GiST index, as a hand-written setup has it (the raw baseline of this backend),
/// - the library on the SpatiaLite bench index, in the same run,
/// and `geoquery serve --db postgres://…` under wrk for near 1 km.
enum PostGISBench {
    static func run(places: [Place], centres: [Coordinate], spatiaLitePath: String, seconds: Int) async throws {
        print("\n## PostGIS (PostgreSQL \(postgresVersion()), a throwaway cluster on loopback)")
        guard let shared = TestCluster.shared else {
            print("PostGIS rows skipped: PostgreSQL is not installed (make deps installs it)")
            return
        }
        let cluster = try shared.get()
        let url = try cluster.createDatabase("bench")
        let index = try await PostGISPlaceIndex.open(url, maximumConnections: 4)

        // Load as `geoquery import` does: batches encoded on a thread of their own while the
        // snapshot writer streams the one before.
        let start = Date()
        let batches = BoundedQueue<PostGISBatch>(capacity: 2)
        let encoder = Thread {
            var offset = 0
            do {
                while offset < places.count {
                    let end = min(offset + PostGISBatch.preferredCount, places.count)
                    guard batches.push(try PostGISBatch(Array(places[offset..<end]))) else { return }
                    offset = end
                }
                batches.finish(error: nil)
            } catch {
                batches.finish(error: error)
            }
        }
        encoder.start()
        let streamedAt = try await Task.detached {
            try index.importSnapshot { writer -> Date in
                try writer.beginSnapshot(source: "bench")
                while let batch = try batches.pop() { _ = try writer.merge(batch) }
                let streamed = Date()
                _ = try writer.finishSnapshot()
                return streamed
            }
        }.value
        let loadSeconds = Date().timeIntervalSince(start)
        _ = try cluster.psql(database: String(url.split(separator: "/").last!), "VACUUM ANALYZE places")
        print(
            String(
                format: "load (a first fill: encoded beside COPY into the new table, its indexes built, swapped in, one transaction): "
                    + "%d places in %.1f s = %.0f rows/s (streamed in %.1f s, indexed and committed in %.1f s)",
                places.count, loadSeconds, Double(places.count) / loadSeconds, streamedAt.timeIntervalSince(start),
                loadSeconds - streamedAt.timeIntervalSince(start)))

        // The raw baseline is PostGIS as a hand-written setup has it: the same rows with a GiST
        // index on `geography`, which GeoQuery's tables no longer carry (migration 6).
        let database = String(url.split(separator: "/").last!)
        let baselineStart = Date()
        _ = try cluster.psql(database: database, "CREATE TABLE raw_places AS SELECT * FROM places")
        _ = try cluster.psql(database: database, "CREATE INDEX raw_places_geog ON raw_places USING gist (geog)")
        _ = try cluster.psql(database: database, "VACUUM ANALYZE raw_places")
        print(
            String(
                format: "baseline table for the raw statement: the same rows with a `geography` GiST index (built in %.1f s, "
                    + "not part of the load)", Date().timeIntervalSince(baselineStart)))

        let spatiaLite = try SpatiaLitePlaceIndex(path: spatiaLitePath, mode: .readOnly)
        let sample = Array(centres.prefix(500))
        print(
            "| near, every place (\(sample.count) centres) | library on PostGIS p50 / mean | raw ST_DWithin p50 / mean | library/raw | SpatiaLite library p50 / mean | places |"
        )
        print("|---|---|---|---|---|---|")
        for (label, meters) in [("1 km", 1000.0), ("20 mi", 32186.88)] {
            let radius = Distance(uncheckedMeters: meters)
            for centre in sample.prefix(50) {  // warm the cache
                _ = try await index.near(centre, radius: radius, filter: .none, limit: nil, cursor: nil)
                _ = try await rawNear(index, centre, meters)
            }
            var library: [Double] = [], raw: [Double] = [], lite: [Double] = []
            var found = 0, mismatches = 0
            for (n, centre) in sample.enumerated() {
                var rawCount = 0
                func timeRaw() async throws {
                    let t0 = now()
                    rawCount = try await rawNear(index, centre, meters)
                    raw.append(Double(now() - t0))
                }
                if n % 2 == 1 { try await timeRaw() }
                let t0 = now()
                let page = try await index.near(centre, radius: radius, filter: .none, limit: nil, cursor: nil)
                var produced: [(String, String, Double)] = []
                for match in page.matches { produced.append((match.id.rawValue, match.name, match.distance!.meters)) }
                library.append(Double(now() - t0))
                if n % 2 == 0 { try await timeRaw() }
                let t1 = now()
                let litePage = try spatiaLite.near(centre, radius: radius)
                lite.append(Double(now() - t1))
                found += produced.count
                // The SpatiaLite bench index also holds the shipped cities (for the autocomplete row).
                let liteIDs = litePage.matches.map(\.id).filter { $0.source != "geonames" }
                if liteIDs != page.matches.map(\.id) || abs(rawCount - produced.count) > 2 { mismatches += 1 }
            }
            func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
            print(
                "| \(label) | \(micros(percentile(library, 0.5))) / \(micros(mean(library))) | \(micros(percentile(raw, 0.5))) / \(micros(mean(raw))) "
                    + "| \(String(format: "%.2f×", mean(library) / mean(raw))) | \(micros(percentile(lite, 0.5))) / \(micros(mean(lite))) "
                    + "| \(found / sample.count)\(mismatches > 0 ? " (\(mismatches) answers differ from SpatiaLite's)" : "") |")
        }
        try await IDListBench.run(index, label: "places by id on PostGIS", ids: places.map(\.id))
        try serviceRow(url: url, centres: centres, seconds: seconds)
        await index.close()
    }

    /// The raw baseline: one hand-written statement returning what the library returns (id,
    /// name and distance of every place within the radius, nearest first), on `raw_places` (the
    /// places with a `geography` index).
    static func rawNear(_ index: PostGISPlaceIndex, _ centre: Coordinate, _ meters: Double) async throws -> Int {
        try await index.rawQuery(
            """
            SELECT id, name, ST_Distance(geog, ST_SetSRID(ST_MakePoint(\(centre.longitude), \(centre.latitude)), 4326)::geography) AS d
            FROM raw_places WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint(\(centre.longitude), \(centre.latitude)), 4326)::geography, \(meters))
            ORDER BY d
            """)
    }

    /// `geoquery serve --db postgres://…` under wrk: near 1 km, first page of 50.
    static func serviceRow(url: String, centres: [Coordinate], seconds: Int) throws {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("service row skipped: wrk is not installed")
            return
        }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("geoquery").path
        let port = 19_000 + Int(ProcessInfo.processInfo.processIdentifier % 2000)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["serve", "--port", String(port), "--db", url, "--data-dir", "geodata"]
        var environment = ProcessInfo.processInfo.environment
        environment["GEOQUERY_LOG_LEVEL"] = "warning"
        server.environment = environment
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        try ServiceBench.waitForHealth(port: port)
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("postgis-near.lua").path
        // Anonymous, and signed in (the session, its account and friends read first) as the
        // apps' requests mostly are.
        let token = try ServiceBench.sessionToken(port: port, username: "postgisbench")
        let serverPID = server.processIdentifier
        if token == nil { print("(no session could be opened: the signed-in row is skipped)") }
        for (label, token) in [("", String?.none)] + (token.map { [(", signed in", $0)] } ?? []) {
            try ServiceBench.script(centres: centres, path: "/v1/places/near?radius=1km&limit=50&", token: token)
                .write(toFile: script, atomically: true, encoding: .utf8)
            _ = try ServiceBench.wrkRun(wrk, port: port, connections: 32, seconds: 2, script: script)
            // CPU per request of the server and of PostgreSQL (every `postgres` process) over the same run.
            let (outcome, postgresCPU) = try ProcessCPU.named("postgres").measure {
                try ServiceBench.wrkRun(wrk, port: port, connections: 32, seconds: seconds, script: script, measuring: .process(serverPID))
            }
            let postgresPerRequest = outcome.requests > 0 ? postgresCPU * 1e6 / Double(outcome.requests) : 0
            print(
                String(
                    format:
                        "geoquery serve over PostGIS, near 1 km first 50%@, 32 connections, %d s: %.0f req/s, p50 %@, p99 %@; CPU per request: server %@, PostgreSQL %.0f µs",
                    label, seconds, outcome.requestsPerSecond, outcome.p50, outcome.p99, outcome.cpuCell, postgresPerRequest))
        }
        try ServiceBench.script(paths: ["/healthz"]).write(toFile: script, atomically: true, encoding: .utf8)
        let ceiling = try ServiceBench.wrkRun(wrk, port: port, connections: 32, seconds: seconds, script: script, measuring: .process(serverPID))
        print(
            String(
                format: "the same server's ceiling (/healthz, no query), 32 connections, %d s: %.0f req/s, p99 %@, server CPU per request %@",
                seconds, ceiling.requestsPerSecond, ceiling.p99, ceiling.cpuCell))
    }

    static func postgresVersion() -> String {
        let binaries = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted()
        return binaries.last ?? "not installed"
    }
}
