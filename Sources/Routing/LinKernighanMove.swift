/// The Lin–Kernighan move for symmetric costs, written as a chain of 2-opt flips (the scheme of
/// Applegate, Cook and Rohe's Chained Lin–Kernighan).
///
/// From a base node t1 and its tour neighbour t2, the edge t1–t2 is taken out; the free end t2
/// is joined to a candidate neighbour t3, and the edge from t3 to t4 (the neighbour of t3 that
/// keeps a tour) is taken out and t4 joined back to t1 — one flip. The chain goes on from t4
/// while the running gain (edges removed minus edges added, the closing edge aside) stays
/// positive, up to ``maximumDepth`` flips, and ends on the shortest tour it passed through; the
/// first levels try several t3 (``breadth``) before giving up. One level is a 2-opt move, two
/// are the sequential 3-opt moves, and so on.
///
/// An edge added by the chain is never taken out again by it, and fixed edges (the ends of an
/// open path) are never taken out.
final class LinKernighanMove {
    let costs: TourCosts
    let candidates: CandidateLists
    let state: TourState
    /// How many t3 are tried at each of the first levels; one beyond.
    let breadth = [5, 3, 2]
    /// The most flips in one move.
    let maximumDepth = 30
    private let epsilon: Double
    /// The flips made so far in this move, four nodes each (``TourState/exchange(_:_:_:_:)``).
    private let flips: UnsafeMutableBufferPointer<Int32>
    private var flipCount = 0
    /// The edges the chain added (two nodes each), which it may not take out again.
    private let added: UnsafeMutableBufferPointer<Int32>
    /// Per node, the move (``moveStamp``) in which an edge at it was last added: most nodes
    /// were not, and need no look at ``added``.
    private let addedStamp: UnsafeMutableBufferPointer<UInt32>
    private var moveStamp: UInt32 = 0
    /// Each level's choices of t3 (and t4), ``maximumBreadth`` slots per level.
    private let choiceNodes: UnsafeMutableBufferPointer<Int32>
    private let choiceGains: UnsafeMutableBufferPointer<Double>
    private let maximumBreadth: Int
    private var bestGain = 0.0
    private var bestFlipCount = 0

    init(costs: TourCosts, candidates: CandidateLists, state: TourState) {
        self.costs = costs
        self.candidates = candidates
        self.state = state
        epsilon = costs.minimumGain
        flips = .allocate(capacity: 4 * maximumDepth)
        added = .allocate(capacity: 2 * maximumDepth)
        addedStamp = .allocate(capacity: state.nodeCount)
        addedStamp.initialize(repeating: 0)
        maximumBreadth = max(1, breadth.max() ?? 1)
        choiceNodes = .allocate(capacity: 2 * maximumBreadth * maximumDepth)
        choiceGains = .allocate(capacity: maximumBreadth * maximumDepth)
    }

    deinit {
        flips.deallocate()
        added.deallocate()
        addedStamp.deallocate()
        choiceNodes.deallocate()
        choiceGains.deallocate()
    }

    /// Looks for an improving chain from `t1`, on either side of it. When one is found the tour
    /// is left improved, its length updated and the nodes at the changed edges queued.
    func improve(from t1: Int) -> Bool {
        for direction in 0..<2 {
            let t2 = state.step(t1, forward: direction == 0)
            if costs.isFixed(t1, t2) { continue }
            flipCount = 0
            moveStamp &+= 1
            if moveStamp == 0 {
                addedStamp.update(repeating: 0)
                moveStamp = 1
            }
            bestGain = epsilon
            bestFlipCount = 0
            if extend(level: 0, t1: t1, t2: t2, gain: costs.cost(t1, t2)) {
                while flipCount > bestFlipCount { undoLastFlip() }
                state.length -= bestGain
                for slot in 0..<(4 * flipCount) { state.push(Int(flips[slot])) }
                return true
            }
        }
        return false
    }

