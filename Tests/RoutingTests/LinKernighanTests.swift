import GeoCore
import Testing

@testable import Routing

@Suite("Lin–Kernighan chains")
struct LinKernighanTests {
    /// Random points in a 1000 × 1000 square, TSPLIB's rounded Euclidean costs.
    func plane(_ n: Int, seed: UInt64) -> RouteCosts {
        var random = SplitMix64(seed: seed)
        let x = (0..<n).map { _ in Double(random.next() % 1_000_000) / 1000 }
        let y = (0..<n).map { _ in Double(random.next() % 1_000_000) / 1000 }
        return RouteCosts(
            count: n, symmetric: true, unit: .matrix, integral: true,
            storage: .plane(x: x, y: y, metric: .euclideanRounded))
    }

    @Test(
        "A descent keeps its length exact, the ends fixed, and leaves no improving 2-opt move",
        arguments: ShapeCase.allCases)
    func descent(shapeCase: ShapeCase) throws {
        for seed in 1...3 as ClosedRange<UInt64> {
            let costs = plane(300, seed: seed)
            let shape = shapeCase.shape.normalised
            let tourCosts = TourCosts(costs, shape: shape)
            let candidates = CandidateLists(tourCosts, embedding: costs.embedding, perNode: 10)
            let initial = InitialTour.nearestNeighbour(tourCosts, candidates: candidates)
            let startLength = tourCosts.length(of: initial)
            let search = SymmetricSearch(costs: tourCosts, candidates: candidates, initialTour: initial, deepMoves: true)
            search.improveAll()
            let tour = search.tour
            #expect(abs(search.length - tourCosts.length(of: tour)) < 1e-6 * search.length)
            #expect(search.length < startLength * 0.95, "chains shorten a nearest-neighbour tour by more than 5 %")
            let closedStart: Int? = if case .closed(let s) = shape { s } else { nil }
            checkOrder(tourCosts.order(fromTour: tour, closedStart: closedStart), costs, shape)
            // No 2-opt move between candidate neighbours improves the tour.
            let n = tour.count
            var position = [Int](repeating: 0, count: n)
            for (at, node) in tour.enumerated() { position[Int(node)] = at }
            for at in 0..<n {
                let a = Int(tour[at]), b = Int(tour[(at + 1) % n])
                if tourCosts.isFixed(a, b) { continue }
                for k in 0..<candidates.perNode {
                    let c = candidates.candidate(a, k)
                    if c < 0 || c == b { continue }
                    let d = Int(tour[(position[c] + 1) % n])
                    if d == a || tourCosts.isFixed(c, d) { continue }
                    let gain = tourCosts.cost(a, b) + tourCosts.cost(c, d) - tourCosts.cost(a, c) - tourCosts.cost(b, d)
                    #expect(gain <= 1e-6, "improving 2-opt move \(a)-\(b), \(c)-\(d) left, seed \(seed)")
                }
            }
        }
    }

    @Test func theChainedSearchIsDeterministicWhenBoundedByKicks() throws {
        let costs = plane(400, seed: 7)
        let options = RouteOptions(timeLimit: .seconds(60), seed: 3, exactLimit: 0, maximumKicks: 300)
        let first = try RouteSolver.solve(costs, shape: .open(start: 0, end: 1), options: options)
        let second = try RouteSolver.solve(costs, shape: .open(start: 0, end: 1), options: options)
        #expect(first.order == second.order && first.length == second.length)
        #expect(first.order.first == 0 && first.order.last == 1)
        #expect(first.method.contains("lin-kernighan"))
    }
}
