/// Lower bounds on the optimum for answers that are not proven, cheap enough for any size.
enum LowerBound {
    /// Every stop on a round trip has two edges, each at least as long as its cheapest ones; on a
    /// path the two ends have one. So the optimum is at least half the sum over stops of their
    /// two cheapest edges, less the second-cheapest at the two ends (the fixed ones, or the
    /// largest when an end is free).
    ///
    /// The cheapest edges come from the k-d tree, exactly: for TSPLIB plane and GEO costs the
    /// nearest stops by position are the cheapest; for ellipsoidal distances the straight line
    /// through the Earth is never longer than the geodesic, so chords stand in for costs.
    /// Returns nil when neither holds (a matrix, Manhattan or maximum metrics).
    /// - Parameter tree: the k-d tree over `costs.embedding`.
    static func cheapestEdges(_ costs: RouteCosts, shape: RouteShape, tree: KDTree) -> Double? {
        guard costs.count >= 3 else { return nil }
        let points = tree.points
        let chords: Bool
        if case .geodesic = costs.storage { chords = true } else if costs.costGrowsWithEmbeddingDistance { chords = false } else { return nil }
        var total = 0.0
        var second = [Double](repeating: 0, count: costs.count)
        for i in 0..<costs.count {
            let nearest = tree.nearest(to: i, count: 2)
            let edges = nearest.map { j -> Double in
                if chords {
                    let delta = points[i] - points[j]
                    return (delta * delta).sum().squareRoot() * (1 - 1e-12)  // below any rounding
                }
                return costs.cost(i, j)
            }.sorted()
            total += edges[0] + edges[1]
            second[i] = edges[1]
        }
        switch shape {
        case .closed: break
        case .open(let start, let end):
            var ends = [start, end].compactMap { $0 }.map { second[$0] }
            let fixed = Set([start, end].compactMap { $0 })
            let free = second.enumerated().filter { !fixed.contains($0.offset) }.map(\.element).sorted(by: >)
            ends += free.prefix(2 - ends.count)
            total -= ends.reduce(0, +)
        }
        return max(0, total / 2)
    }

    /// For any costs given as a matrix: every stop is left once and entered once, so the optimum
    /// is at least the larger of the sums of each stop's cheapest way out and cheapest way in
    /// (a path's free ends need neither). Reads the whole matrix: O(n²).
    static func cheapestInAndOut(_ costs: TourCosts) -> Double {
        let n = costs.stopCount
        var outgoing = [Double](repeating: .infinity, count: n)
        var incoming = [Double](repeating: .infinity, count: n)
        for i in 0..<n {
            for j in 0..<n where i != j {
                let value = costs.cost(i, j)
                outgoing[i] = min(outgoing[i], value)
                incoming[j] = min(incoming[j], value)
            }
        }
        if costs.virtualNode >= 0 {
            // The end leaves to the virtual node and the start arrives from it, at no cost.
            if costs.fixedEnd >= 0 {
                outgoing[costs.fixedEnd] = 0
            } else if let worst = outgoing.indices.max(by: { outgoing[$0] < outgoing[$1] }) {
                outgoing[worst] = 0
            }
            if costs.fixedStart >= 0 {
                incoming[costs.fixedStart] = 0
            } else if let worst = incoming.indices.max(by: { incoming[$0] < incoming[$1] }) {
                incoming[worst] = 0
            }
        }
        let finite = { (values: [Double]) in values.allSatisfy(\.isFinite) ? values.reduce(0, +) : 0 }
        return max(finite(outgoing), finite(incoming))
    }
}
