import Foundation
import GeoCore
import Routing

/// `GeoQueryBench --route-seeds`: the spread of heuristic results over many seeds, which the
/// bench's median of three hides. Runs bounded by time land in different basins; tuning by a
/// median of three seeds misled us more than once.
///
/// Options: `--instances a280,ali535,gr666,clustered-1000-77,…` (TSPLIB fixtures with their
/// published optima, or generated clustered points `clustered-<stops>-<seed>`, measured against
/// the best of one 4 s run unless `--reference <length>` is given), `--seeds N` (default 15),
/// `--limit-ms N` (default 100).
enum RouteSeeds {
    static let optima: [String: Double] = ["a280": 2579, "ali535": 202339, "gr666": 294358]

    static func run(arguments: [String], fixtures: String) throws {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        let instances = (option("--instances") ?? "ali535,gr666,clustered-1000-1000,clustered-1000-77")
            .split(separator: ",").map(String.init)
        let seeds = Int(option("--seeds") ?? "") ?? 15
        let limit = Duration.milliseconds(Int(option("--limit-ms") ?? "") ?? 100)
        print("route seeds: \(seeds) seeds per instance, \(limit) each")
        for name in instances {
            let costs: RouteCosts
            var reference: Double
            if let optimum = optima[name] {
                costs = try TSPLIBProblem(text: String(contentsOfFile: "\(fixtures)/\(name).tsp", encoding: .utf8)).costs
                reference = optimum
            } else {
                let parts = name.split(separator: "-").compactMap { Int($0) }
                guard name.hasPrefix("clustered-"), parts.count == 2 else {
                    throw CocoaError(
                        .featureUnsupported,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "unknown instance \(name): use \(optima.keys.sorted().joined(separator: ", ")) or clustered-<stops>-<seed>"
                        ])
                }
                costs = RouteCosts(points: RouteBench.clustered(parts[0], seed: UInt64(parts[1]), clusters: parts[0] / 50, spread: 2))
                reference = Double(option("--reference") ?? "") ?? 0
                if reference == 0 {
                    reference = try RouteSolver.solve(costs, options: RouteOptions(timeLimit: .seconds(4), seed: 99, exactLimit: 0)).length
                }
            }
            var gaps: [Double] = []
            for seed in 1...UInt64(seeds) {
                let route = try RouteSolver.solve(costs, options: RouteOptions(timeLimit: limit, seed: seed, exactLimit: 0))
                gaps.append((route.length / reference - 1) * 100)
            }
            gaps.sort()
            print(
                String(
                    format: "  %-20@ reference %.0f  median %.2f %%  mean %.2f %%  worst %.2f %%", name as NSString, reference,
                    gaps[gaps.count / 2], gaps.reduce(0, +) / Double(gaps.count), gaps[gaps.count - 1]))
            print("    " + gaps.map { String(format: "%.2f", $0) }.joined(separator: " "))
        }
    }
}
