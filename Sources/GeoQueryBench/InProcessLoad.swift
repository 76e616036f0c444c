import Foundation
import GeoCore
import GeoQueryWire
import PlaceQuery
import PlaceStore

/// The library as `geoquery serve` calls it, in this process and with no HTTP: the places
/// merged with a user store's gems (one statement a query on SpatiaLite), each query run on the
/// store's threads and awaited, each answer written as JSON, from `concurrency` callers at once
/// as wrk's connections are. What the service adds is its CPU per request over this call's.
enum InProcessLoad {
    struct Outcome {
        var callsPerSecond: Double
        /// CPU of this process per call, every thread, in µs.
        var cpuPerCall: Double
    }

    static func run(index: any PlaceIndex, centres: [Coordinate], radius: Distance, concurrency: Int, seconds: Double) async throws -> Outcome {
        func call(_ centre: Coordinate) async throws {
            let page = try await index.near(centre, radius: radius, filter: PlaceFilter(), limit: 50, cursor: nil)
            _ = PlaceAnswer(query: QueryDescription(kind: "near"), page: page).json()
        }
        for centre in centres { try await call(centre) }  // warm the caches, as the server's warm-up does
        let cpu0 = ProcessCPU.own(), start = ContinuousClock.now, deadline = start + .milliseconds(Int64(seconds * 1000))
        let calls = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var done = 0
                    while ContinuousClock.now < deadline {
                        try await call(centres[(worker * 7_919 + done) % centres.count])
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        return Outcome(callsPerSecond: Double(calls) / elapsed, cpuPerCall: (ProcessCPU.own() - cpu0) / Double(max(1, calls)) * 1e6)
    }
}
