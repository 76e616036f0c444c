/// Starting tours for local search.
enum InitialTour {
    /// Nearest neighbour from the fixed start (or stop 0), over candidate lists first and then
    /// the nearest unvisited stop by position (or by a scan for a matrix), keeping a fixed end for
    /// last. With a virtual node the tour is [virtual, start, …, end].
    static func nearestNeighbour(_ costs: TourCosts, candidates: CandidateLists) -> [Int32] {
        let stops = costs.stopCount
        var visited = [Bool](repeating: false, count: stops)
        var unvisited = Array(0..<stops)            // swap-remove list for the scans
        var slot = Array(0..<stops)
        func markVisited(_ node: Int) {
            visited[node] = true
            let at = slot[node], last = unvisited.removeLast()
            if last != node { unvisited[at] = last; slot[last] = at }
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
                if c >= 0, c < stops, !visited[c] { next = c; break }
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
                    if value < best || next < 0 { best = value; next = c }
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
