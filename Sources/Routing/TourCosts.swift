import Foundation
import GeoCore

/// The solvers' view of a problem: a closed tour over ``nodeCount`` nodes.
///
/// The nodes are the stops and, for an open path, one more: a virtual node whose edges cost
/// nothing. A tour through it is a path between its two neighbours; a fixed start or end is an
/// edge to it that no move may remove (``isFixed(_:_:)``), directed when costs are asymmetric.
/// Forbidden (infinite) matrix edges cost ``penalty``, more than any tour without one.
///
/// A final class over raw buffers, so that the hot loops read costs without reference counting.
final class TourCosts: @unchecked Sendable {
    // @unchecked Sendable: everything but the cost caches is immutable after init. The caches
    // are written on reads, so one `TourCosts` belongs to one solve: a solver builds its own and
    // never shares it between threads (it only crosses to the thread that runs the solve).
    enum Kind { case matrix, geodesic, plane, tsplibGeographic }

    let stopCount: Int
    let nodeCount: Int
    /// The virtual node's index (`stopCount`), or -1 for a round trip.
    let virtualNode: Int
    /// The fixed first stop of an open path (edge virtual → start), or -1.
    let fixedStart: Int
    /// The fixed last stop of an open path (edge end → virtual), or -1.
    let fixedEnd: Int
    let isSymmetric: Bool
    let isIntegral: Bool
    /// The least gain a move must make to count: half a unit for integral costs, else a hair
    /// above rounding noise.
    var minimumGain: Double { isIntegral ? 0.5 : 1e-9 }
    /// What a forbidden edge costs; `.infinity` when the problem has none.
    let penalty: Double
    let kind: Kind
    let planeMetric: RouteCosts.PlaneMetric
    private let first: UnsafeMutableBufferPointer<Double>
    private let second: UnsafeMutableBufferPointer<Double>
    /// Ellipsoidal distances cost about 300 ns (TSPLIB GEO about 100 ns), and local search asks
    /// for the same pairs again and again: a table filled on demand for up to ``denseCacheLimit``
    /// stops, above that a direct-mapped cache of 2¹⁸ pairs (memory fixed, not n²). Not
    /// thread-safe: one solver each.
    private let cachedCosts: UnsafeMutableBufferPointer<Double>
    private let cachedKeys: UnsafeMutableBufferPointer<Int>
    static let denseCacheLimit = 512
    static let pairCacheSize = 1 << 18

    /// - Parameter shape: already normalised; a `.closed` shape gets no virtual node.
    init(_ costs: RouteCosts, shape: RouteShape) {
        stopCount = costs.count
        isSymmetric = costs.isSymmetric
        isIntegral = costs.isIntegral
        switch shape {
        case .closed:
            virtualNode = -1
            fixedStart = -1
            fixedEnd = -1
        case .open(let start, let end):
            virtualNode = costs.count
            fixedStart = start ?? -1
            fixedEnd = end ?? -1
        }
        nodeCount = costs.count + (virtualNode >= 0 ? 1 : 0)
        var penalty = Double.infinity
        var metric = RouteCosts.PlaneMetric.euclideanRounded
        switch costs.storage {
        case .matrix(let flat):
            kind = .matrix
            first = .allocate(capacity: flat.count)
            _ = first.initialize(from: flat)
            second = .allocate(capacity: 0)
            if flat.contains(where: { $0.isInfinite }) {
                let largest = flat.lazy.filter(\.isFinite).max() ?? 0
                penalty = (largest + 1) * Double(costs.count + 1) * 2
            }
        case .geodesic(let latitudes, let longitudes):
            kind = .geodesic
            first = Self.copy(latitudes)
            second = Self.copy(longitudes)
        case .plane(let x, let y, let planeMetric):
            kind = .plane
            metric = planeMetric
            first = Self.copy(x)
            second = Self.copy(y)
        case .tsplibGeographic(let latitudes, let longitudes):
            kind = .tsplibGeographic
            first = Self.copy(latitudes)
            second = Self.copy(longitudes)
        }
        self.penalty = penalty
        self.planeMetric = metric
        if kind == .geodesic || kind == .tsplibGeographic {
            let dense = stopCount <= Self.denseCacheLimit
            cachedCosts = .allocate(capacity: dense ? stopCount * stopCount : Self.pairCacheSize)
            cachedCosts.initialize(repeating: -1)
            cachedKeys = .allocate(capacity: dense ? 0 : Self.pairCacheSize)
            cachedKeys.initialize(repeating: -1)
        } else {
            cachedCosts = .allocate(capacity: 0)
            cachedKeys = .allocate(capacity: 0)
        }
    }

