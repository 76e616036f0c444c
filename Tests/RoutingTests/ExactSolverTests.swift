import Foundation
import GeoCore
import Testing

@testable import Routing

/// Every shape the solvers support, for brute-force comparison.
enum ShapeCase: String, CaseIterable, Sendable {
    case closed, closedFromStop2, openFree, openFromStop1, openToStop0, openFrom1To3

    var shape: RouteShape {
        switch self {
        case .closed: .closed()
        case .closedFromStop2: .closed(start: 2)
        case .openFree: .open(start: nil, end: nil)
        case .openFromStop1: .open(start: 1, end: nil)
        case .openToStop0: .open(start: nil, end: 0)
        case .openFrom1To3: .open(start: 1, end: 3)
        }
    }
}

/// The shortest order by trying every permutation that fits the shape.
func bruteForce(_ costs: RouteCosts, _ shape: RouteShape) -> Double {
    let n = costs.count
    var best = Double.infinity
    var order = Array(0..<n)
    func visit(_ k: Int) {
        if k == n {
            switch shape {
            case .closed: break
            case .open(let start, let end):
                if let start, order[0] != start { return }
                if let end, order[n - 1] != end { return }
            }
            best = min(best, costs.length(of: order, closed: shape.isClosed))
            return
        }
        for i in k..<n {
            order.swapAt(k, i)
            visit(k + 1)
            order.swapAt(k, i)
        }
    }
    visit(0)
    return best
}

func randomMatrix(_ n: Int, symmetric: Bool, seed: UInt64) throws -> RouteCosts {
    var random = SplitMix64(seed: seed)
    var matrix = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    for i in 0..<n {
        for j in 0..<n where i != j {
            if symmetric && j < i {
                matrix[i][j] = matrix[j][i]
                continue
            }
            matrix[i][j] = Double(1 + random.next() % 100)
        }
    }
    return try RouteCosts(matrix: matrix)
}

func randomPoints(_ n: Int, seed: UInt64, spanDegrees: Double = 0.2) -> [Coordinate] {
    var random = SplitMix64(seed: seed)
    return (0..<n).map { _ in
        Coordinate(
            uncheckedLatitude: 48.85 + (random.unit() - 0.5) * spanDegrees,
            longitude: 2.35 + (random.unit() - 0.5) * spanDegrees)
    }
}

/// Checks that a route is a permutation fitting the shape and that its length adds up.
func checkRoute(_ route: Route, _ costs: RouteCosts, _ shape: RouteShape) {
    checkOrder(route.order, costs, shape)
    let closed = shape.normalised.isClosed
    #expect(abs(route.length - costs.length(of: route.order, closed: closed)) <= 1e-9 * max(1, route.length))
    #expect(route.legs.count == (closed ? costs.count : costs.count - 1))
}

