import GeoCore

/// Local search for asymmetric costs, where reversing a stretch of the tour changes its cost:
/// only moves that keep every stretch's direction. The sequential 3-opt "segment swap"
/// (a→b…c→d…e→f becomes a→d…e→b…c→f) over outgoing candidate lists, and Or-opt insertions of
/// 1–3 nodes; kicked by the shared ``KickedLocalSearch/kick(random:)`` (a random segment swap).
final class DirectedSearch: KickedLocalSearch {
    let costs: TourCosts
    let candidates: CandidateLists
    let state: TourState
    let name = "or-3opt ils"
    private let epsilon: Double

    init(costs: TourCosts, candidates: CandidateLists, initialTour: [Int32]) {
        self.costs = costs
        self.candidates = candidates
        state = TourState(initialTour, costs: costs)
        epsilon = costs.minimumGain
    }

    @inline(__always) private func next(_ node: Int) -> Int { state.next(node) }
    @inline(__always) private func previous(_ node: Int) -> Int { state.previous(node) }
    @inline(__always) private func distance(from: Int, to: Int) -> Int { state.distance(from: from, to: to) }
    @inline(__always) private func push(_ node: Int) { state.push(node) }

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
                    state.swapStretches(b: b, c: c, d: d, e: e)
                    state.length -= gain
                    push(a)
                    push(b)
                    push(c)
                    push(d)
                    push(e)
                    push(f)
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
                    state.swapStretches(b: s1, c: s2, d: after, e: x)
                    state.length -= gain
                    push(a)
                    push(s1)
                    push(s2)
                    push(after)
                    push(x)
                    push(y)
                    return true
                }
            }
        }
        return false
    }

    func improve() {
        while let a = state.pop() {
            if trySegmentSwap(a) || tryInsertion(a) { push(a) }
        }
    }
}
