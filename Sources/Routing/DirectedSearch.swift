import GeoCore

/// Local search for asymmetric costs, where reversing a stretch of the tour changes its cost:
/// only moves that keep every stretch's direction. The move is the sequential 3-opt "segment
/// swap" (a→b…c→d…e→f becomes a→d…e→b…c→f) over outgoing candidate lists, which includes
/// Or-opt; iterated with random short segment swaps as kicks.
final class DirectedSearch {
    let costs: TourCosts
    let candidates: CandidateLists
    let nodeCount: Int
    private(set) var tour: [Int32]
    private var position: [Int32]
    private(set) var length: Double
    private var queue: [Int32] = []
    private var queueHead = 0
    private var queued: [Bool]
    private var scratch: [Int32] = []
    private let epsilon: Double

    init(costs: TourCosts, candidates: CandidateLists, initialTour: [Int32]) {
        self.costs = costs
        self.candidates = candidates
        nodeCount = initialTour.count
        tour = initialTour
        position = [Int32](repeating: 0, count: initialTour.count)
        for (at, node) in initialTour.enumerated() { position[Int(node)] = Int32(at) }
        queued = [Bool](repeating: false, count: initialTour.count)
        epsilon = costs.isIntegral ? 0.5 : 1e-9
        length = 0
        length = currentLength()
    }

    func currentLength() -> Double {
        var total = 0.0
        for at in 0..<nodeCount { total += costs.cost(Int(tour[at]), Int(tour[at + 1 == nodeCount ? 0 : at + 1])) }
        return total
    }

    @inline(__always) private func next(_ node: Int) -> Int {
        let at = Int(position[node]) + 1
        return Int(tour[at == nodeCount ? 0 : at])
    }

    @inline(__always) private func previous(_ node: Int) -> Int {
        let at = Int(position[node])
        return Int(tour[at == 0 ? nodeCount - 1 : at - 1])
    }

    /// Steps forward from `from` to `to`.
    @inline(__always) private func distance(from: Int, to: Int) -> Int {
        let steps = Int(position[to]) - Int(position[from])
        return steps < 0 ? steps + nodeCount : steps
    }

    private func push(_ node: Int) {
        if !queued[node] {
            queued[node] = true
            queue.append(Int32(node))
        }
    }

    /// Rewrites the tour S0 S1 S2 (S1 = b…c, S2 = d…e, S0 the rest) as S0 S2 S1, moving the two
    /// shortest of the three stretches.
    private func swapStretches(b: Int, c: Int, d: Int, e: Int) {
        let first = distance(from: b, to: c) + 1
        let second = distance(from: d, to: e) + 1
        let rest = nodeCount - first - second
        // S0 S1 S2 ≡ S1 S2 S0 ≡ S2 S0 S1 as cycles; S0 S2 S1 ≡ S1 S0 S2 ≡ S2 S1 S0.
        if first + second <= first + rest && first + second <= second + rest {
            swapAdjacent(at: Int(position[b]), first, second)           // S1 S2 → S2 S1
        } else if first + rest <= second + rest {
            swapAdjacent(at: (Int(position[e]) + 1) % nodeCount, rest, first)  // S0 S1 → S1 S0
        } else {
            swapAdjacent(at: Int(position[d]), second, rest)           // S2 S0 → S0 S2
        }
    }

    /// The `firstLength` nodes from position `start` and the `secondLength` after them trade places.
    private func swapAdjacent(at start: Int, _ firstLength: Int, _ secondLength: Int) {
        scratch.removeAll(keepingCapacity: true)
        for offset in 0..<secondLength { scratch.append(tour[(start + firstLength + offset) % nodeCount]) }
        for offset in 0..<firstLength { scratch.append(tour[(start + offset) % nodeCount]) }
        for (offset, node) in scratch.enumerated() {
            let slot = (start + offset) % nodeCount
            tour[slot] = node
            position[Int(node)] = Int32(slot)
        }
    }

