import GeoCore

/// Local search for symmetric costs: 2-opt or Lin–Kernighan chains (``LinKernighanMove``) and
/// Or-opt moves over candidate lists, driven by a queue of
/// nodes to look at (don't-look bits); kicked by swapping two adjacent stretches of up to 100
/// stops (a double bridge within a stretch of the tour) in
/// ``KickedLocalSearch/iterate(deadline:maximumKicks:random:)``.
///
/// A 2-opt move reverses whichever side of the tour is shorter. Every move is written as edge
/// exchanges (``TourState/exchange(_:_:_:_:)``), which do not depend on the array's direction.
final class SymmetricSearch: KickedLocalSearch {
    let costs: TourCosts
    let candidates: CandidateLists
    let state: TourState
    let name: String
    private let epsilon: Double
    private let linKernighan: LinKernighanMove?

    /// - Parameter deepMoves: whether to look for Lin–Kernighan chains, or only 2-opt moves
    ///   (with Or-opt either way). Chains find much shorter tours per kick but cost more per
    ///   kick; 2-opt is the better choice before a proof, which finishes the job anyway.
    init(costs: TourCosts, candidates: CandidateLists, initialTour: [Int32], deepMoves: Bool) {
        self.costs = costs
        self.candidates = candidates
        state = TourState(initialTour, costs: costs)
        epsilon = costs.minimumGain
        linKernighan = deepMoves ? LinKernighanMove(costs: costs, candidates: candidates, state: state) : nil
        name = deepMoves ? "lin-kernighan (3-opt steps)+or-opt ils" : "2-opt+or-opt ils"
    }

    // MARK: - Moves

    private func tryTwoOpt(_ a: Int) -> Bool {
        for direction in 0..<2 {
            let forward = direction == 0
            let b = state.step(a, forward: forward)
            if costs.isFixed(a, b) { continue }
            let removed = costs.cost(a, b)
            for k in 0..<candidates.perNode {
                let c = candidates.candidate(a, k)
                if c < 0 { break }
                let firstGain = removed - candidates.candidateCost(a, k)
                if firstGain <= epsilon { break }
                let d = state.step(c, forward: forward)
                if c == b || d == a || costs.isFixed(c, d) { continue }
                let gain = firstGain + costs.cost(c, d) - costs.cost(b, d)
                if gain > epsilon {
                    state.exchange(a, b, c, d)
                    state.length -= gain
                    state.push(a)
                    state.push(b)
                    state.push(c)
                    state.push(d)
                    return true
                }
            }
        }
        return false
    }

    /// Moves the segment of 1–3 nodes that starts at `a` between two neighbouring nodes, one of
    /// them a candidate of `a`, in whichever orientation puts `a` next to that candidate.
    private func tryOrOpt(_ a: Int) -> Bool {
        guard state.nodeCount >= 8 else { return false }
        for direction in 0..<2 {
            let forward = direction == 0
            var segmentEnd = a
            let before = state.step(a, forward: !forward)
            for segmentLength in 1...3 {
                if segmentLength > 1 { segmentEnd = state.step(segmentEnd, forward: forward) }
                let after = state.step(segmentEnd, forward: forward)
                if segmentEnd == before || after == a || after == before { break }
                if costs.isFixed(before, a) || costs.isFixed(segmentEnd, after) { continue }
                let removalGain = costs.cost(before, a) + costs.cost(segmentEnd, after) - costs.cost(before, after)
                if removalGain <= epsilon { continue }
                for k in 0..<candidates.perNode {
                    let c = candidates.candidate(a, k)
                    if c < 0 { break }
                    let addA = candidates.candidateCost(a, k)
                    if addA >= removalGain - epsilon { break }
                    if c == before || c == after || inSegment(c, from: a, length: segmentLength, forward: forward) { continue }
                    for otherDirection in 0..<2 {
                        let dForward = otherDirection == 0
                        let d = state.step(c, forward: dForward)
                        if d == before || d == after || inSegment(d, from: a, length: segmentLength, forward: forward) { continue }
                        if costs.isFixed(c, d) { continue }
                        let gain = removalGain + costs.cost(c, d) - addA - costs.cost(segmentEnd, d)
                        if gain > epsilon {
                            moveSegment(
                                first: a, last: segmentEnd, before: before, after: after,
                                next: c, other: d, otherFollows: dForward == forward)
                            state.length -= gain
                            state.push(a)
                            state.push(segmentEnd)
                            state.push(before)
                            state.push(after)
                            state.push(c)
                            state.push(d)
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
            current = state.step(current, forward: forward)
        }
        return false
    }

    /// Segment `first…last` between `before` and `after` moves to lie between `next` and
    /// `other`, with `first` beside `next`.
    private func moveSegment(
        first s1: Int, last s2: Int, before p: Int, after n: Int,
        next c: Int, other d: Int, otherFollows: Bool
    ) {
        // In the segment's direction the target edge runs x → y.
        let (x, y) = otherFollows ? (c, d) : (d, c)
        state.exchange(p, s1, x, y)  // p–x, s1–y:   p x … n s2…s1 y
        state.exchange(p, x, n, s2)  // p–n, x–s2:   p n … x s2…s1 y
        if otherFollows {
            state.exchange(x, s2, s1, y)  // x–s1, s2–y:  p n … x s1…s2 y
        }
    }

    func improve() {
        if let linKernighan {
            while let a = state.pop() {
                if linKernighan.improve(from: a) || tryOrOpt(a) { state.push(a) }
            }
        } else {
            while let a = state.pop() {
                if tryTwoOpt(a) || tryOrOpt(a) { state.push(a) }
            }
        }
    }
}
