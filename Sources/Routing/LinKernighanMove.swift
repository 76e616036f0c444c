/// The Lin–Kernighan move for symmetric costs, with sequential 3-opt moves as its steps (the
/// scheme of Helsgaun's LKH with 3-opt basic moves).
///
/// From a base node t1 and its tour neighbour t2, the edge t1–t2 is taken out. One step looks,
/// without touching the tour, at every t3 among t2's candidates, both tour neighbours t4 of t3,
/// every t5 among t4's candidates and the tour neighbours t6 of t5 that give a tour when closed
/// with t6–t1: the sequential 2- and 3-opt moves, including the segment moves (Or-opt) that no
/// chain of 2-opt flips passes through. The first move whose closed tour is shorter is made and
/// the search ends; when there is none, the step makes the one with the largest running gain
/// (edges removed minus edges added, the closing edge aside) and the chain goes on from t6, up
/// to ``maximumSteps`` steps, while that gain stays positive. A chain that ends without
/// improving is undone.
///
/// Evaluating a step's moves costs no tour changes, only position arithmetic (``between``); the
/// tour changes once per step (at most three 2-opt flips). An edge the chain added is never
/// taken out again by it, and fixed edges (the ends of an open path) are never taken out.
final class LinKernighanMove {
    let costs: TourCosts
    let candidates: CandidateLists
    let state: TourState
    /// The most steps (3-opt moves) in one chain.
    /// (Measured: 10 beats 6 and 15 over TSPLIB and clustered instances at 100–150 ms.)
    let maximumSteps = 10
    private let epsilon: Double
    /// The flips made so far in this chain, four nodes each (``TourState/exchange(_:_:_:_:)``).
    private let flips: UnsafeMutableBufferPointer<Int32>
    private var flipCount = 0
    /// The edges the chain added (two nodes each), which it may not take out again.
    private let added: UnsafeMutableBufferPointer<Int32>
    private var addedCount = 0
    /// Per node, the chain (``chainStamp``) in which an edge at it was last added: most nodes
    /// were not, and need no look at ``added``.
    private let addedStamp: UnsafeMutableBufferPointer<UInt32>
    private var chainStamp: UInt32 = 0
    /// Whether the current step sees the tour in the array's order (t2 after t1).
    private var forward = true

    init(costs: TourCosts, candidates: CandidateLists, state: TourState) {
        self.costs = costs
        self.candidates = candidates
        self.state = state
        epsilon = costs.minimumGain
        flips = .allocate(capacity: 4 * 3 * maximumSteps)
        added = .allocate(capacity: 2 * 2 * maximumSteps)
        addedStamp = .allocate(capacity: state.nodeCount)
        addedStamp.initialize(repeating: 0)
    }

    deinit {
        flips.deallocate()
        added.deallocate()
        addedStamp.deallocate()
    }

    /// Looks for an improving chain from `t1`, on either side of it. When one is found the tour
    /// is left improved, its length updated and the nodes at the changed edges queued.
    func improve(from t1: Int) -> Bool {
        for direction in 0..<2 {
            var t2 = state.step(t1, forward: direction == 0)
            if costs.isFixed(t1, t2) { continue }
            flipCount = 0
            addedCount = 0
            chainStamp &+= 1
            if chainStamp == 0 {
                addedStamp.update(repeating: 0)
                chainStamp = 1
            }
            var gain = costs.cost(t1, t2)
            var steps = 0
            while true {
                steps += 1
                switch step(t1: t1, t2: t2, gain: gain, last: steps >= maximumSteps) {
                case .improved(let closedGain):
                    state.length -= closedGain
                    for slot in 0..<(4 * flipCount) { state.push(Int(flips[slot])) }
                    return true
                case .extended(let t6, let runningGain):
                    t2 = t6
                    gain = runningGain
                    continue
                case .stuck:
                    while flipCount > 0 { undoLastFlip() }
                }
                break
            }
        }
        return false
    }

    private enum StepOutcome {
        /// A shorter tour was made; the chain's total gain.
        case improved(Double)
        /// The best non-improving move was made; the chain goes on with t6 as its new t2.
        case extended(t6: Int, gain: Double)
        case stuck
    }