    /// Extends a chain whose tour has the edge t1–t2 to take out next; `gain` is what the chain
    /// has removed minus what it has added, counting t1–t2 as removed. Returns true when the
    /// chain passed through a shorter tour than the one it started from (``bestGain``), with
    /// the flips up to it still applied.
    private func extend(level: Int, t1: Int, t2: Int, gain: Double) -> Bool {
        let forward = state.next(t1) == t2
        let width = level < breadth.count ? breadth[level] : 1
        // The best `width` choices of t3 by the gain after taking out t3–t4, best first, in
        // this level's slots of the choice buffer.
        let base = level * maximumBreadth
        var count = 0
        for k in 0..<candidates.perNode {
            let t3 = candidates.candidate(t2, k)
            if t3 < 0 { break }
            let partial = gain - costs.cost(t2, t3)
            if partial <= epsilon { break }
            if t3 == t1 { continue }
            // With t2 after t1, t4 is the node before t3: the flip reverses t2 … t4.
            let t4 = state.step(t3, forward: !forward)
            if t4 == t2 || costs.isFixed(t3, t4) || wasAdded(t3, t4) { continue }
            let next = partial + costs.cost(t3, t4)
            var at = count
            while at > 0 && choiceGains[base + at - 1] < next { at -= 1 }
            if at >= width { continue }
            var slot = min(count, width - 1)
            while slot > at {
                choiceGains[base + slot] = choiceGains[base + slot - 1]
                choiceNodes[2 * (base + slot)] = choiceNodes[2 * (base + slot - 1)]
                choiceNodes[2 * (base + slot) + 1] = choiceNodes[2 * (base + slot - 1) + 1]
                slot -= 1
            }
            choiceGains[base + at] = next
            choiceNodes[2 * (base + at)] = Int32(t3)
            choiceNodes[2 * (base + at) + 1] = Int32(t4)
            count = min(count + 1, width)
        }
        let deeper = flipCount + 1 < maximumDepth
        for choice in 0..<count {
            let t3 = Int(choiceNodes[2 * (base + choice)]), t4 = Int(choiceNodes[2 * (base + choice) + 1])
            let chainGain = choiceGains[base + choice]
            let closedGain = chainGain - costs.cost(t4, t1)
            // At the last level only an improvement is worth a flip.
            if !deeper && closedGain <= bestGain { continue }
            flip(t1, t2, t4, t3)
            if closedGain > bestGain {
                bestGain = closedGain
                bestFlipCount = flipCount
            }
            if deeper { _ = extend(level: level + 1, t1: t1, t2: t4, gain: chainGain) }
            if bestFlipCount > 0 { return true }
            undoLastFlip()
        }
        return false
    }

    private func wasAdded(_ a: Int, _ b: Int) -> Bool {
        if addedStamp[a] != moveStamp || addedStamp[b] != moveStamp { return false }
        let a = Int32(a), b = Int32(b)
        var slot = 0
        while slot < 2 * flipCount {
            let x = added[slot], y = added[slot + 1]
            if (x == a && y == b) || (x == b && y == a) { return true }
            slot += 2
        }
        return false
    }

    /// Takes out t1–t2 and t4–t3, puts in t1–t4 and t2–t3 (t2 follows t1 as t3 follows t4).
    private func flip(_ t1: Int, _ t2: Int, _ t4: Int, _ t3: Int) {
        state.exchange(t1, t2, t4, t3)
        let slot = 4 * flipCount
        flips[slot] = Int32(t1); flips[slot + 1] = Int32(t2); flips[slot + 2] = Int32(t4); flips[slot + 3] = Int32(t3)
        added[2 * flipCount] = Int32(t2); added[2 * flipCount + 1] = Int32(t3)
        addedStamp[t2] = moveStamp
        addedStamp[t3] = moveStamp
        flipCount += 1
    }

    /// Undoes the last flip: exchange(a, b, c, d) made a–c and b–d, with c after a as d after b.
    private func undoLastFlip() {
        flipCount -= 1
        let slot = 4 * flipCount
        state.exchange(Int(flips[slot]), Int(flips[slot + 2]), Int(flips[slot + 1]), Int(flips[slot + 3]))
    }
}
