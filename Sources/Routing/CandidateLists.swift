/// For each node, its nearest other nodes by cost and, when the stops have positions, the nearest
/// stop in each quadrant around it, cheapest first: the only edges the local search tries to add.
/// Built from a k-d tree over the stops' positions when they have any (no n×n work), else by
/// scanning the matrix's rows. The virtual node of an open path is everyone's first candidate
/// (its edges cost nothing) and has no list of its own.
struct CandidateLists {
    /// The most candidates a node has (lists end early with -1).
    let perNode: Int
    /// `perNode` entries per node; unused slots are -1.
    private(set) var flat: [Int32]
    /// The cost of each candidate edge, beside ``flat``: the searches read these far more often
    /// than any other cost.
    private(set) var flatCosts: [Double]
    /// The stops' k-d tree, when they have positions (also used for the first tour and bounds).
    let tree: KDTree?

    init(_ costs: TourCosts, embedding: [SIMD3<Double>]?, perNode requested: Int) {
        let stops = costs.stopCount
        let hasVirtual = costs.virtualNode >= 0
        let nearest = max(0, min(requested, stops - 1))
        let quadrantNeighbours = embedding != nil && stops > nearest + 1 ? Self.quadrantNeighbours : 0
        perNode = nearest + 4 * quadrantNeighbours + (hasVirtual ? 1 : 0)
        flat = [Int32](repeating: -1, count: max(1, perNode * costs.nodeCount))
        flatCosts = [Double](repeating: .infinity, count: flat.count)
        tree = embedding.map { KDTree(points: $0) }
        guard perNode > 0 else { return }
        var scratch: [(Double, Int32)] = []
        scratch.reserveCapacity(stops)
        var quadrantPicks: [(Double, Int32)] = []
        let byCost: ((Double, Int32), (Double, Int32)) -> Bool = { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        for i in 0..<stops {
            scratch.removeAll(keepingCapacity: true)
            quadrantPicks.removeAll(keepingCapacity: true)
            if let tree {
                // A few extra by position, then ordered by true cost; and the nearest in each
                // quadrant around the stop, which on clustered stops are the edges between
                // clusters that nearest neighbours alone never offer.
                let nearby = tree.nearest(to: i, count: min(stops - 1, nearest + nearest / 2))
                for j in nearby { scratch.append((costs.cost(i, j), Int32(j))) }
                if quadrantNeighbours > 0 {
                    for j in Self.quadrantCandidates(
                        of: i, tree: tree, planar: costs.kind == .plane,
                        perQuadrant: quadrantNeighbours)
                    {
                        quadrantPicks.append((costs.cost(i, j), Int32(j)))
                    }
                }
            } else {
                for j in 0..<stops where j != i {
                    scratch.append((costs.isSymmetric ? costs.cost(i, j) : min(costs.cost(i, j), costs.cost(j, i)), Int32(j)))
                }
            }
            scratch.sort(by: byCost)
            // The nearest, and the quadrants' picks that are not among them.
            scratch.removeSubrange(min(nearest, scratch.count)...)
            for pick in quadrantPicks where !scratch.contains(where: { $0.1 == pick.1 }) {
                scratch.append(pick)
            }
            scratch.sort(by: byCost)
            var slot = i * perNode
            if hasVirtual {
                flat[slot] = Int32(costs.virtualNode)
                flatCosts[slot] = 0
                slot += 1
            }
            for (cost, j) in scratch {
                flat[slot] = j
                // (For a matrix the list was ordered by the cheaper direction; keep i → j's.)
                flatCosts[slot] = costs.isSymmetric ? cost : costs.cost(i, Int(j))
                slot += 1
            }
        }
    }

    /// How many of the nearest stops in each quadrant around a stop join its list.
    /// Measured on TSPLIB and clustered points: one per quadrant beats none (clustered points
    /// then reach within 1 % in 150 ms, not 3 %) and beats two (more edges to try per step).
    static let quadrantNeighbours = 1

    /// The `perQuadrant` nearest stops in each of the four quadrants around stop `index`, on the
    /// plane tangent to the Earth there (or the plane itself).
    static func quadrantCandidates(of index: Int, tree: KDTree, planar: Bool, perQuadrant: Int) -> [Int] {
        let here = tree.points[index]
        var east = SIMD3<Double>(1, 0, 0), north = SIMD3<Double>(0, 1, 0)
        if !planar {
            let up = here / (here * here).sum().squareRoot()
            let toward = SIMD3<Double>(-up.y, up.x, 0)  // (0,0,1) × up
            let length = (toward * toward).sum().squareRoot()
            if length > 1e-9 { east = toward / length }
            north = SIMD3(up.y * east.z - up.z * east.y, up.z * east.x - up.x * east.z, up.x * east.y - up.y * east.x)
        }
        return tree.quadrantNeighbours(
            of: index, east: east, north: north, perQuadrant: perQuadrant,
            visitLimit: Self.quadrantVisitLimit)
    }

    /// The most k-d tree nodes one quadrant search looks at.
    static let quadrantVisitLimit = 512

    @inline(__always)
    func candidate(_ node: Int, _ k: Int) -> Int { Int(flat[node &* perNode &+ k]) }

    /// The cost from `node` to its `k`th candidate (symmetric costs; for a matrix, the cost in
    /// that direction).
    @inline(__always)
    func candidateCost(_ node: Int, _ k: Int) -> Double { flatCosts[node &* perNode &+ k] }
}

/// A static k-d tree over 3-D points for k-nearest-neighbour queries.
struct KDTree {
    let points: [SIMD3<Double>]
    private var order: [Int32]

