import GeoCore

/// A tour as an array of nodes plus each node's position, with a work queue of nodes to look at
/// (the don't-look bits of local search) and one saved copy for undoing a kick.
///
/// Raw buffers rather than arrays: the search loops touch them millions of times, and arrays in
/// a class pay for exclusivity checks and uniqueness tests on every write.
final class TourState {
    let nodeCount: Int
    let tour: UnsafeMutableBufferPointer<Int32>
    let position: UnsafeMutableBufferPointer<Int32>
    var length: Double
    private let savedTour: UnsafeMutableBufferPointer<Int32>
    private let savedPosition: UnsafeMutableBufferPointer<Int32>
    private var savedLength: Double
    private let queue: UnsafeMutableBufferPointer<Int32>
    private let queued: UnsafeMutableBufferPointer<Bool>
    private var queueHead = 0
    private var queueCount = 0
    private let scratch: UnsafeMutableBufferPointer<Int32>

    init(_ initialTour: [Int32], costs: TourCosts) {
        nodeCount = initialTour.count
        tour = .allocate(capacity: nodeCount)
        _ = tour.initialize(from: initialTour)
        position = .allocate(capacity: nodeCount)
        for (at, node) in initialTour.enumerated() { position[Int(node)] = Int32(at) }
        savedTour = .allocate(capacity: nodeCount)
        savedPosition = .allocate(capacity: nodeCount)
        queue = .allocate(capacity: nodeCount)
        queued = .allocate(capacity: nodeCount)
        queued.initialize(repeating: false)
        scratch = .allocate(capacity: nodeCount)
        length = 0
        savedLength = 0
        length = measure(costs)
        save()
    }

    deinit {
        tour.deallocate()
        position.deallocate()
        savedTour.deallocate()
        savedPosition.deallocate()
        queue.deallocate()
        queued.deallocate()
        scratch.deallocate()
    }

    var nodes: [Int32] { Array(tour) }

    /// The tour's length from scratch.
    func measure(_ costs: TourCosts) -> Double {
        var total = 0.0
        for at in 0..<nodeCount { total += costs.cost(Int(tour[at]), Int(tour[at + 1 == nodeCount ? 0 : at + 1])) }
        return total
    }

    @inline(__always) func next(_ node: Int) -> Int {
        let at = Int(position[node]) + 1
        return Int(tour[at == nodeCount ? 0 : at])
    }

    @inline(__always) func previous(_ node: Int) -> Int {
        let at = Int(position[node])
        return Int(tour[at == 0 ? nodeCount - 1 : at - 1])
    }

    @inline(__always) func step(_ node: Int, forward: Bool) -> Int {
        forward ? next(node) : previous(node)
    }

    /// Steps forward from `from` to `to`.
    @inline(__always) func distance(from: Int, to: Int) -> Int {
        let steps = Int(position[to]) - Int(position[from])
        return steps < 0 ? steps + nodeCount : steps
    }

    @inline(__always) func place(_ node: Int32, at slot: Int) {
        tour[slot] = node
        position[Int(node)] = Int32(slot)
    }

    /// The `firstLength` nodes from position `start` and the `secondLength` after them trade
    /// places (positions wrap around).
    func swapAdjacent(at start: Int, _ firstLength: Int, _ secondLength: Int) {
        var count = 0
        var slot = start + firstLength
        for _ in 0..<secondLength {
            if slot >= nodeCount { slot -= nodeCount }
            scratch[count] = tour[slot]
            count += 1
            slot += 1
        }
        slot = start
        for _ in 0..<firstLength {
            if slot >= nodeCount { slot -= nodeCount }
            scratch[count] = tour[slot]
            count += 1
            slot += 1
        }
        slot = start
        for k in 0..<count {
            if slot >= nodeCount { slot -= nodeCount }
            place(scratch[k], at: slot)
            slot += 1
        }
    }

    /// Rewrites the tour S0 S1 S2 (S1 = b…c, S2 = d…e, S0 the rest) as S0 S2 S1, moving the two
    /// shortest of the three stretches.
    func swapStretches(b: Int, c: Int, d: Int, e: Int) {
        let first = distance(from: b, to: c) + 1
        let second = distance(from: d, to: e) + 1
        let rest = nodeCount - first - second
        // S0 S1 S2 ≡ S1 S2 S0 ≡ S2 S0 S1 as cycles; S0 S2 S1 ≡ S1 S0 S2 ≡ S2 S1 S0.
        if first + second <= first + rest && first + second <= second + rest {
            swapAdjacent(at: Int(position[b]), first, second)  // S1 S2 → S2 S1
        } else if first + rest <= second + rest {
            swapAdjacent(at: (Int(position[e]) + 1) % nodeCount, rest, first)  // S0 S1 → S1 S0
        } else {
            swapAdjacent(at: Int(position[d]), second, rest)  // S2 S0 → S0 S2
        }
    }

    // MARK: 2-opt

    /// Reverses the path from `from` forward to `to`, or equivalently the rest of the tour,
    /// whichever is shorter.
    func reversePath(from: Int, to: Int) {
        let n = nodeCount
        var i = Int(position[from]), j = Int(position[to])
        var inner = j - i
        if inner < 0 { inner += n }
        if (inner + 1) * 2 > n {
            let oldI = i
            i = j + 1 == n ? 0 : j + 1
            j = oldI == 0 ? n - 1 : oldI - 1
            inner = n - inner - 2
        }
        var swaps = (inner + 1) / 2
        while swaps > 0 {
            let a = tour[i], b = tour[j]
            place(b, at: i)
            place(a, at: j)
            i = i + 1 == n ? 0 : i + 1
            j = j == 0 ? n - 1 : j - 1
            swaps -= 1
        }
    }

