import GeoCore
import Testing

@testable import Routing

@Suite("Asymmetric proofs on the two-node transform")
struct DirectedProofTests {
    /// Road-like asymmetric costs: ellipsoidal metres, each direction up to 25 % longer.
    func roadLike(_ n: Int, seed: UInt64) throws -> RouteCosts {
        let points = randomPoints(n, seed: seed)
        var random = SplitMix64(seed: seed &+ 17)
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for j in 0..<n where i != j {
                let base = Geodesic.distance(points[i], points[j])
                matrix[i][j] = (base * (1 + 0.25 * random.unit())).rounded()
            }
        }
        return try RouteCosts(matrix: matrix)
    }

    func proveFromNearestNeighbour(_ costs: RouteCosts, _ shape: RouteShape) -> (BranchAndBound.Outcome, [Int], TourCosts) {
        let tourCosts = TourCosts(costs, shape: shape)
        let candidates = CandidateLists(tourCosts, embedding: nil, perNode: 5)
        let start = InitialTour.nearestNeighbour(tourCosts, candidates: candidates)
        let startLength = tourCosts.length(of: start)
        let outcome = DirectedProof.run(costs: tourCosts, tour: start, length: startLength, deadline: .now + .seconds(60))
        let closedStart: Int? = if case .closed(let s) = shape { s } else { nil }
        return (outcome, tourCosts.order(fromTour: outcome.tour, closedStart: closedStart), tourCosts)
    }

    @Test("From a nearest-neighbour tour to the brute-force optimum, every shape", arguments: ShapeCase.allCases)
    func matchesBruteForce(_ shapeCase: ShapeCase) throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            let costs = try randomMatrix(9, symmetric: false, seed: seed * 7 + 3)
            let shape = shapeCase.shape.normalised
            let (outcome, order, _) = proveFromNearestNeighbour(costs, shape)
            #expect(outcome.proven)
            checkOrder(order, costs, shape)
            let expected = bruteForce(costs, shape)
            #expect(outcome.length == expected, "seed \(seed)")
            #expect(costs.length(of: order, closed: shape.isClosed) == expected, "the order read back has the proven length")
        }
    }

    @Test("Agrees with Held–Karp at 14 and 16 stops", arguments: [ShapeCase.closed, .openFree, .openFrom1To3, .openToStop0])
    func matchesHeldKarp(_ shapeCase: ShapeCase) throws {
        for n in [14, 16] {
            let costs = try roadLike(n, seed: UInt64(n))
            let shape = shapeCase.shape.normalised
            let (outcome, order, tourCosts) = proveFromNearestNeighbour(costs, shape)
            let (_, heldKarpLength) = HeldKarp.solve(tourCosts, shape: shape)
            #expect(outcome.proven)
            #expect(outcome.length == heldKarpLength, "n \(n)")
            #expect(costs.length(of: order, closed: shape.isClosed) == heldKarpLength)
        }
    }

    @Test func theSolverProvesAsymmetricItinerariesOf18To24Stops() throws {
        for (n, shape) in [(18, RouteShape.closed()), (21, .open(start: 0, end: 5)), (24, .open(start: 2, end: nil))] {
            let costs = try roadLike(n, seed: UInt64(100 + n))
            let route = try RouteSolver.solve(costs, shape: shape, options: RouteOptions(timeLimit: .seconds(30)))
            checkRoute(route, costs, shape)
            #expect(route.isProvenOptimal, "n \(n)")
            #expect(route.lowerBound == route.length)
            #expect(route.method.contains("two-node symmetric transform"))
            // No single Or-opt move (one stop moved elsewhere) shortens a proven optimum.
            var order = route.order
            let closed = shape.normalised.isClosed
            for from in 0..<n {
                for to in 0..<n where to != from {
                    let stop = order.remove(at: from)
                    order.insert(stop, at: to)
                    let fitsShape: Bool =
                        switch shape {
                        case .closed: true
                        case .open(let start, let end): (start.map { order.first == $0 } ?? true) && (end.map { order.last == $0 } ?? true)
                        }
                    if fitsShape { #expect(costs.length(of: order, closed: closed) >= route.length) }
                    order.remove(at: to)
                    order.insert(stop, at: from)
                }
            }
        }
    }

    @Test func forbiddenEdgesAreAvoidedAndProven() throws {
        let n = 20
        var random = SplitMix64(seed: 4)
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for j in 0..<n where i != j {
                // One-way streets: about a third of the directions are closed.
                matrix[i][j] = random.next() % 3 == 0 && j != (i + 1) % n ? .infinity : Double(1 + random.next() % 50)
            }
        }
        let costs = try RouteCosts(matrix: matrix)
        let route = try RouteSolver.solve(costs, shape: .closed(), options: RouteOptions(timeLimit: .seconds(30)))
        #expect(route.length.isFinite)
        #expect(route.isProvenOptimal)
        for (k, stop) in route.order.enumerated() {
            #expect(matrix[stop][route.order[(k + 1) % n]].isFinite)
        }
    }
}