    init(points: [SIMD3<Double>]) {
        self.points = points
        order = (0..<points.count).map(Int32.init)
        build(0, points.count, depth: 0)
    }

    private mutating func build(_ low: Int, _ high: Int, depth: Int) {
        guard high - low > 1 else { return }
        let axis = depth % 3
        let middle = (low + high) / 2
        let points = self.points
        order[low..<high].sort { points[Int($0)][axis] < points[Int($1)][axis] }
        build(low, middle, depth: depth + 1)
        build(middle + 1, high, depth: depth + 1)
    }

    /// The `count` points nearest to point `index`, itself excluded, nearest first.
    func nearest(to index: Int, count: Int) -> [Int] {
        guard count > 0 else { return [] }
        var best: [(Double, Int)] = []  // sorted ascending, at most `count`
        best.reserveCapacity(count + 1)
        search(0, points.count, depth: 0, target: points[index], exclude: index, count: count, best: &best)
        return best.map(\.1)
    }

    private func search(
        _ low: Int, _ high: Int, depth: Int, target: SIMD3<Double>, exclude: Int,
        count: Int, best: inout [(Double, Int)]
    ) {
        guard low < high else { return }
        let middle = (low + high) / 2
        let node = Int(order[middle])
        if node != exclude {
            let delta = points[node] - target
            let distance = (delta * delta).sum()
            if best.count < count || distance < best[best.count - 1].0 {
                let at = best.firstIndex { $0.0 > distance || ($0.0 == distance && $0.1 > node) } ?? best.count
                best.insert((distance, node), at: at)
                if best.count > count { best.removeLast() }
            }
        }
        guard high - low > 1 else { return }
        let axis = depth % 3
        let split = points[node][axis] - target[axis]
        let (near, far) = split > 0 ? ((low, middle), (middle + 1, high)) : ((middle + 1, high), (low, middle))
        search(near.0, near.1, depth: depth + 1, target: target, exclude: exclude, count: count, best: &best)
        if best.count < count || split * split <= best[best.count - 1].0 {
            search(far.0, far.1, depth: depth + 1, target: target, exclude: exclude, count: count, best: &best)
        }
    }

    /// The nearest points to point `index` in each quadrant of the plane spanned by `east` and
    /// `north` there: up to `perQuadrant` each, looking at no more than `visitLimit` tree nodes
    /// (a quadrant with no points in it would otherwise send the search through the whole tree).
    func quadrantNeighbours(
        of index: Int, east: SIMD3<Double>, north: SIMD3<Double>, perQuadrant: Int,
        visitLimit: Int
    ) -> [Int] {
        guard perQuadrant > 0 else { return [] }
        var search = QuadrantSearch(
            target: points[index], exclude: index, east: east, north: north,
            perQuadrant: perQuadrant, visitsLeft: visitLimit)
        search.visit(self, 0, points.count, depth: 0)
        return search.found.filter { $0.1 >= 0 }.map(\.1)
    }

    fileprivate func splitNode(_ low: Int, _ high: Int) -> Int { Int(order[(low + high) / 2]) }
}

/// The state of one ``KDTree/quadrantNeighbours(of:east:north:perQuadrant:visitLimit:)`` query.
private struct QuadrantSearch {
    let target: SIMD3<Double>
    let exclude: Int
    let east: SIMD3<Double>
    let north: SIMD3<Double>
    let perQuadrant: Int
    var visitsLeft: Int
    /// `perQuadrant` slots per quadrant, nearest first; empty slots hold (∞, -1).
    var found: [(Double, Int)]

    init(target: SIMD3<Double>, exclude: Int, east: SIMD3<Double>, north: SIMD3<Double>, perQuadrant: Int, visitsLeft: Int) {
        self.target = target
        self.exclude = exclude
        self.east = east
        self.north = north
        self.perQuadrant = perQuadrant
        self.visitsLeft = visitsLeft
        found = Array(repeating: (.infinity, -1), count: 4 * perQuadrant)
    }

    /// The distance beyond which no quadrant wants a point: the largest of the quadrants' worst.
    var bound: Double {
        var largest = 0.0
        for quadrant in 0..<4 { largest = max(largest, found[quadrant * perQuadrant + perQuadrant - 1].0) }
        return largest
    }

    mutating func visit(_ tree: KDTree, _ low: Int, _ high: Int, depth: Int) {
        guard low < high, visitsLeft > 0 else { return }
        visitsLeft -= 1
        let middle = (low + high) / 2
        let node = tree.splitNode(low, high)
        let point = tree.points[node]
        let delta = point - target
        if node != exclude {
            let distance = (delta * delta).sum()
            let quadrant = ((delta * east).sum() >= 0 ? 0 : 1) + ((delta * north).sum() >= 0 ? 0 : 2)
            let base = quadrant * perQuadrant
            if distance < found[base + perQuadrant - 1].0 {
                var at = base + perQuadrant - 1
                while at > base && found[at - 1].0 > distance {
                    found[at] = found[at - 1]
                    at -= 1
                }
                found[at] = (distance, node)
            }
        }
        guard high - low > 1 else { return }
        let axis = depth % 3
        let split = point[axis] - target[axis]
        let (near, far) = split > 0 ? ((low, middle), (middle + 1, high)) : ((middle + 1, high), (low, middle))
        visit(tree, near.0, near.1, depth: depth + 1)
        if split * split <= bound { visit(tree, far.0, far.1, depth: depth + 1) }
    }
}
