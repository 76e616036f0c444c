import Foundation
import GeoCore
import Testing

@testable import Routing

@Suite("Route solver")
struct RouteSolverTests {
    @Test("One, two and three stops, in every shape")
    func tinyInputs() throws {
        let points = [
            Coordinate(uncheckedLatitude: 48.8584, longitude: 2.2945),
            Coordinate(uncheckedLatitude: 48.8606, longitude: 2.3376),
            Coordinate(uncheckedLatitude: 48.8530, longitude: 2.3499),
        ]
        let one = try RouteSolver.solve(RouteCosts(points: [points[0]]), shape: .open(start: 0, end: 0))
        #expect(one.order == [0] && one.length == 0 && one.isProvenOptimal && one.legs.isEmpty)
        let two = RouteCosts(points: Array(points.prefix(2)))
        let d = Geodesic.distance(points[0], points[1])
        let twoClosed = try RouteSolver.solve(two, shape: .closed(start: 1))
        #expect(twoClosed.order == [1, 0])
        #expect(abs(twoClosed.length - 2 * d) < 1e-6)
        let twoOpen = try RouteSolver.solve(two, shape: .open(start: nil, end: 0))
        #expect(twoOpen.order == [1, 0] && abs(twoOpen.length - d) < 1e-6)
        let three = RouteCosts(points: points)
        for shapeCase in ShapeCase.allCases where shapeCase != .openFrom1To3 {
            let route = try RouteSolver.solve(three, shape: shapeCase.shape)
            checkRoute(route, three, shapeCase.shape)
            #expect(abs(route.length - bruteForce(three, shapeCase.shape)) < 1e-6)
        }
    }

    @Test("Duplicate points and zero-cost edges")
    func duplicates() throws {
        var points = randomPoints(14, seed: 9)
        points[5] = points[2]
        points[9] = points[2]
        let costs = RouteCosts(points: points)
        let route = try RouteSolver.solve(costs, shape: .closed())
        checkRoute(route, costs, .closed())
        #expect(route.isProvenOptimal)
        let exact = try RouteSolver.solve(
            RouteCosts(points: points), shape: .closed(),
            options: RouteOptions(exactLimit: 0, maximumKicks: 2000))
        #expect(exact.length >= route.length - 1e-6)
        let zeros = try RouteCosts(matrix: [[0, 0, 0], [0, 0, 0], [0, 0, 0]])
        let zeroRoute = try RouteSolver.solve(zeros)
        #expect(zeroRoute.length == 0 && zeroRoute.isProvenOptimal)
    }

    @Test("Start equal to end is a round trip from that stop")
    func startEqualsEnd() throws {
        let costs = RouteCosts(points: randomPoints(16, seed: 4))
        let roundTrip = try RouteSolver.solve(costs, shape: .open(start: 3, end: 3))
        let closed = try RouteSolver.solve(costs, shape: .closed(start: 3))
        #expect(roundTrip.order.first == 3)
        #expect(roundTrip.legs.count == 16)
        #expect(abs(roundTrip.length - closed.length) < 1e-6)
        #expect(roundTrip.isProvenOptimal)
    }

    @Test("Forbidden edges are avoided, and no route is an error")
    func infiniteEdges() throws {
        // A directed ring 0→1→…→5→0 is the only finite round trip.
        let n = 6
        var matrix = [[Double]](repeating: [Double](repeating: .infinity, count: n), count: n)
        for i in 0..<n {
            matrix[i][i] = 0
            matrix[i][(i + 1) % n] = Double(i + 1)
        }
        let ring = try RouteCosts(matrix: matrix)
        #expect(!ring.isSymmetric)
        let route = try RouteSolver.solve(ring, shape: .closed(start: 0))
        #expect(route.order == [0, 1, 2, 3, 4, 5] && route.length == 21)
        matrix[5][0] = .infinity
        #expect(throws: RoutingError.noFeasibleRoute) { try RouteSolver.solve(RouteCosts(matrix: matrix), shape: .closed()) }
        let path = try RouteSolver.solve(RouteCosts(matrix: matrix), shape: .open(start: nil, end: nil))
        #expect(path.order == [0, 1, 2, 3, 4, 5] && path.length == 15)
    }

