/// Proves a symmetric tour optimal, or finds a better one: depth-first branch and bound on
/// Held–Karp 1-tree bounds with subgradient optimisation (M. Held and R. M. Karp, "The
/// traveling-salesman problem and minimum spanning trees: part II", Math. Programming 1, 1971;
/// branching as T. Volgenant and R. Jonker, EJOR 9, 1982).
///
/// Works on the tour problem's nodes (stops plus the virtual node of an open path), whose fixed
/// ends are forced edges. Memory is one small dense matrix plus a few bytes per open subproblem.
struct BranchAndBound {
    enum EdgeState: UInt8 { case free = 0, forced = 1, excluded = 2 }

    struct Outcome {
        var tour: [Int32]
        var length: Double
        var lowerBound: Double
        var proven: Bool
    }

    private struct Subproblem {
        var state: [EdgeState]
        var multipliers: [Double]
        var bound: Double
        var tree = OneTree()
    }

    private let n: Int
    private let cost: [Double]
    private let integral: Bool
    private var upper: Double
    private var bestTour: [Int32]
    /// The node whose two edges complete the 1-tree (the virtual node when there is one).
    private let special: Int
    /// The fixed ends of an open path as forced edges, and their direct join excluded.
    private let rootState: [EdgeState]
    // Prim's working arrays, reused by every 1-tree.
    private var key: [Double]
    private var forcedKey: [Bool]
    private var inTree: [Bool]

    init(costs: TourCosts, tour: [Int32], length: Double) {
        let n = costs.nodeCount
        var state = [EdgeState](repeating: .free, count: n * n)
        if costs.virtualNode >= 0 {
            let v = costs.virtualNode
            for end in [costs.fixedStart, costs.fixedEnd] where end >= 0 {
                state[v * n + end] = .forced
                state[end * n + v] = .forced
            }
            if costs.fixedStart >= 0, costs.fixedEnd >= 0, n > 3 {
                // The path's two ends are not joined to each other directly.
                state[costs.fixedStart * n + costs.fixedEnd] = .excluded
                state[costs.fixedEnd * n + costs.fixedStart] = .excluded
            }
        }
        self.init(
            matrix: costs.denseMatrix(), nodeCount: n, integral: costs.isIntegral, rootState: state,
            tour: tour, length: length)
    }

    /// A symmetric problem given as a dense matrix with some edges forced into or excluded from
    /// every tour from the start (`rootState`, symmetric, `nodeCount`² entries).
    init(matrix: [Double], nodeCount: Int, integral: Bool, rootState: [EdgeState], tour: [Int32], length: Double) {
        n = nodeCount
        cost = matrix
        self.integral = integral
        upper = length
        bestTour = tour
        special = n - 1
        key = [Double](repeating: 0, count: n)
        forcedKey = [Bool](repeating: false, count: n)
        inTree = [Bool](repeating: false, count: n)
        self.rootState = rootState
    }

    /// Whether a bound this high shows that a subproblem cannot beat the incumbent.
    private func cannotImprove(_ bound: Double) -> Bool {
        integral ? (bound - 1e-7).rounded(.up) >= upper : bound >= upper - 1e-9 * max(1, upper)
    }