    /// Replaces tour edges {a,b} and {c,d} with {a,c} and {b,d}; `b` follows `a` in the same
    /// direction as `d` follows `c`.
    func exchange(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        if next(a) == b {
            reversePath(from: b, to: c)
        } else {
            reversePath(from: a, to: d)
        }
    }

    // MARK: Work queue

    @inline(__always) func push(_ node: Int) {
        if !queued[node] {
            queued[node] = true
            var slot = queueHead + queueCount
            if slot >= nodeCount { slot -= nodeCount }
            queue[slot] = Int32(node)
            queueCount += 1
        }
    }

    @inline(__always) func pop() -> Int? {
        guard queueCount > 0 else { return nil }
        let node = Int(queue[queueHead])
        queueHead = queueHead + 1 == nodeCount ? 0 : queueHead + 1
        queueCount -= 1
        queued[node] = false
        return node
    }

    func pushAll() { for at in 0..<nodeCount { push(Int(tour[at])) } }

    // MARK: Undo

    func save() {
        savedTour.baseAddress!.update(from: tour.baseAddress!, count: nodeCount)
        savedPosition.baseAddress!.update(from: position.baseAddress!, count: nodeCount)
        savedLength = length
    }

    func restore() {
        tour.baseAddress!.update(from: savedTour.baseAddress!, count: nodeCount)
        position.baseAddress!.update(from: savedPosition.baseAddress!, count: nodeCount)
        length = savedLength
    }

    var lastSavedLength: Double { savedLength }
}

/// A local search that can repair a tour after a kick.
protocol KickedLocalSearch: AnyObject {
    var state: TourState { get }
    var costs: TourCosts { get }
    /// What the answer's `method` calls this search.
    var name: String { get }
    /// Applies improving moves until no queued node has one.
    func improve()
    /// Perturbs the tour at random and queues the nodes it touched; false when it changed nothing.
    /// By default, ``kick(random:)`` of the extension: a swap of two adjacent stretches.
    func kick(random: inout SplitMix64) -> Bool
}

extension KickedLocalSearch {
    var tour: [Int32] { state.nodes }
    var length: Double { state.length }

    /// Iterated local search: kick, repair, keep the result unless it is longer. Runs until the
    /// deadline, `maximumKicks` or cancellation and ends on the best tour.
    /// - Returns: the number of kicks made.
    @discardableResult
    func iterate(deadline: ContinuousClock.Instant, maximumKicks: Int, random: inout SplitMix64) -> Int {
        guard state.nodeCount >= 8 else { return 0 }
        state.save()
        let slack = costs.isIntegral ? 0 : 1e-12
        var kicks = 0
        while kicks < maximumKicks {
            if ContinuousClock.now >= deadline || Task.isCancelled { break }
            kicks += 1
            guard kick(random: &random) else { continue }
            improve()
            if state.length <= state.lastSavedLength * (1 + slack) {
                state.save()  // not longer: kept (sideways moves let the search wander)
            } else {
                state.restore()
            }
        }
        state.restore()
        state.length = state.measure(costs)
        return kicks
    }

    /// Improves until a look at every node finds no move: a move can make another one elsewhere
    /// worth making without touching its nodes (a reversal turns the tour's direction between
    /// them), so one pass over the queue is not always a local optimum. After kicks, the queue
    /// alone is enough.
    func improveAll() {
        var before: Double
        repeat {
            before = state.length
            state.pushAll()
            improve()
        } while state.length < before - costs.minimumGain
    }

    /// Swaps two adjacent random stretches of 1–100 stops (a→b…c→d…e→f becomes a→d…e→b…c→f),
    /// a double bridge within a part of the tour, and queues the six nodes at the changed edges.
    /// Both stretches keep their direction, so the kick suits asymmetric costs too. (Measured
    /// against a double bridge between near neighbours and against shorter stretches: on
    /// ali535 and gr666, longer stretches reach smaller gaps.)
    func kick(random: inout SplitMix64) -> Bool {
        let (a, b, c, d, e, f, start, firstLength, secondLength) = randomStretches(random: &random)
        if costs.isFixed(a, b) || costs.isFixed(c, d) || costs.isFixed(e, f) { return false }
        let gain =
            costs.cost(a, b) + costs.cost(c, d) + costs.cost(e, f)
            - costs.cost(a, d) - costs.cost(e, b) - costs.cost(c, f)
        state.swapAdjacent(at: (start + 1) % state.nodeCount, firstLength, secondLength)
        state.length -= gain
        state.push(a)
        state.push(b)
        state.push(c)
        state.push(d)
        state.push(e)
        state.push(f)
        return true
    }

    /// Three cut points for a kick: two adjacent stretches of 1–100 nodes at a random place,
    /// as (a, b, c, d, e, f) with a→b…c→d…e→f.
    func randomStretches(random: inout SplitMix64) -> (Int, Int, Int, Int, Int, Int, start: Int, Int, Int) {
        let n = state.nodeCount
        let maxPiece = max(1, min(100, (n - 2) / 2))
        let firstLength = 1 + Int(random.next() % UInt64(maxPiece))
        let secondLength = 1 + Int(random.next() % UInt64(maxPiece))
        let start = Int(random.next() % UInt64(n))
        let tour = state.tour
        func at(_ offset: Int) -> Int { Int(tour[(start + offset) % n]) }
        return (
            at(0), at(1), at(firstLength), at(firstLength + 1), at(firstLength + secondLength),
            at(firstLength + secondLength + 1), start, firstLength, secondLength
        )
    }
}
