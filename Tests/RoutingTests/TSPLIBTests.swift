import Foundation
import GeoCore
import Testing

@testable import Routing

func fixture(_ name: String) throws -> String {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    return try String(contentsOf: url, encoding: .utf8)
}

@Suite("TSPLIB")
struct TSPLIBTests {
    @Test("Published optima are proven", arguments: [("burma14", 3323.0), ("ulysses16", 6859), ("ulysses22", 7013)])
    func provenOptima(name: String, optimum: Double) throws {
        let problem = try TSPLIBProblem(text: fixture("\(name).tsp"))
        #expect(problem.edgeWeightType == "GEO")
        let route = try RouteSolver.solve(
            problem.costs, shape: .closed(),
            options: RouteOptions(timeLimit: .seconds(60), maximumKicks: 5000))
        #expect(route.length == optimum)
        #expect(route.isProvenOptimal)
        #expect(route.lowerBound == optimum)
        checkRoute(route, problem.costs, .closed())
    }

    @Test("The optimal tour of a280 scores its published optimum with EUC_2D rounding")
    func optimalTourScores() throws {
        let problem = try TSPLIBProblem(text: fixture("a280.tsp"))
        let tour = try TSPLIBProblem.tour(text: fixture("a280.opt.tour"))
        #expect(tour.sorted() == Array(0..<280))
        #expect(problem.costs.length(of: tour, closed: true) == 2579)
    }

    @Test("GEO and ATT distance functions reproduce TSPLIB's integers")
    func distanceFunctions() throws {
        let burma = try TSPLIBProblem(text: fixture("burma14.tsp"))
        // burma14 nodes 1 (16.47, 96.10) and 2 (16.47, 94.44): TSPLIB's GEO gives 153 km.
        #expect(burma.costs.cost(0, 1) == 153)
        let att = try TSPLIBProblem(text: fixture("att48.tsp"))
        #expect(att.costs.isIntegral && att.costs.isSymmetric)
        let route = try RouteSolver.solve(att.costs, options: RouteOptions(timeLimit: .seconds(60), maximumKicks: 5000))
        #expect(route.length == 10628)
    }

    @Test(
        "Heuristic answers stay within their stated bounds",
        arguments: [("gr96", 55209.0, 0.01), ("gr202", 40160, 0.02), ("a280", 2579, 0.02)])
    func heuristicBounds(name: String, optimum: Double, bound: Double) throws {
        let problem = try TSPLIBProblem(text: fixture("\(name).tsp"))
        let route = try RouteSolver.solve(
            problem.costs, shape: .closed(),
            options: RouteOptions(timeLimit: .seconds(60), exactLimit: 0, maximumKicks: 20 * problem.costs.count))
        checkRoute(route, problem.costs, .closed())
        #expect(route.length >= optimum)
        #expect(route.length <= optimum * (1 + bound), "\(name): \(route.length) against \(optimum)")
    }

    @Test("Explicit matrices in every TSPLIB layout give the same costs")
    func explicitFormats() throws {
        let full = [[0.0, 3, 4, 5], [3, 0, 6, 7], [4, 6, 0, 8], [5, 7, 8, 0]]
        let layouts: [(String, [Double])] = [
            ("FULL_MATRIX", full.flatMap { $0 }),
            ("UPPER_ROW", [3, 4, 5, 6, 7, 8]),
            ("LOWER_ROW", [3, 4, 6, 5, 7, 8]),
            ("UPPER_DIAG_ROW", [0, 3, 4, 5, 0, 6, 7, 0, 8, 0]),
            ("LOWER_DIAG_ROW", [0, 3, 0, 4, 6, 0, 5, 7, 8, 0]),
            ("UPPER_COL", [3, 4, 6, 5, 7, 8]),
            ("LOWER_COL", [3, 4, 5, 6, 7, 8]),
        ]
        for (format, numbers) in layouts {
            let text = """
                NAME: tiny
                TYPE: TSP
                DIMENSION: 4
                EDGE_WEIGHT_TYPE: EXPLICIT
                EDGE_WEIGHT_FORMAT: \(format)
                EDGE_WEIGHT_SECTION
                \(numbers.map { String(Int($0)) }.joined(separator: " "))
                EOF
                """
            let problem = try TSPLIBProblem(text: text)
            for i in 0..<4 { for j in 0..<4 { #expect(problem.costs.cost(i, j) == full[i][j], "\(format) [\(i)][\(j)]") } }
        }
    }

    @Test("Bad TSPLIB files are refused with the line and the reason")
    func badFiles() throws {
        #expect(throws: RoutingError.invalidTSPLIB(line: 1, reason: "DIMENSION is missing or not a positive integer")) {
            try TSPLIBProblem(text: "NAME: x\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\nEOF\n")
        }
        #expect(throws: RoutingError.invalidTSPLIB(line: 4, reason: "'x' is not a number")) {
            try TSPLIBProblem(text: "DIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 x 0\n2 1 1\nEOF\n")
        }
        #expect(throws: RoutingError.unsupportedTSPLIB("EDGE_WEIGHT_TYPE 'EUC_3D'")) {
            try TSPLIBProblem(text: "DIMENSION: 1\nEDGE_WEIGHT_TYPE: EUC_3D\nNODE_COORD_SECTION\n1 0 0 0\nEOF\n")
        }
        let error = try #require(throws: RoutingError.self) {
            try TSPLIBProblem(text: "DIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 1 1\nEOF\n")
        }
        #expect(error.description.contains("DIMENSION is 3 but NODE_COORD_SECTION has 2 nodes"))
    }

    @Test(
        "A huge DIMENSION is compared with what the file holds before anything is allocated",
        arguments: [
            ("4294967296", "UPPER_ROW", "needs more than any file holds"),  // the 34 GB trap
            ("9223372036854775807", "FULL_MATRIX", "needs more than any file holds"),
            ("100000", "LOWER_DIAG_ROW", "needs 5000050000"),
        ])
    func hugeDimension(dimension: String, format: String, needs: String) throws {
        let text =
            "NAME: x\nTYPE: TSP\nDIMENSION: \(dimension)\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: \(format)\n"
            + "EDGE_WEIGHT_SECTION\n1 2 3\nEOF\n"
        // The error names the line the section starts on.
        #expect(
            throws: RoutingError.invalidTSPLIB(line: 6, reason: "EDGE_WEIGHT_SECTION has 3 numbers; \(format) with DIMENSION \(dimension) \(needs)")
        ) {
            try TSPLIBProblem(text: text)
        }
    }
}
