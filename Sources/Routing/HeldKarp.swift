/// Held–Karp dynamic programming (M. Held and R. M. Karp, "A dynamic programming approach to
/// sequencing problems", J. SIAM 10(1), 1962) over the stops themselves, for every shape and for
/// asymmetric costs: the proven optimum in O(2ⁿ·n²) time and O(2ⁿ·n) memory, so it is used only
/// up to ``maximumStops``.
enum HeldKarp {
    /// 2¹⁶ subsets × 16 ends × 8 bytes = 8 MB at most.
    static let maximumStops = 17

    /// The optimal order of the stops and its length (which includes penalties for forbidden
    /// edges, if it has to use one).
    static func solve(_ costs: TourCosts, shape: RouteShape) -> (order: [Int], length: Double) {
        let n = costs.stopCount
        precondition(n >= 2 && n <= maximumStops, "Held–Karp is for 2 to \(maximumStops) stops")
        // Rows of the stops; an open path's virtual node (the last row and column) is not used.
        let matrix = costs.denseMatrix()
        let stride = costs.nodeCount
        let start: Int?, end: Int?, closed: Bool
        switch shape {
        case .closed(let first): (start, end, closed) = (first ?? 0, nil, true)
        case .open(let first, let last): (start, end, closed) = (first, last, false)
        }
        // The stops the subsets range over: all but a fixed start.
        let others = (0..<n).filter { $0 != start }
        let m = others.count
        let full = (1 << m) - 1
        var table = [Double](repeating: .infinity, count: (1 << m) * m)
        for k in 0..<m {
            table[(1 << k) * m + k] = start.map { matrix[$0 * stride + others[k]] } ?? 0
        }
        if m > 1 {
            for mask in 1...full {
                for k in 0..<m where mask & (1 << k) != 0 {
                    let here = table[mask * m + k]
                    if here == .infinity { continue }
                    let from = others[k]
                    var rest = full & ~mask
                    while rest != 0 {
                        let l = rest.trailingZeroBitCount
                        rest &= rest - 1
                        let candidate = here + matrix[from * stride + others[l]]
                        let slot = (mask | (1 << l)) * m + l
                        if candidate < table[slot] { table[slot] = candidate }
                    }
                }
            }
        }
        // The best last stop.
        var last = -1
        var best = Double.infinity
        for k in 0..<m {
            if let end, others[k] != end { continue }
            let total = table[full * m + k] + (closed ? matrix[others[k] * stride + start!] : 0)
            if total < best {
                best = total
                last = k
            }
        }
        // Walk back: the predecessor whose entry plus the edge gives exactly this entry.
        var order = [others[last]]
        var mask = full, k = last
        while mask != (1 << k) {
            let value = table[mask * m + k]
            let previousMask = mask & ~(1 << k)
            var found = -1
            for l in 0..<m where previousMask & (1 << l) != 0 {
                if table[previousMask * m + l] + matrix[others[l] * stride + others[k]] == value {
                    found = l
                    break
                }
            }
            order.append(others[found])
            mask = previousMask
            k = found
        }
        if let start { order.append(start) }
        order.reverse()
        return (order, best)
    }
}
