/// Proves an asymmetric tour optimal, or finds a better one, with the symmetric branch and bound
/// (``BranchAndBound``) on the classic two-node transformation (R. Jonker and T. Volgenant,
/// "Transforming asymmetric into symmetric traveling salesman problems", Oper. Res. Letters 2,
/// 1983): each node i becomes an entry node i and an exit node i′ joined by a forced edge; the
/// directed edge i → j becomes the undirected edge i′–j at the same cost; edges between two
/// entries or two exits are excluded. A symmetric tour then alternates entry, exit, entry, … and
/// reads as a directed tour of the same length, so the proof carries over exactly. No large
/// constant is added to any cost: the structure is held by forced and excluded edges alone.
///
/// The fixed ends of an open path (directed edges to and from the virtual node) are forced edges
/// of the transform.
enum DirectedProof {
    /// - Parameters:
    ///   - tour: a directed tour over `costs`' nodes (the incumbent) and its `length`.
    static func run(
        costs: TourCosts, tour: [Int32], length: Double,
        deadline: ContinuousClock.Instant
    ) -> BranchAndBound.Outcome {
        let count = costs.nodeCount
        let n = 2 * count  // entries 0..<count, exits count..<2·count
        var matrix = [Double](repeating: 0, count: n * n)
        var state = [BranchAndBound.EdgeState](repeating: .excluded, count: n * n)
        func set(_ a: Int, _ b: Int, _ value: Double, _ edge: BranchAndBound.EdgeState) {
            matrix[a * n + b] = value
            matrix[b * n + a] = value
            state[a * n + b] = edge
            state[b * n + a] = edge
        }
        for i in 0..<count {
            set(i, count + i, 0, .forced)
            for j in 0..<count where j != i {
                set(count + i, j, costs.cost(i, j), .free)  // i → j
            }
        }
        // A fixed start (virtual → start) and a fixed end (end → virtual) are forced directed edges.
        if costs.virtualNode >= 0 {
            let v = costs.virtualNode
            func forceOnly(exit: Int, entry: Int) {
                for other in 0..<count where other != exit {
                    state[(count + exit) * n + other] = .excluded
                    state[other * n + count + exit] = .excluded
                }
                for other in 0..<count where other != entry {
                    state[(count + other) * n + entry] = .excluded
                    state[entry * n + count + other] = .excluded
                }
                set(count + exit, entry, costs.cost(exit, entry), .forced)
            }
            if costs.fixedStart >= 0 { forceOnly(exit: v, entry: costs.fixedStart) }
            if costs.fixedEnd >= 0 { forceOnly(exit: costs.fixedEnd, entry: v) }
        }
        var symmetricTour: [Int32] = []
        symmetricTour.reserveCapacity(n)
        for node in tour {
            symmetricTour.append(node)
            symmetricTour.append(node + Int32(count))
        }
        var proof = BranchAndBound(
            matrix: matrix, nodeCount: n, integral: costs.isIntegral, rootState: state,
            tour: symmetricTour, length: length)
        var outcome = proof.run(deadline: deadline)
        outcome.tour = directed(outcome.tour, count: count)
        return outcome
    }

    /// The directed tour a symmetric tour of the transform stands for: its entry nodes, in the
    /// direction that has each entry followed by its own exit.
    static func directed(_ symmetricTour: [Int32], count: Int) -> [Int32] {
        let n = symmetricTour.count
        guard let first = symmetricTour.firstIndex(where: { Int($0) < count }) else { return [] }
        let forward = Int(symmetricTour[(first + 1) % n]) == Int(symmetricTour[first]) + count
        var order: [Int32] = []
        order.reserveCapacity(count)
        for step in 0..<n {
            let at = forward ? (first + step) % n : (first - step + n) % n
            let node = symmetricTour[at]
            if Int(node) < count { order.append(node) }
        }
        return order
    }
}
