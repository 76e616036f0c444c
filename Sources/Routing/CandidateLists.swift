/// For each node, its nearest other nodes by cost, nearest first: the only edges the local search
/// tries to add. Built from a k-d tree over the stops' positions when they have any (no n×n
/// work), else by scanning the matrix's rows. The virtual node of an open path is everyone's
/// first candidate (its edges cost nothing) and has no list of its own.
struct CandidateLists {
    let perNode: Int
    /// `perNode` entries per node; unused slots are -1.
    private(set) var flat: [Int32]
    /// The stops' k-d tree, when they have positions (also used for the first tour and bounds).
    let tree: KDTree?

    init(_ costs: TourCosts, embedding: [SIMD3<Double>]?, perNode requested: Int) {
        let stops = costs.stopCount
        let hasVirtual = costs.virtualNode >= 0
        let nearest = max(0, min(requested, stops - 1))
        perNode = nearest + (hasVirtual ? 1 : 0)
        flat = [Int32](repeating: -1, count: max(1, perNode * costs.nodeCount))
        tree = embedding.map { KDTree(points: $0) }
        guard perNode > 0 else { return }
        var scratch: [(Double, Int32)] = []
        scratch.reserveCapacity(stops)
        for i in 0..<stops {
            scratch.removeAll(keepingCapacity: true)
            if let tree {
                // A few extra by position, then ordered by true cost.
                for j in tree.nearest(to: i, count: min(stops - 1, nearest + nearest / 2)) {
                    scratch.append((costs.cost(i, j), Int32(j)))
                }
            } else {
                for j in 0..<stops where j != i {
                    scratch.append((costs.isSymmetric ? costs.cost(i, j) : min(costs.cost(i, j), costs.cost(j, i)), Int32(j)))
                }
            }
            scratch.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
            var slot = i * perNode
            if hasVirtual { flat[slot] = Int32(costs.virtualNode); slot += 1 }
            for (_, j) in scratch.prefix(nearest) { flat[slot] = j; slot += 1 }
        }
    }

    @inline(__always)
    func candidate(_ node: Int, _ k: Int) -> Int { Int(flat[node &* perNode &+ k]) }
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
        var best: [(Double, Int)] = []   // sorted ascending, at most `count`
        best.reserveCapacity(count + 1)
        search(0, points.count, depth: 0, target: points[index], exclude: index, count: count, best: &best)
        return best.map(\.1)
    }

    private func search(_ low: Int, _ high: Int, depth: Int, target: SIMD3<Double>, exclude: Int,
                        count: Int, best: inout [(Double, Int)]) {
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
}
