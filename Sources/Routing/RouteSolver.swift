import GeoCore

/// Finds the shortest visiting order of a set of stops.
///
/// - Up to ``HeldKarp/maximumStops`` stops (12 when costs are symmetric): Held–Karp dynamic
///   programming, proven optimal.
/// - Symmetric costs up to ``RouteOptions/exactLimit`` stops: iterated 2-opt and Or-opt search for a tour,
///   then branch and bound on Held–Karp 1-tree bounds to prove it optimal or improve it, within
///   the deadline.
/// - Beyond, symmetric costs: from the greedy edge tour (``InitialTour/greedy(_:candidates:)``),
///   iterated local search until the deadline; the answer is the best order found. Each kick
///   swaps two adjacent stretches of the tour; Lin–Kernighan chains of sequential 3-opt moves
///   (``LinKernighanMove``) and Or-opt repair it. Candidate edges are each stop's ten nearest and
///   the nearest in each quadrant around it, which on clustered stops supply the edges between
///   clusters.
/// - Asymmetric costs: direction-keeping segment swaps and Or-opt (``DirectedSearch``); from 18 up
///   to ``directedExactLimit`` stops (and ``RouteOptions/exactLimit``), then a proof by the same
///   branch and bound on the two-node symmetric transform (``DirectedProof``).
///
/// Deterministic: the same costs, shape and seed give the same order when the run is bounded by
/// ``RouteOptions/maximumKicks`` rather than time.
///
/// ```swift
/// let route = try RouteSolver.solve(RouteCosts(points: stops), shape: .open(start: 0, end: nil))
/// print(route.order, route.length, route.isProvenOptimal)
/// ```
public enum RouteSolver {
    /// Candidate neighbours per stop for local search.
    static let candidatesPerStop = 10
    /// Largest symmetric problem handed to dynamic programming (branch and bound is faster above).
    static let symmetricDynamicProgrammingLimit = 12
    /// Largest asymmetric problem for which a proof is attempted (by ``DirectedProof``, on twice
    /// as many nodes).
    static let directedExactLimit = 30

    /// Solves for the shortest order.
    /// - Throws: ``RoutingError`` for no stops, a start or end out of range, or when every order
    ///   needs a forbidden edge.
    public static func solve(
        _ costs: RouteCosts, shape: RouteShape = .closed(),
        options: RouteOptions = RouteOptions()
    ) throws -> Route {
        let deadline = ContinuousClock.now.advanced(by: options.timeLimit)
        let n = costs.count
        guard n > 0 else { throw RoutingError.noStops }
        try shape.validate(count: n)
        let shape = shape.normalised
        let closedStart: Int? = if case .closed(let start) = shape { start } else { nil }

        if n == 1 {
            return finish([0], costs: costs, shape: shape, proven: true, lowerBound: nil, method: "trivial")
        }
        let tourCosts = TourCosts(costs, shape: shape)
        let dynamicLimit = costs.isSymmetric ? symmetricDynamicProgrammingLimit : HeldKarp.maximumStops
        if n <= dynamicLimit {
            let (order, length) = HeldKarp.solve(tourCosts, shape: shape)
            if tourCosts.usesForbiddenEdge(length) { throw RoutingError.noFeasibleRoute }
            return finish(order, costs: costs, shape: shape, proven: true, lowerBound: nil, method: "held-karp")
        }

        var random = SplitMix64(seed: options.seed)
        let candidates = CandidateLists(tourCosts, embedding: costs.embedding, perNode: candidatesPerStop)
        let initial =
            costs.isSymmetric
            ? InitialTour.greedy(tourCosts, candidates: candidates)
            : InitialTour.nearestNeighbour(tourCosts, candidates: candidates)
        let attemptProof = n <= min(options.exactLimit, costs.isSymmetric ? .max : directedExactLimit)
        // Before a proof, a short search: the bound does the rest.
        let kicks = attemptProof ? min(options.maximumKicks ?? .max, 40 * n) : (options.maximumKicks ?? .max)
        let search: any KickedLocalSearch =
            if costs.isSymmetric {
                SymmetricSearch(costs: tourCosts, candidates: candidates, initialTour: initial, deepMoves: !attemptProof)
            } else {
                DirectedSearch(costs: tourCosts, candidates: candidates, initialTour: initial)
            }
        search.improveAll()
        search.iterate(deadline: deadline, maximumKicks: kicks, random: &random)
        var tour = search.tour
        var method = search.name
        var proven = false
        var lowerBound: Double
        if attemptProof {
            let outcome: BranchAndBound.Outcome
            if costs.isSymmetric {
                var proof = BranchAndBound(costs: tourCosts, tour: tour, length: search.length)
                outcome = proof.run(deadline: deadline)
                method += " + 1-tree branch and bound"
            } else {
                outcome = DirectedProof.run(costs: tourCosts, tour: tour, length: search.length, deadline: deadline)
                method += " + 1-tree branch and bound on the two-node symmetric transform"
            }
            tour = outcome.tour
            proven = outcome.proven
            lowerBound = outcome.lowerBound
            method += proven ? " (proven)" : " (stopped at deadline)"
            if proven && tourCosts.usesForbiddenEdge(outcome.length) { throw RoutingError.noFeasibleRoute }
        } else {
            lowerBound = bestKnownBound(costs, tourCosts, shape: shape, tour: tour, tree: candidates.tree)
        }
        let order = tourCosts.order(fromTour: tour, closedStart: closedStart)
        // Only a matrix can forbid edges; the search found no order without one.
        if !costs.length(of: order, closed: shape.isClosed).isFinite { throw RoutingError.noFeasibleRoute }
        return finish(order, costs: costs, shape: shape, proven: proven, lowerBound: lowerBound, method: method)
    }

    /// A bound for an answer no proof was attempted for: the Held–Karp 1-tree bound at the root
    /// of the branch and bound for symmetric problems up to 300 stops, else the cheapest-edge
    /// bounds.
    private static func bestKnownBound(
        _ costs: RouteCosts, _ tourCosts: TourCosts, shape: RouteShape,
        tour: [Int32], tree: KDTree?
    ) -> Double {
        if costs.isSymmetric && costs.count <= 300 {
            var rootOnly = BranchAndBound(costs: tourCosts, tour: tour, length: tourCosts.length(of: tour))
            return rootOnly.run(deadline: .now).lowerBound
        }
        if case .matrix = costs.storage { return LowerBound.cheapestInAndOut(tourCosts) }
        return tree.flatMap { LowerBound.cheapestEdges(costs, shape: shape, tree: $0) } ?? 0
    }

    private static func finish(
        _ order: [Int], costs: RouteCosts, shape: RouteShape, proven: Bool,
        lowerBound: Double?, method: String
    ) -> Route {
        let closed = shape.isClosed
        var legs: [Double] = []
        if order.count > 1 {
            for k in 1..<order.count { legs.append(costs.cost(order[k - 1], order[k])) }
            if closed { legs.append(costs.cost(order[order.count - 1], order[0])) }
        }
        let length = legs.reduce(0, +)
        return Route(
            order: order, length: length, isProvenOptimal: proven,
            lowerBound: proven ? length : min(length, lowerBound ?? 0), method: method, legs: legs)
    }
}
