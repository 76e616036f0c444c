/// Starting tours for local search.
enum InitialTour {
    /// Nearest neighbour from the fixed start (or stop 0), over candidate lists first and then
    /// the nearest unvisited stop by position (or by a scan for a matrix), keeping a fixed end for
    /// last. With a virtual node the tour is [virtual, start, …, end].
    static func nearestNeighbour(_ costs: TourCosts, candidates: CandidateLists) -> [Int32] {
        let stops = costs.stopCount
        var visited = [Bool](repeating: false, count: stops)
        var unvisited = Array(0..<stops)  // swap-remove list for the scans
        var slot = Array(0..<stops)
        func markVisited(_ node: Int) {
            visited[node] = true
            let at = slot[node], last = unvisited.removeLast()
            if last != node {
                unvisited[at] = last
                slot[last] = at
            }
        }
        let tree = candidates.tree
        let end = costs.fixedEnd
        if end >= 0 { markVisited(end) }
        var current = costs.fixedStart >= 0 ? costs.fixedStart : (end == 0 && stops > 1 ? 1 : 0)
        var order: [Int32] = []
        order.reserveCapacity(costs.nodeCount)
        if costs.virtualNode >= 0 { order.append(Int32(costs.virtualNode)) }
        order.append(Int32(current))
        markVisited(current)
        while !unvisited.isEmpty {
            var next = -1
            for k in 0..<candidates.perNode {
                let c = candidates.candidate(current, k)
                if c >= 0, c < stops, !visited[c] {
                    next = c
                    break
                }
            }
            if next < 0, let tree {
                var count = 4 * candidates.perNode
                while next < 0 && count < 8 * stops {
                    next = tree.nearest(to: current, count: min(count, stops - 1)).first { !visited[$0] } ?? -1
                    if count >= stops - 1 { break }
                    count *= 4
                }
            }
            if next < 0 {
                var best = Double.infinity
                for c in unvisited {
                    let value = costs.cost(current, c)
                    if value < best || next < 0 {
                        best = value
                        next = c
                    }
                }
            }
            order.append(Int32(next))
            markVisited(next)
            current = next
        }
        if end >= 0 { order.append(Int32(end)) }
        return order
    }
}