    private func trySegmentSwap(_ a: Int) -> Bool {
        let b = next(a)
        if costs.isFixed(a, b) { return false }
        let ab = costs.cost(a, b)
        for k in 0..<candidates.perNode {
            let d = candidates.candidate(a, k)
            if d < 0 { break }
            let firstGain = ab - costs.cost(a, d)
            if firstGain <= epsilon { break }
            if d == b || d == a { continue }
            let c = previous(d)
            if costs.isFixed(c, d) { continue }
            let cd = costs.cost(c, d)
            let throughD = distance(from: d, to: a)
            for l in 0..<candidates.perNode {
                let f = candidates.candidate(c, l)
                if f < 0 { break }
                let secondGain = firstGain + cd - costs.cost(c, f)
                if secondGain <= epsilon { break }
                // f must lie after d, up to a: a→b…c→d…e→f…
                let fromD = distance(from: d, to: f)
                if f == d || fromD > throughD { continue }
                let e = previous(f)
                if costs.isFixed(e, f) { continue }
                let gain = secondGain + costs.cost(e, f) - costs.cost(e, b)
                if gain > epsilon {
                    swapStretches(b: b, c: c, d: d, e: e)
                    length -= gain
                    push(a); push(b); push(c); push(d); push(e); push(f)
                    return true
                }
            }
        }
        return false
    }

    /// Or-opt: moves the 1–3 nodes after `a` forward between x → y, where y is a candidate of
    /// the segment's last node (no partial-gain pruning, which misses these moves).
    private func tryInsertion(_ a: Int) -> Bool {
        let s1 = next(a)
        if s1 == a || costs.isFixed(a, s1) { return false }
        var s2 = s1
        for segmentLength in 1...3 {
            if segmentLength > 1 { s2 = next(s2) }
            let after = next(s2)
            if s2 == a || after == a { break }
            if costs.isFixed(s2, after) { continue }
            let removed = costs.cost(a, s1) + costs.cost(s2, after) - costs.cost(a, after)
            if removed <= epsilon { continue }
            for k in 0..<candidates.perNode {
                let y = candidates.candidate(s2, k)
                if y < 0 { break }
                let x = previous(y)
                // x → y must lie outside the segment and not be the gap it leaves.
                if y == s1 || y == after || distance(from: s1, to: x) < segmentLength || costs.isFixed(x, y) { continue }
                let gain = removed + costs.cost(x, y) - costs.cost(x, s1) - costs.cost(s2, y)
                if gain > epsilon {
                    swapStretches(b: s1, c: s2, d: after, e: x)
                    length -= gain
                    push(a); push(s1); push(s2); push(after); push(x); push(y)
                    return true
                }
            }
        }
        return false
    }

    func improve() {
        while queueHead < queue.count {
            let a = Int(queue[queueHead])
            queueHead += 1
            queued[a] = false
            if trySegmentSwap(a) || tryInsertion(a) { push(a) }
            if queueHead > 4096 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
        }
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
    }

    func improveAll() {
        for node in tour { push(Int(node)) }
        improve()
    }

    /// Kicks and repairs until the deadline, `maximumKicks` or cancellation; keeps the best tour.
    @discardableResult
    func iterate(deadline: ContinuousClock.Instant, maximumKicks: Int, random: inout SplitMix64) -> Int {
        guard nodeCount >= 8 else { return 0 }
        var savedTour = tour, savedPosition = position, savedLength = length
        var kicks = 0
        while kicks < maximumKicks {
            if kicks & 15 == 0, ContinuousClock.now >= deadline || Task.isCancelled { break }
            kicks += 1
            guard kick(random: &random) else { continue }
            improve()
            if length <= savedLength + (costs.isIntegral ? 0 : 1e-12 * savedLength) {
                savedTour = tour
                savedPosition = position
                savedLength = length
            } else {
                tour = savedTour
                position = savedPosition
                length = savedLength
            }
        }
        tour = savedTour
        position = savedPosition
        length = currentLength()
        return kicks
    }

    /// Swaps two adjacent random stretches of up to 50 nodes each.
    private func kick(random: inout SplitMix64) -> Bool {
        let maxPiece = max(1, min(50, (nodeCount - 2) / 2))
        let firstLength = 1 + Int(random.next() % UInt64(maxPiece))
        let secondLength = 1 + Int(random.next() % UInt64(maxPiece))
        let start = Int(random.next() % UInt64(nodeCount))
        @inline(__always) func at(_ offset: Int) -> Int { Int(tour[(start + offset) % nodeCount]) }
        let a = at(0), b = at(1), c = at(firstLength), d = at(firstLength + 1)
        let e = at(firstLength + secondLength), f = at(firstLength + secondLength + 1)
        if costs.isFixed(a, b) || costs.isFixed(c, d) || costs.isFixed(e, f) { return false }
        let gain = costs.cost(a, b) + costs.cost(c, d) + costs.cost(e, f)
            - costs.cost(a, d) - costs.cost(e, b) - costs.cost(c, f)
        swapAdjacent(at: (start + 1) % nodeCount, firstLength, secondLength)
        length -= gain
        push(a); push(b); push(c); push(d); push(e); push(f)
        return true
    }
}