/// Checks that an order visits every stop once and keeps the shape's fixed ends.
func checkOrder(_ order: [Int], _ costs: RouteCosts, _ shape: RouteShape) {
    #expect(order.sorted() == Array(0..<costs.count))
    switch shape {
    case .closed(let start?): #expect(order.first == start)
    case .closed(nil): break
    case .open(let start, let end):
        if let start, start != end { #expect(order.first == start) }
        if let end, start != end { #expect(order.last == end) }
    }
}

@Suite("Exact solvers against brute force")
struct ExactSolverTests {
    static let sizes = [2, 3, 4, 5, 7, 9]

    @Test("Held–Karp: every shape, symmetric and asymmetric matrices", arguments: ShapeCase.allCases)
    func heldKarp(_ shapeCase: ShapeCase) throws {
        for n in Self.sizes where n >= 4 || shapeCase == .closed || shapeCase == .openFree {
            for seed in 1...4 as ClosedRange<UInt64> {
                for symmetric in [true, false] {
                    let costs = try randomMatrix(n, symmetric: symmetric, seed: seed * 31 + UInt64(n))
                    let route = try RouteSolver.solve(costs, shape: shapeCase.shape)
                    checkRoute(route, costs, shapeCase.shape)
                    #expect(route.isProvenOptimal)
                    #expect(route.length == bruteForce(costs, shapeCase.shape), "n \(n) seed \(seed) symmetric \(symmetric)")
                }
            }
        }
    }

    @Test("Branch and bound proves the optimum from a poor starting tour", arguments: ShapeCase.allCases)
    func branchAndBound(_ shapeCase: ShapeCase) throws {
        for seed in 1...6 as ClosedRange<UInt64> {
            let points = randomPoints(9, seed: seed)
            for costs in [RouteCosts(points: points), try randomMatrix(9, symmetric: true, seed: seed)] {
                let shape = shapeCase.shape.normalised
                let tourCosts = TourCosts(costs, shape: shape)
                // The identity tour (virtual node first) satisfies the fixed ends only by luck,
                // so start from a feasible one: the nearest-neighbour tour.
                let candidates = CandidateLists(tourCosts, embedding: costs.embedding, perNode: 5)
                let start = InitialTour.nearestNeighbour(tourCosts, candidates: candidates)
                var search = BranchAndBound(costs: tourCosts, tour: start, length: length(of: start, tourCosts))
                let outcome = search.run(deadline: .now + .seconds(60))
                #expect(outcome.proven)
                let order = tourCosts.order(fromTour: outcome.tour, closedStart: shape.isClosed ? start.first.map(Int.init) : nil)
                let expected = bruteForce(costs, shape)
                #expect(abs(costs.length(of: order, closed: shape.isClosed) - expected) <= 1e-6, "seed \(seed)")
                #expect(abs(outcome.length - expected) <= 1e-6)
            }
        }
    }

    @Test("Local search alone finds the optimum of small problems", arguments: ["2-opt", "lin-kernighan", "directed"])
    func localSearch(moves: String) throws {
        let symmetric = moves != "directed"
        for seed in 1...5 as ClosedRange<UInt64> {
            for shapeCase in ShapeCase.allCases {
                let costs = try randomMatrix(9, symmetric: symmetric, seed: seed + 100)
                let shape = shapeCase.shape.normalised
                let tourCosts = TourCosts(costs, shape: shape)
                let candidates = CandidateLists(tourCosts, embedding: nil, perNode: 8)
                let initial = InitialTour.nearestNeighbour(tourCosts, candidates: candidates)
                var random = SplitMix64(seed: seed)
                let tour: [Int32]
                if symmetric {
                    let search = SymmetricSearch(
                        costs: tourCosts, candidates: candidates, initialTour: initial,
                        deepMoves: moves == "lin-kernighan")
                    search.improveAll()
                    search.iterate(deadline: .now + .seconds(60), maximumKicks: 3000, random: &random)
                    tour = search.tour
                    #expect(abs(search.length - length(of: tour, tourCosts)) < 1e-6)
                } else {
                    let search = DirectedSearch(costs: tourCosts, candidates: candidates, initialTour: initial)
                    search.improveAll()
                    search.iterate(deadline: .now + .seconds(60), maximumKicks: 3000, random: &random)
                    tour = search.tour
                    #expect(abs(search.length - length(of: tour, tourCosts)) < 1e-6)
                }
                let closedStart: Int? = if case .closed(let s) = shape { s } else { nil }
                let order = tourCosts.order(fromTour: tour, closedStart: closedStart)
                checkOrder(order, costs, shape)
                #expect(costs.length(of: order, closed: shape.isClosed) == bruteForce(costs, shape), "seed \(seed) \(shapeCase)")
            }
        }
    }

    func length(of tour: [Int32], _ costs: TourCosts) -> Double {
        var total = 0.0
        for k in 0..<tour.count { total += costs.cost(Int(tour[k]), Int(tour[(k + 1) % tour.count])) }
        return total
    }
}