extension InitialTour {
    /// The greedy edge tour for symmetric costs: candidate edges cheapest first, each taken when
    /// both its ends still have a free side and it closes no cycle; the fragments left are then
    /// joined end to nearest end (by position when the stops have one, else by cost). A fixed
    /// start or end takes one greedy edge only (its other edge is to the virtual node) and the
    /// two never share a fragment, so the path can begin at one and finish at the other.
    ///
    /// Local search from greedy tours ends shorter and sooner than from nearest-neighbour tours
    /// (Johnson and McGeoch's finding; on 2 000 clustered stops here, a 2-opt and Or-opt descent
    /// ends 9.6 % above the best known tour from it, 12 % from nearest neighbour).
    static func greedy(_ costs: TourCosts, candidates: CandidateLists) -> [Int32] {
        let stops = costs.stopCount
        let start = costs.fixedStart, end = costs.fixedEnd
        var edges: [(cost: Double, low: Int32, high: Int32)] = []
        edges.reserveCapacity(stops * candidates.perNode)
        for i in 0..<stops {
            for k in 0..<candidates.perNode {
                let j = candidates.candidate(i, k)
                if j < 0 { break }
                if j >= stops { continue }
                edges.append((candidates.candidateCost(i, k), Int32(min(i, j)), Int32(max(i, j))))
            }
        }
        edges.sort { ($0.cost, $0.low, $0.high) < ($1.cost, $1.low, $1.high) }

        var fragments = DisjointSets(count: stops)
        var links = [Int32](repeating: -1, count: 2 * stops)  // two neighbours per stop
        func degree(_ node: Int) -> Int { links[2 * node] < 0 ? 0 : (links[2 * node + 1] < 0 ? 1 : 2) }
        func capacity(_ node: Int) -> Int { node == start || node == end ? 1 : 2 }
        func link(_ a: Int, _ b: Int) {
            links[2 * a + degree(a)] = Int32(b)
            links[2 * b + degree(b)] = Int32(a)
        }
        for edge in edges {
            let a = Int(edge.low), b = Int(edge.high)
            guard degree(a) < capacity(a), degree(b) < capacity(b) else { continue }
            let rootA = fragments.find(a), rootB = fragments.find(b)
            if rootA == rootB { continue }
            if start >= 0, end >= 0 {
                let startRoot = fragments.find(start), endRoot = fragments.find(end)
                if (rootA == startRoot && rootB == endRoot) || (rootA == endRoot && rootB == startRoot) { continue }
            }
            fragments.union(rootA, rootB)
            link(a, b)
        }

        /// Walks a fragment from one of its ends, showing each stop to `visit`; returns the other end.
        func traverse(from first: Int, _ visit: (Int) -> Void) -> Int {
            var previous = -1, current = first
            while true {
                visit(current)
                let a = Int(links[2 * current]), b = Int(links[2 * current + 1])
                let next = a != previous ? a : b
                if next < 0 || next == previous { return current }
                previous = current
                current = next
            }
        }
        // Each fragment by its two ends (a lone stop is both).
        var otherEnd = [Int32](repeating: -1, count: stops)
        var ends: [Int] = []
        for node in 0..<stops where degree(node) < 2 && otherEnd[node] < 0 {
            let last = traverse(from: node) { _ in }
            otherEnd[node] = Int32(last)
            otherEnd[last] = Int32(node)
            ends.append(node)  // one entry per fragment
        }

        let embedding = candidates.tree?.points
        func separation(_ a: Int, _ b: Int) -> Double {
            if let embedding {
                let delta = embedding[a] - embedding[b]
                return (delta * delta).sum()
            }
            return costs.cost(a, b)
        }
        var path: [Int32] = []
        path.reserveCapacity(costs.nodeCount)
        func walk(from first: Int) { _ = traverse(from: first) { path.append(Int32($0)) } }
        let endFragment = end >= 0 ? fragments.find(end) : -1
        var remaining = ends  // fragments not yet on the path, by one end
        func take(_ index: Int) {
            remaining.swapAt(index, remaining.count - 1)
            remaining.removeLast()
        }
        var firstEnd = start >= 0 ? start : -1
        if firstEnd < 0 {
            firstEnd = remaining.first { fragments.find($0) != endFragment } ?? Int(otherEnd[end])
        }
        take(remaining.firstIndex { fragments.find($0) == fragments.find(firstEnd) }!)
        walk(from: firstEnd)
        while !remaining.isEmpty {
            let tail = Int(path[path.count - 1])
            var best = -1, bestEnd = -1, bestSeparation = Double.infinity
            for (index, end1) in remaining.enumerated() {
                let root = fragments.find(end1)
                let isLastFragment = root == endFragment
                if isLastFragment && remaining.count > 1 { continue }
                let end2 = Int(otherEnd[end1])
                func consider(_ candidateEnd: Int) {
                    // The fixed end's fragment is entered at its other end, to finish at it.
                    if isLastFragment && candidateEnd == end && end1 != end2 { return }
                    let value = separation(tail, candidateEnd)
                    if value < bestSeparation {
                        bestSeparation = value
                        best = index
                        bestEnd = candidateEnd
                    }
                }
                consider(end1)
                if end2 != end1 { consider(end2) }
            }
            take(best)
            walk(from: bestEnd)
        }
        return costs.virtualNode >= 0 ? [Int32(costs.virtualNode)] + path : path
    }
}

/// Union–find with path halving and union by size.
struct DisjointSets {
    private var parent: [Int32]
    private var size: [Int32]

    init(count: Int) {
        parent = (0..<count).map(Int32.init)
        size = [Int32](repeating: 1, count: count)
    }

    mutating func find(_ node: Int) -> Int {
        var node = node
        while Int(parent[node]) != node {
            parent[node] = parent[Int(parent[node])]
            node = Int(parent[node])
        }
        return node
    }

    /// Joins two roots.
    mutating func union(_ a: Int, _ b: Int) {
        let (large, small) = size[a] >= size[b] ? (a, b) : (b, a)
        parent[small] = Int32(large)
        size[large] += size[small]
    }
}