    /// Searches until every subproblem is settled (proven) or the deadline passes.
    mutating func run(deadline: ContinuousClock.Instant) -> Outcome {
        var root = Subproblem(state: rootState, multipliers: [Double](repeating: 0, count: n), bound: 0)
        root.bound = ascend(&root, iterations: 30 * n + 100)
        var stack: [Subproblem] = []
        var aborted = false
        if !cannotImprove(root.bound) { stack.append(root) }
        while let node = stack.popLast() {
            if cannotImprove(node.bound) { continue }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                stack.append(node)
                aborted = true
                break
            }
            guard let branchNode = node.tree.branchNode(n: n) else { continue }
            var children: [Subproblem] = []
            for childState in branch(node.state, at: branchNode, tree: node.tree) {
                var child = Subproblem(state: childState, multipliers: node.multipliers, bound: node.bound)
                child.bound = max(node.bound, ascend(&child, iterations: max(20, n)))
                if !cannotImprove(child.bound) { children.append(child) }
            }
            children.sort { $0.bound > $1.bound }
            stack.append(contentsOf: children)
        }
        var lower = upper
        if aborted {
            for open in stack { lower = min(lower, open.bound) }
        }
        return Outcome(
            tour: bestTour, length: upper, lowerBound: aborted ? min(lower, upper) : upper,
            proven: !aborted)
    }

    /// A 1-tree: a spanning tree on all nodes but ``special`` plus its two cheapest edges.
    struct OneTree {
        var parent: [Int] = []
        var degree: [Int] = []
        var specialEdges: (Int, Int) = (-1, -1)
        var isTour = false

        /// The node with the most tree edges above two, or nil when every degree is two.
        func branchNode(n: Int) -> Int? {
            var best: Int?
            var bestDegree = 2
            for i in 0..<n where degree[i] > bestDegree {
                best = i
                bestDegree = degree[i]
            }
            return best
        }

        func edges(n: Int) -> [(Int, Int)] {
            var list: [(Int, Int)] = []
            for i in 0..<n where parent[i] >= 0 { list.append((i, parent[i])) }
            list.append((specialEdges.0, n - 1))
            list.append((specialEdges.1, n - 1))
            return list
        }
    }

    /// The 1-tree for the given multipliers and its Lagrangian value (infinity when the edge
    /// states leave no 1-tree).
    private mutating func oneTree(_ state: [EdgeState], _ pi: [Double], into tree: inout OneTree) -> Double {
        let treeNodes = n - 1
        if tree.parent.count != n {
            tree.parent = [Int](repeating: -1, count: n)
            tree.degree = [Int](repeating: 0, count: n)
        }
        for i in 0..<n {
            tree.parent[i] = -1
            tree.degree[i] = 0
            key[i] = .infinity
            forcedKey[i] = false
            inTree[i] = false
        }
        var value = 0.0
        key[0] = 0
        for _ in 0..<treeNodes {
            var u = -1
            for v in 0..<treeNodes where !inTree[v] {
                if u < 0 || (forcedKey[v] && !forcedKey[u]) || (forcedKey[v] == forcedKey[u] && key[v] < key[u]) { u = v }
            }
            if key[u] == .infinity { return .infinity }
            inTree[u] = true
            value += key[u]
            if tree.parent[u] >= 0 {
                tree.degree[u] += 1
                tree.degree[tree.parent[u]] += 1
            }
            for v in 0..<treeNodes where !inTree[v] {
                let s = state[u * n + v]
                if s == .excluded { continue }
                let w = cost[u * n + v] + pi[u] + pi[v]
                if s == .forced {
                    if !forcedKey[v] || w < key[v] {
                        key[v] = w
                        tree.parent[v] = u
                        forcedKey[v] = true
                    }
                } else if !forcedKey[v] && w < key[v] {
                    key[v] = w
                    tree.parent[v] = u
                }
            }
        }
        // The special node's two edges: forced ones first, then the cheapest allowed.
        var first = -1, second = -1
        var firstKey = Double.infinity, secondKey = Double.infinity
        var forcedCount = 0
        for v in 0..<treeNodes {
            let s = state[special * n + v]
            if s == .excluded { continue }
            let w = cost[special * n + v] + pi[special] + pi[v]
            let rank = s == .forced ? -Double.greatestFiniteMagnitude : w
            if s == .forced { forcedCount += 1 }
            if first < 0 || rank < firstKey {
                second = first
                secondKey = firstKey
                first = v
                firstKey = rank
            } else if second < 0 || rank < secondKey {
                second = v
                secondKey = rank
            }
        }
        if second < 0 || forcedCount > 2 { return .infinity }
        value += cost[special * n + first] + cost[special * n + second] + 2 * pi[special] + pi[first] + pi[second]
        tree.degree[first] += 1
        tree.degree[second] += 1
        tree.degree[special] = 2
        tree.specialEdges = (first, second)
        var piSum = 0.0
        for i in 0..<n { piSum += pi[i] }
        tree.isTour = tree.degree.allSatisfy { $0 == 2 }
        return value - 2 * piSum
    }

    /// Subgradient ascent on the multipliers; returns the best bound seen and leaves that
    /// bound's multipliers and tree. A 1-tree that is a tour is a candidate incumbent.
    private mutating func ascend(_ node: inout Subproblem, iterations: Int) -> Double {
        var best = OneTree()
        defer { node.tree = best }
        var pi = node.multipliers
        var bestValue = -Double.infinity
        var bestPi = pi
        var tree = OneTree()
        var lambda = 2.0
        var sinceImprovement = 0
        for _ in 0..<iterations {
            let value = oneTree(node.state, pi, into: &tree)
            if value == .infinity {
                best = tree
                return .infinity
            }
            if value > bestValue + 1e-12 * abs(value) {
                bestValue = value
                bestPi = pi
                best = tree
                sinceImprovement = 0
            } else {
                sinceImprovement += 1
                if sinceImprovement >= max(5, n / 4) {
                    lambda /= 2
                    sinceImprovement = 0
                }
            }
            if tree.isTour {
                // The Lagrangian value of a tour is its cost: a feasible tour of this subproblem.
                let length = tourCost(tree)
                if length < upper {
                    upper = length
                    bestTour = tourOrder(tree)
                }
                best = tree
                bestValue = max(bestValue, value)
                break
            }
            if cannotImprove(bestValue) || lambda < 1e-6 { break }
            var norm = 0.0
            for i in 0..<n {
                let g = Double(tree.degree[i] - 2)
                norm += g * g
            }
            if norm == 0 { break }
            let step = lambda * (upper - value) / norm
            if !(step > 0) { break }
            for i in 0..<n { pi[i] += step * Double(tree.degree[i] - 2) }
        }
        node.multipliers = bestPi
        return bestValue
    }

    private func tourCost(_ tree: OneTree) -> Double {
        tree.edges(n: n).reduce(0) { $0 + cost[$1.0 * n + $1.1] }
    }

    private func tourOrder(_ tree: OneTree) -> [Int32] {
        var adjacent = [[Int]](repeating: [], count: n)
        for (a, b) in tree.edges(n: n) {
            adjacent[a].append(b)
            adjacent[b].append(a)
        }
        var order: [Int32] = [Int32(special)]
        var previous = special, current = adjacent[special][0]
        while current != special {
            order.append(Int32(current))
            let next = adjacent[current][0] == previous ? adjacent[current][1] : adjacent[current][0]
            previous = current
            current = next
        }
        return order
    }

    // MARK: - Branching

    /// Children of a subproblem at a node of degree above two (Volgenant–Jonker): with free tree
    /// edges e1, e2 there, exclude e1 | force e1, exclude e2 | force both (or, when one edge is
    /// already forced there: exclude e1 | force e1).
    private func branch(_ state: [EdgeState], at node: Int, tree: OneTree) -> [[EdgeState]] {
        var freeEdges: [Int] = []
        for (a, b) in tree.edges(n: n) where a == node || b == node {
            let other = a == node ? b : a
            if state[node * n + other] == .free { freeEdges.append(other) }
        }
        let forcedHere = (0..<n).filter { $0 != node && state[node * n + $0] == .forced }.count
        guard let e1 = freeEdges.first else { return [] }
        var children: [[EdgeState]] = []
        var exclude = state
        set(&exclude, node, e1, .excluded)
        children.append(exclude)
        if forcedHere == 1 || freeEdges.count < 2 {
            var force = state
            if self.force(&force, node, e1) { children.append(force) }
        } else {
            let e2 = freeEdges[1]
            var forceFirst = state
            if force(&forceFirst, node, e1) {
                set(&forceFirst, node, e2, .excluded)
                children.append(forceFirst)
            }
            var forceBoth = state
            if force(&forceBoth, node, e1), force(&forceBoth, node, e2) { children.append(forceBoth) }
        }
        return children
    }

    private func set(_ state: inout [EdgeState], _ a: Int, _ b: Int, _ value: EdgeState) {
        state[a * n + b] = value
        state[b * n + a] = value
    }

    /// Forces edge a–b and what follows from it: a node with two forced edges loses its free ones,
    /// and the forced path's two ends may not close a cycle short of all nodes. False when the
    /// result is infeasible.
    private func force(_ state: inout [EdgeState], _ a: Int, _ b: Int) -> Bool {
        if state[a * n + b] == .excluded { return false }
        if state[a * n + b] == .forced { return true }
        set(&state, a, b, .forced)
        for node in [a, b] {
            let forced = (0..<n).filter { $0 != node && state[node * n + $0] == .forced }
            if forced.count > 2 { return false }
            if forced.count == 2 {
                for other in 0..<n where other != node && state[node * n + other] == .free {
                    set(&state, node, other, .excluded)
                }
            }
        }
        // Follow the forced path through a–b to its ends; a cycle is allowed only through all nodes.
        func forcedNeighbour(of node: Int, except previous: Int) -> Int? {
            (0..<n).first { $0 != node && $0 != previous && state[node * n + $0] == .forced }
        }
        func walk(from start: Int, cameFrom: Int) -> (end: Int, nodes: Int)? {
            var previous = cameFrom, current = start, nodes = 1
            while let next = forcedNeighbour(of: current, except: previous) {
                if next == cameFrom { return nil }
                previous = current
                current = next
                nodes += 1
            }
            return (current, nodes)
        }
        guard let left = walk(from: a, cameFrom: b), let right = walk(from: b, cameFrom: a) else {
            var nodes = 1, previous = b, current = a
            while let next = forcedNeighbour(of: current, except: previous), next != a {
                previous = current
                current = next
                nodes += 1
            }
            return nodes == n
        }
        // (A single edge's ends are its own nodes: nothing to exclude.)
        if left.nodes + right.nodes < n && left.nodes + right.nodes > 2 {
            switch state[left.end * n + right.end] {
            case .forced: return false
            case .free: set(&state, left.end, right.end, .excluded)
            case .excluded: break
            }
        }
        return true
    }
}