    /// One step from the tour with t1–t2 still in it and `gain` the chain's gain counting t1–t2
    /// as removed.
    private func step(t1: Int, t2: Int, gain g0: Double, last: Bool) -> StepOutcome {
        forward = state.next(t1) == t2
        var bestGain = -Double.infinity
        var best3 = -1, best4 = -1, best5 = -1, best6 = -1, bestMove = Move.twoOpt
        for k in 0..<candidates.perNode {
            let t3 = candidates.candidate(t2, k)
            if t3 < 0 { break }
            let g1 = g0 - candidates.candidateCost(t2, k)
            if g1 <= epsilon { break }
            if t3 == t1 || t3 == succ(t2) || t3 == pred(t2) { continue }
            for x4 in 1...2 {
                // x4 = 1: t4 before t3, so t1–t4 closes a 2-opt move; x4 = 2: t4 after t3.
                let t4 = x4 == 1 ? pred(t3) : succ(t3)
                if t4 == t1 || costs.isFixed(t3, t4) || wasAdded(t3, t4) { continue }
                let g2 = g1 + costs.cost(t3, t4)
                if x4 == 1 && t4 != t2 {
                    let closed = g2 - costs.cost(t4, t1)
                    if closed > epsilon {
                        makeMove(.twoOpt, t1, t2, t3, t4, 0, 0)
                        return .improved(closed)
                    }
                }
                let t4Next = succ(t4), t4Previous = pred(t4)
                for l in 0..<candidates.perNode {
                    let t5 = candidates.candidate(t4, l)
                    if t5 < 0 { break }
                    let g3 = g2 - candidates.candidateCost(t4, l)
                    if g3 <= epsilon { break }
                    if t5 == t4Next || t5 == t4Previous || t5 == t1 { continue }
                    // With t4 before t3, t6 is the neighbour of t5 that the flip of t2…t4 leaves
                    // on t1's side; with t4 after t3, t5 must lie within t2…t3, and then either
                    // neighbour reconnects.
                    if x4 == 2 && !between(t2, t5, t3) { continue }
                    let t5InFlip = x4 == 1 && between(t2, t5, t4)
                    for option in 0..<x4 {
                        let move: Move = x4 == 1 ? .twoFlips : (option == 0 ? .segmentSwap : .twoReversals)
                        let t6 = t5InFlip || move == .segmentSwap ? succ(t5) : pred(t5)
                        if t6 == t1 || t6 == t3 && move != .segmentSwap || t6 == t4 { continue }
                        if move == .twoReversals && (t5 == t2 || t6 == t2) { continue }
                        if costs.isFixed(t5, t6) || wasAdded(t5, t6) { continue }
                        let g4 = g3 + costs.cost(t5, t6)
                        let closed = g4 - costs.cost(t6, t1)
                        if closed > epsilon {
                            makeMove(move, t1, t2, t3, t4, t5, t6)
                            return .improved(closed)
                        }
                        if !last && g4 > bestGain {
                            bestGain = g4
                            best3 = t3
                            best4 = t4
                            best5 = t5
                            best6 = t6
                            bestMove = move
                        }
                    }
                }
            }
        }
        guard best6 >= 0, bestGain > epsilon else { return .stuck }
        makeMove(bestMove, t1, t2, best3, best4, best5, best6)
        return .extended(t6: best6, gain: bestGain)
    }

    /// The kinds of sequential move a step makes, in the step's orientation (t2 after t1).
    private enum Move {
        /// t4 before t3: takes out t1–t2 and t3–t4.
        case twoOpt
        /// t4 before t3, then t5–t6 taken out too: two 2-opt flips.
        case twoFlips
        /// t4 after t3, t6 after t5: the segments t2…t5 and t6…t3 trade places.
        case segmentSwap
        /// t4 after t3, t6 before t5: t2…t6 and t5…t3 are each reversed in place.
        case twoReversals
    }

    /// Makes a sequential move that takes out t1–t2, t3–t4 (and t5–t6) and puts in t2–t3 (and
    /// t4–t5), leaving t1 beside t4 (or t6) for the chain to close or go on from.
    private func makeMove(_ move: Move, _ t1: Int, _ t2: Int, _ t3: Int, _ t4: Int, _ t5: Int, _ t6: Int) {
        switch move {
        case .twoOpt:
            flip(t1, t2, t4, t3)
        case .twoFlips:
            flip(t1, t2, t4, t3)  // t1–t4, t2–t3
            flip(t1, t4, t6, t5)  // t1–t6, t4–t5
        case .segmentSwap:
            flip(t1, t2, t3, t4)  // t1–t3, t2–t4: t1 t3…t6 t5…t2 t4
            flip(t1, t3, t6, t5)  // t1–t6, t3–t5: t1 t6…t3 t5…t2 t4
            flip(t3, t5, t2, t4)  // t3–t2, t5–t4: t1 t6…t3 t2…t5 t4
        case .twoReversals:
            flip(t1, t2, t6, t5)  // t1–t6, t2–t5: t1 t6…t2 t5…t3 t4
            flip(t2, t5, t3, t4)  // t2–t3, t5–t4: t1 t6…t2 t3…t5 t4
        }
        markAdded(t2, t3)
        if move != .twoOpt { markAdded(t4, t5) }
    }

    // MARK: Tour in the step's orientation

    @inline(__always) private func succ(_ node: Int) -> Int { state.step(node, forward: forward) }
    @inline(__always) private func pred(_ node: Int) -> Int { state.step(node, forward: !forward) }

    /// Whether going from `a` in the step's orientation reaches `b` no later than `c`.
    @inline(__always) private func between(_ a: Int, _ b: Int, _ c: Int) -> Bool {
        forward
            ? state.distance(from: a, to: b) <= state.distance(from: a, to: c)
            : state.distance(from: b, to: a) <= state.distance(from: c, to: a)
    }

    // MARK: Chain bookkeeping

    private func markAdded(_ a: Int, _ b: Int) {
        added[2 * addedCount] = Int32(a)
        added[2 * addedCount + 1] = Int32(b)
        addedCount += 1
        addedStamp[a] = chainStamp
        addedStamp[b] = chainStamp
    }

    private func wasAdded(_ a: Int, _ b: Int) -> Bool {
        if addedStamp[a] != chainStamp || addedStamp[b] != chainStamp { return false }
        let a = Int32(a), b = Int32(b)
        var slot = 0
        while slot < 2 * addedCount {
            let x = added[slot], y = added[slot + 1]
            if (x == a && y == b) || (x == b && y == a) { return true }
            slot += 2
        }
        return false
    }

    /// Takes out a–b and c–d, puts in a–c and b–d (b follows a as d follows c), and logs it.
    private func flip(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        state.exchange(a, b, c, d)
        let slot = 4 * flipCount
        flips[slot] = Int32(a)
        flips[slot + 1] = Int32(b)
        flips[slot + 2] = Int32(c)
        flips[slot + 3] = Int32(d)
        flipCount += 1
    }

    /// Undoes the last flip: exchange(a, b, c, d) made a–c and b–d, with c after a as d after b.
    private func undoLastFlip() {
        flipCount -= 1
        let slot = 4 * flipCount
        state.exchange(Int(flips[slot]), Int(flips[slot + 2]), Int(flips[slot + 1]), Int(flips[slot + 3]))
    }
}