    deinit {
        first.deallocate()
        second.deallocate()
        cachedCosts.deallocate()
        cachedKeys.deallocate()
    }

    /// A geographic distance through the cache (``cachedCosts``).
    @inline(__always)
    private func cachedCost(_ i: Int, _ j: Int) -> Double {
        let (low, high) = i < j ? (i, j) : (j, i)
        let key = low &* stopCount &+ high
        let slot: Int
        if cachedKeys.isEmpty {
            slot = key
        } else {
            slot = Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 46)
            if cachedKeys[slot] != key {
                cachedKeys[slot] = key
                cachedCosts[slot] = -1
            }
        }
        let cached = cachedCosts[slot]
        if cached >= 0 { return cached }
        let value =
            kind == .geodesic
            ? Geodesic.distance(
                latitude1: first[low], longitude1: second[low],
                latitude2: first[high], longitude2: second[high])
            : tsplibGeographicDistance(low, high)
        cachedCosts[slot] = value
        return value
    }

    private static func copy(_ values: [Double]) -> UnsafeMutableBufferPointer<Double> {
        let buffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: values.count)
        _ = buffer.initialize(from: values)
        return buffer
    }

    /// The cost from node `i` to node `j`; 0 to and from the virtual node.
    @inline(__always)
    func cost(_ i: Int, _ j: Int) -> Double {
        if i == j || i == virtualNode || j == virtualNode { return 0 }
        switch kind {
        case .matrix:
            let value = first[i &* stopCount &+ j]
            return value.isFinite ? value : penalty
        case .plane:
            return RouteCosts.planeDistance(first[i] - first[j], second[i] - second[j], planeMetric)
        case .tsplibGeographic, .geodesic:
            return cachedCost(i, j)
        }
    }

    /// TSPLIB's GEO distance, with its own formula and truncation (so published optima
    /// reproduce): three cosines and an arc cosine, hence cached like ellipsoidal distances.
    private func tsplibGeographicDistance(_ i: Int, _ j: Int) -> Double {
        let q1 = cos(second[i] - second[j])
        let q2 = cos(first[i] - first[j])
        let q3 = cos(first[i] + first[j])
        return (6378.388 * acos(0.5 * ((1 + q1) * q2 - (1 - q1) * q3)) + 1).rounded(.towardZero)
    }

    /// Whether the edge from `a` to `b` is a fixed end that no move may remove. For symmetric
    /// costs the direction does not matter.
    @inline(__always)
    func isFixed(_ a: Int, _ b: Int) -> Bool {
        if a == virtualNode {
            return b == fixedStart || (isSymmetric && b == fixedEnd)
        }
        if b == virtualNode {
            return a == fixedEnd || (isSymmetric && a == fixedStart)
        }
        return false
    }

    /// The length of a closed tour over the nodes.
    func length(of tour: [Int32]) -> Double {
        var total = 0.0
        for k in 0..<tour.count { total += cost(Int(tour[k]), Int(tour[(k + 1) % tour.count])) }
        return total
    }

    /// Whether a cost that large can only come from a forbidden edge.
    func usesForbiddenEdge(_ length: Double) -> Bool { penalty.isFinite && length >= penalty }

    /// A dense copy of every node's costs (for exact search on small problems).
    func denseMatrix() -> [Double] {
        var matrix = [Double](repeating: 0, count: nodeCount * nodeCount)
        for i in 0..<nodeCount {
            for j in 0..<nodeCount where i != j { matrix[i * nodeCount + j] = cost(i, j) }
        }
        return matrix
    }

    /// Turns a tour over the nodes into the stops' visiting order: after the virtual node, in the
    /// direction that puts a fixed start first; a round trip begins at `start` (or stop 0).
    func order(fromTour tour: [Int32], closedStart: Int?) -> [Int] {
        var nodes = tour.map(Int.init)
        let anchor = virtualNode >= 0 ? virtualNode : (closedStart ?? 0)
        if let at = nodes.firstIndex(of: anchor) { nodes = Array(nodes[at...] + nodes[..<at]) }
        if virtualNode >= 0 {
            nodes.removeFirst()
            if isSymmetric, nodes.count > 1,
                (fixedStart >= 0 && nodes.last == fixedStart) || (fixedStart < 0 && fixedEnd >= 0 && nodes.first == fixedEnd)
            {
                nodes.reverse()
            }
        } else if isSymmetric, nodes.count > 2, nodes[nodes.count - 1] < nodes[1] {
            // A round trip reads the same both ways; pick one direction deterministically.
            nodes = [nodes[0]] + nodes[1...].reversed()
        }
        return nodes
    }
}