    @Test("Bad input is refused, naming the value")
    func badInput() throws {
        #expect(throws: RoutingError.noStops) { try RouteSolver.solve(RouteCosts(points: [])) }
        #expect(throws: RoutingError.matrixNotSquare(row: 1, length: 1, expected: 2)) { try RouteCosts(matrix: [[0, 1], [1]]) }
        #expect(throws: RoutingError.invalidCost(row: 0, column: 1, value: -2)) { try RouteCosts(matrix: [[0, -2], [1, 0]]) }
        let costs = RouteCosts(points: randomPoints(4, seed: 1))
        #expect(throws: RoutingError.stopOutOfRange(role: "end", index: 4, count: 4)) {
            try RouteSolver.solve(costs, shape: .open(start: 0, end: 4))
        }
        #expect(
            RoutingError.stopOutOfRange(role: "start", index: 7, count: 4).description
                == "start stop 7 does not exist: stops are numbered 0 to 3")
    }

    @Test(
        "Large inputs keep fixed ends, stay a permutation, and repeat for the same seed",
        arguments: [RouteShape.closed(start: 17), .open(start: 5, end: nil), .open(start: nil, end: 8), .open(start: 2, end: 640)])
    func largeShapes(_ shape: RouteShape) throws {
        let costs = RouteCosts(points: randomPoints(700, seed: 77, spanDegrees: 1))
        let options = RouteOptions(timeLimit: .seconds(60), seed: 3, maximumKicks: 3000)
        let route = try RouteSolver.solve(costs, shape: shape, options: options)
        checkRoute(route, costs, shape)
        #expect(!route.isProvenOptimal)
        #expect(route.lowerBound <= route.length)
        #expect(route.lowerBound > 0.5 * route.length)
        let again = try RouteSolver.solve(costs, shape: shape, options: options)
        #expect(again.order == route.order)
        // Far better than visiting in the given (random) order.
        #expect(route.length < 0.2 * costs.length(of: Array(0..<700), closed: shape.isClosed))
    }

    @Test("Asymmetric matrices beyond dynamic programming: a valid order no worse than the best of many random ones")
    func asymmetricLarge() throws {
        let costs = try randomMatrix(40, symmetric: false, seed: 12)
        let route = try RouteSolver.solve(
            costs, shape: .open(start: 0, end: 39),
            options: RouteOptions(timeLimit: .seconds(60), maximumKicks: 2000))
        checkRoute(route, costs, .open(start: 0, end: 39))
        var random = SplitMix64(seed: 5)
        var bestRandom = Double.infinity
        for _ in 0..<200 {
            var middle = Array(1..<39)
            middle.shuffle(using: &random)
            bestRandom = min(bestRandom, costs.length(of: [0] + middle + [39], closed: false))
        }
        #expect(route.length < 0.5 * bestRandom)
        #expect(route.lowerBound > 0 && route.lowerBound <= route.length)
    }

    @Test("The cheap lower bounds never exceed the optimum", arguments: ShapeCase.allCases)
    func lowerBoundsAreValid(_ shapeCase: ShapeCase) throws {
        let shape = shapeCase.shape.normalised
        for seed in 1...8 as ClosedRange<UInt64> {
            let points = RouteCosts(points: randomPoints(8, seed: seed, spanDegrees: seed.isMultiple(of: 2) ? 0.01 : 40))
            let tree = KDTree(points: try #require(points.embedding))
            let bound = try #require(LowerBound.cheapestEdges(points, shape: shape, tree: tree))
            let optimum = bruteForce(points, shape)
            #expect(bound <= optimum && bound > 0.3 * optimum, "seed \(seed): \(bound) against \(optimum)")
            let matrix = try randomMatrix(8, symmetric: false, seed: seed)
            let directed = LowerBound.cheapestInAndOut(TourCosts(matrix, shape: shape))
            #expect(directed <= bruteForce(matrix, shape) && directed > 0)
        }
    }

    @Test("Cancelling the task ends a long search with the best order so far", .timeLimit(.minutes(1)))
    func cancellation() async throws {
        let costs = RouteCosts(points: randomPoints(2000, seed: 21, spanDegrees: 2))
        let task = Task {
            // Ten minutes and no kick limit: only cancellation can end this within the test's minute.
            try RouteSolver.solve(costs, shape: .open(start: 0, end: nil), options: RouteOptions(timeLimit: .seconds(600)))
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let route = try await task.value
        checkRoute(route, costs, .open(start: 0, end: nil))
        #expect(!route.isProvenOptimal)
    }

    @Test("Around the antimeridian and the pole, distances are ellipsoidal")
    func antimeridianAndPole() throws {
        let points = [
            Coordinate(uncheckedLatitude: -16.5, longitude: 179.9), Coordinate(uncheckedLatitude: -16.6, longitude: -179.9),
            Coordinate(uncheckedLatitude: -17.0, longitude: 179.5), Coordinate(uncheckedLatitude: -16.0, longitude: -179.5),
            Coordinate(uncheckedLatitude: 89.9, longitude: 0), Coordinate(uncheckedLatitude: 89.9, longitude: 180),
        ]
        let costs = RouteCosts(points: points)
        #expect(costs.cost(0, 1) < 30_000)  // across the antimeridian, not around the world
        #expect(abs(costs.cost(4, 5) - Geodesic.distance(points[4], points[5])) < 1e-9)
        #expect(costs.cost(4, 5) < 25_000)  // over the pole
        let route = try RouteSolver.solve(costs, shape: .closed())
        checkRoute(route, costs, .closed())
        #expect(abs(route.length - bruteForce(costs, .closed())) < 1e-6)
    }
}
