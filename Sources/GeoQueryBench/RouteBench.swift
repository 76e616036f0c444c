import Foundation
import GeoCore
import Routing

/// `make bench` routing rows: exact solving times for itinerary sizes (random points around
/// Paris, ellipsoidal distances; round trip, path from a fixed start, path between fixed ends),
/// then heuristic quality against TSPLIB's published optima and on generated clustered
/// instances against the best of long runs.
enum RouteBench {
    static func run(fixtures: String, quick: Bool, exactOnly: Bool = false) throws {
        print("\nroutes: exact (random points within 20 km, ellipsoidal metres; time per solve, single thread)")
        print("  stops  shape           solves  median     p90        p99        proven")
        let trials = quick ? 20 : 100
        for n in exactOnly ? [20] : [10, 15, 20, 25, 30] {
            for (label, shape) in [
                ("round trip", RouteShape.closed()), ("from start", .open(start: 0, end: nil)),
                ("start to end", .open(start: 0, end: 1)),
            ] {
                var times: [Double] = []
                var proven = 0
                for trial in 0..<trials {
                    let points = clustered(n, seed: UInt64(n * 1000 + trial), clusters: 3, spread: 0.08)
                    let costs = RouteCosts(points: points)
                    let start = ContinuousClock.now
                    let route = try RouteSolver.solve(costs, shape: shape, options: RouteOptions(timeLimit: .seconds(10)))
                    times.append(Double((ContinuousClock.now - start) / .microseconds(1)))
                    if route.isProvenOptimal { proven += 1 }
                }
                print(
                    String(
                        format: "  %5d  %-14@  %6d  %-9@  %-9@  %-9@  %d/%d", n, label as NSString, trials,
                        ms(percentile(times, 0.5)) as NSString, ms(percentile(times, 0.9)) as NSString,
                        ms(percentile(times, 0.99)) as NSString, proven, trials))
            }
        }

        print("\nroutes: exact, asymmetric (road-like: ellipsoidal metres, each direction up to 25 % longer)")
        print("  stops  shape           solves  median     p90        p99        proven")
        for n in [18, 20, 25, 30] {
            for (label, shape) in [("round trip", RouteShape.closed()), ("start to end", .open(start: 0, end: 1))] {
                var times: [Double] = []
                var proven = 0
                for trial in 0..<(quick ? 10 : 50) {
                    let costs = try roadLike(n, seed: UInt64(n * 1000 + trial))
                    let start = ContinuousClock.now
                    let route = try RouteSolver.solve(costs, shape: shape, options: RouteOptions(timeLimit: .seconds(10)))
                    times.append(Double((ContinuousClock.now - start) / .microseconds(1)))
                    if route.isProvenOptimal { proven += 1 }
                }
                print(
                    String(
                        format: "  %5d  %-14@  %6d  %-9@  %-9@  %-9@  %d/%d", n, label as NSString, times.count,
                        ms(percentile(times, 0.5)) as NSString, ms(percentile(times, 0.9)) as NSString,
                        ms(percentile(times, 0.99)) as NSString, proven, times.count))
            }
        }

        if exactOnly { return }
        print("\nroutes: heuristic round trips (gap to the proven TSPLIB optimum; median of 3 seeds)")
        print("  instance   stops  limit    length     gap")
        let instances: [(String, Double)] = [("a280", 2579), ("ali535", 202339), ("gr666", 294358)]
        for (name, optimum) in instances {
            let problem = try TSPLIBProblem(text: String(contentsOfFile: "\(fixtures)/\(name).tsp", encoding: .utf8))
            for limit in [Duration.milliseconds(100), .seconds(1)] {
                var lengths: [Double] = []
                for seed in 1...3 as ClosedRange<UInt64> {
                    let route = try RouteSolver.solve(problem.costs, options: RouteOptions(timeLimit: limit, seed: seed, exactLimit: 0))
                    lengths.append(route.length)
                }
                let length = percentile(lengths, 0.5)
                print(
                    String(
                        format: "  %-9@  %5d  %-7@  %9.0f  %5.2f %%", name as NSString, problem.costs.count,
                        "\(limit)" as NSString, length, (length / optimum - 1) * 100))
            }
        }

        print("\nroutes: generated clustered points (ellipsoidal metres; gap to the best of three 10 s runs)")
        print("  stops  seed  limit    gap")
        for (n, seed) in quick ? [(1000, 1000)] : [(1000, 1000), (1000, 77), (2000, 2000)] {
            let points = clustered(n, seed: UInt64(seed), clusters: n / 50, spread: 2)
            let costs = RouteCosts(points: points)
            var reference = Double.infinity
            for seed in 1...(quick ? 1 : 3) as ClosedRange<UInt64> {
                let route = try RouteSolver.solve(costs, options: RouteOptions(timeLimit: .seconds(10), seed: seed + 100, exactLimit: 0))
                reference = min(reference, route.length)
            }
            for limit in [Duration.milliseconds(100), .milliseconds(150), .seconds(1)] {
                var lengths: [Double] = []
                for seed in 1...3 as ClosedRange<UInt64> {
                    let route = try RouteSolver.solve(costs, options: RouteOptions(timeLimit: limit, seed: seed, exactLimit: 0))
                    lengths.append(route.length)
                }
                let length = percentile(lengths, 0.5)
                print(String(format: "  %5d  %4d  %-7@  %5.2f %%", n, seed, "\(limit)" as NSString, (length / reference - 1) * 100))
            }
        }
    }

    /// A road-like asymmetric matrix: clustered points' ellipsoidal distances, each direction
    /// up to 25 % longer at random, rounded to metres.
    static func roadLike(_ n: Int, seed: UInt64) throws -> RouteCosts {
        let points = clustered(n, seed: seed, clusters: 3, spread: 0.08)
        var random = SplitMix64(seed: seed &+ 5)
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for j in 0..<n where i != j {
                let base = Geodesic.distance(points[i], points[j])
                matrix[i][j] = (base * (1 + 0.25 * random.unit())).rounded()
            }
        }
        return try RouteCosts(matrix: matrix)
    }

    static func ms(_ micros: Double) -> String { String(format: "%.2f ms", micros / 1000) }

    /// Points in `clusters` Gaussian-ish clusters around Paris, `spread` degrees across.
    static func clustered(_ n: Int, seed: UInt64, clusters: Int, spread: Double) -> [Coordinate] {
        var random = SplitMix64(seed: seed)
        let centres = (0..<max(1, clusters)).map { _ in
            (48.85 + (random.unit() - 0.5) * spread, 2.35 + (random.unit() - 0.5) * spread * 1.5)
        }
        return (0..<n).map { _ in
            let centre = centres[Int(random.next() % UInt64(centres.count))]
            let radius = spread / Double(max(1, clusters)).squareRoot() * 0.3
            let u = random.unit() + random.unit() + random.unit() - 1.5
            let v = random.unit() + random.unit() + random.unit() - 1.5
            return Coordinate(uncheckedLatitude: centre.0 + u * radius, longitude: centre.1 + v * radius * 1.5)
        }
    }
}
