import GeoCore

/// Local search for symmetric costs: 2-opt and Or-opt moves over candidate lists with a queue of
/// nodes to look at (don't-look bits), then iterated local search: a random segment swap (a
/// double bridge within a short stretch of the tour) followed by local repair, kept when it does
/// not lengthen the tour.
///
/// The tour is an array with each node's position; a 2-opt move reverses whichever side of the
/// tour is shorter. Every move is expressed as edge exchanges (``exchange(_:_:_:_:)``), which do
/// not depend on the array's direction.
final class SymmetricSearch {
    let costs: TourCosts
    let candidates: CandidateLists
    let nodeCount: Int
    private(set) var tour: [Int32]
    private var position: [Int32]
    private(set) var length: Double
    private var queue: [Int32]
    private var queueHead = 0
    private var queued: [Bool]
    private let epsilon: Double

    init(costs: TourCosts, candidates: CandidateLists, initialTour: [Int32]) {
        self.costs = costs
        self.candidates = candidates
        nodeCount = initialTour.count
        tour = initialTour
        position = [Int32](repeating: 0, count: initialTour.count)
        for (at, node) in initialTour.enumerated() { position[Int(node)] = Int32(at) }
        length = 0
        queue = []
        queued = [Bool](repeating: false, count: initialTour.count)
        epsilon = costs.isIntegral ? 0.5 : 1e-9
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

    @inline(__always) private func step(_ node: Int, forward: Bool) -> Int {
        forward ? next(node) : previous(node)
    }

    private func push(_ node: Int) {
        if !queued[node] {
            queued[node] = true
            queue.append(Int32(node))
        }
    }

    /// Reverses the path from `from` forward to `to`, or equivalently the rest of the tour,
    /// whichever is shorter.
    private func reversePath(from: Int, to: Int) {
        var i = Int(position[from]), j = Int(position[to])
        var inner = j - i
        if inner < 0 { inner += nodeCount }
        if (inner + 1) * 2 > nodeCount {
            i = j + 1 == nodeCount ? 0 : j + 1
            j = Int(position[from]) == 0 ? nodeCount - 1 : Int(position[from]) - 1
            inner = nodeCount - inner - 2
        }
        var swaps = (inner + 1) / 2
        while swaps > 0 {
            let a = tour[i], b = tour[j]
            tour[i] = b; position[Int(b)] = Int32(i)
            tour[j] = a; position[Int(a)] = Int32(j)
            i = i + 1 == nodeCount ? 0 : i + 1
            j = j == 0 ? nodeCount - 1 : j - 1
            swaps -= 1
        }
    }

    /// Replaces tour edges {a,b} and {c,d} with {a,c} and {b,d}; `b` follows `a` in the same
    /// direction as `d` follows `c`.
    private func exchange(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        if next(a) == b {
            reversePath(from: b, to: c)
        } else {
            reversePath(from: a, to: d)
        }
    }

    // MARK: - Moves

    private func tryTwoOpt(_ a: Int) -> Bool {
        for direction in 0..<2 {
            let forward = direction == 0
            let b = step(a, forward: forward)
            if costs.isFixed(a, b) { continue }
            let removed = costs.cost(a, b)
            for k in 0..<candidates.perNode {
                let c = candidates.candidate(a, k)
                if c < 0 { break }
                let firstGain = removed - costs.cost(a, c)
                if firstGain <= epsilon { break }
                let d = step(c, forward: forward)
                if c == b || d == a || costs.isFixed(c, d) { continue }
                let gain = firstGain + costs.cost(c, d) - costs.cost(b, d)
                if gain > epsilon {
                    exchange(a, b, c, d)
                    length -= gain
                    push(a); push(b); push(c); push(d)
                    return true
                }
            }
        }
        return false
    }

    /// Moves the segment of 1–3 nodes that starts at `a` between two neighbouring nodes, one of
    /// them a candidate of `a`, in whichever orientation puts `a` next to that candidate.
    private func tryOrOpt(_ a: Int) -> Bool {
        guard nodeCount >= 8 else { return false }
        for direction in 0..<2 {
            let forward = direction == 0
            var segmentEnd = a
            for segmentLength in 1...3 {
                if segmentLength > 1 { segmentEnd = step(segmentEnd, forward: forward) }
                let before = step(a, forward: !forward)
                let after = step(segmentEnd, forward: forward)
                if segmentEnd == before || after == a || after == before { break }
                if costs.isFixed(before, a) || costs.isFixed(segmentEnd, after) { continue }
                let removalGain = costs.cost(before, a) + costs.cost(segmentEnd, after) - costs.cost(before, after)
                if removalGain <= epsilon { continue }
                for k in 0..<candidates.perNode {
                    let c = candidates.candidate(a, k)
                    if c < 0 { break }
                    let addA = costs.cost(c, a)
                    if addA >= removalGain - epsilon { break }
                    if c == before || c == after || inSegment(c, from: a, length: segmentLength, forward: forward) { continue }
                    for otherDirection in 0..<2 {
                        let dForward = otherDirection == 0
                        let d = step(c, forward: dForward)
                        if d == before || d == after || inSegment(d, from: a, length: segmentLength, forward: forward) { continue }
                        if costs.isFixed(c, d) { continue }
                        let gain = removalGain + costs.cost(c, d) - addA - costs.cost(segmentEnd, d)
                        if gain > epsilon {
                            moveSegment(first: a, last: segmentEnd, forward: forward,
                                        before: before, after: after, next: c, other: d, otherFollows: dForward == forward)
                            length -= gain
                            push(a); push(segmentEnd); push(before); push(after); push(c); push(d)
                            return true
                        }
                    }
                }
            }
        }
        return false
    }

    @inline(__always)
    private func inSegment(_ node: Int, from first: Int, length: Int, forward: Bool) -> Bool {
        var current = first
        for _ in 0..<length {
            if current == node { return true }
            current = step(current, forward: forward)
        }
        return false
    }

    /// Segment `first…last` (running in direction `forward`) between `before` and `after` moves
    /// to lie between `next` and `other`, with `first` beside `next`.
    private func moveSegment(first s1: Int, last s2: Int, forward: Bool, before p: Int, after n: Int,
                             next c: Int, other d: Int, otherFollows: Bool) {
        // In the segment's direction the target edge runs x → y.
        let (x, y) = otherFollows ? (c, d) : (d, c)
        exchange(p, s1, x, y)        // p–x, s1–y:   p x … n s2…s1 y
        exchange(p, x, n, s2)        // p–n, x–s2:   p n … x s2…s1 y
        if otherFollows {
            exchange(x, s2, s1, y)   // x–s1, s2–y:  p n … x s1…s2 y
        }
    }

    /// Applies improving moves until none is left among the queued nodes.
    func improve() {
        while queueHead < queue.count {
            let a = Int(queue[queueHead])
            queueHead += 1
            queued[a] = false
            if tryTwoOpt(a) || tryOrOpt(a) { push(a) }
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

    // MARK: - Iterated local search

    /// Kicks and repairs until the deadline, `maximumKicks`, or cancellation; keeps the best tour.
    /// - Returns: the number of kicks made.
    @discardableResult
    func iterate(deadline: ContinuousClock.Instant, maximumKicks: Int, random: inout SplitMix64) -> Int {
        guard nodeCount >= 8 else { return 0 }
        var savedTour = tour, savedPosition = position, savedLength = length
        var kicks = 0
        while kicks < maximumKicks {
            if kicks & 15 == 0, ContinuousClock.now >= deadline || Task.isCancelled { break }
            kicks += 1
            guard segmentSwap(random: &random) else { continue }
            improve()
            if length <= savedLength + (costs.isIntegral ? 0 : 1e-12 * savedLength) {
                // Not longer: keep it (sideways moves help the search wander).
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

    /// Swaps two adjacent random stretches of the tour (A B → B A), within a window of up to
    /// 100 positions, and queues the six nodes at the changed edges.
    private func segmentSwap(random: inout SplitMix64) -> Bool {
        let maxPiece = max(1, min(50, (nodeCount - 2) / 2))
        let firstLength = 1 + Int(random.next() % UInt64(maxPiece))
        let secondLength = 1 + Int(random.next() % UInt64(maxPiece))
        let start = Int(random.next() % UInt64(nodeCount))
        @inline(__always) func at(_ offset: Int) -> Int { Int(tour[(start + offset) % nodeCount]) }
        let p = at(0), a1 = at(1), a2 = at(firstLength), b1 = at(firstLength + 1)
        let b2 = at(firstLength + secondLength), q = at(firstLength + secondLength + 1)
        if costs.isFixed(p, a1) || costs.isFixed(a2, b1) || costs.isFixed(b2, q) { return false }
        let gain = costs.cost(p, a1) + costs.cost(a2, b1) + costs.cost(b2, q)
            - costs.cost(p, b1) - costs.cost(b2, a1) - costs.cost(a2, q)
        var pieces = [Int32]()
        pieces.reserveCapacity(firstLength + secondLength)
        for offset in 0..<secondLength { pieces.append(Int32(at(firstLength + 1 + offset))) }
        for offset in 0..<firstLength { pieces.append(Int32(at(1 + offset))) }
        for (offset, node) in pieces.enumerated() {
            let slot = (start + 1 + offset) % nodeCount
            tour[slot] = node
            position[Int(node)] = Int32(slot)
        }
        length -= gain
        push(p); push(a1); push(a2); push(b1); push(b2); push(q)
        return true
    }
}
