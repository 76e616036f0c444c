import Foundation
import GeoCore

/// The cost of travelling between any two stops: ellipsoidal distances between points, a supplied
/// matrix (asymmetric allowed), or one of TSPLIB's distance functions.
///
/// Costs are computed on demand, so a problem over thousands of points never builds an n×n table;
/// the solvers cache what they reuse (neighbour lists, small dense matrices for exact search).
///
/// ```swift
/// let costs = RouteCosts(points: coordinates)             // metres on WGS84
/// let road = try RouteCosts(matrix: [[0, 7], [9, 0]])     // asymmetric, say road seconds
/// ```
public struct RouteCosts: Sendable {
    /// What a cost is measured in.
    public enum Unit: String, Sendable {
        /// Metres along the WGS84 ellipsoid.
        case metres = "m"
        /// Whatever the supplied matrix or TSPLIB function measures.
        case matrix
    }

    /// How TSPLIB turns a Euclidean distance into an integer.
    enum PlaneMetric: Sendable {
        case euclideanRounded, euclideanCeiling, pseudoEuclidean, manhattan, maximum
    }

    enum Storage: Sendable {
        case matrix([Double])
        case geodesic(latitudes: [Double], longitudes: [Double])
        case plane(x: [Double], y: [Double], metric: PlaneMetric)
        case tsplibGeographic(latitudes: [Double], longitudes: [Double])
    }

    /// The number of stops.
    public let count: Int
    /// Whether `cost(i, j) == cost(j, i)` for every pair.
    public let isSymmetric: Bool
    /// What the costs measure.
    public let unit: Unit
    /// Whether every cost is a whole number (TSPLIB), so a bound can be rounded up.
    public let isIntegral: Bool
    let storage: Storage

    /// Ellipsoidal distances in metres between points (``Geodesic/distance(_:_:)``).
    public init(points: [Coordinate]) {
        count = points.count
        isSymmetric = true
        unit = .metres
        isIntegral = false
        storage = .geodesic(latitudes: points.map(\.latitude), longitudes: points.map(\.longitude))
    }

    /// Any square matrix: `matrix[i][j]` is the cost of going from stop `i` to stop `j`. The
    /// diagonal is ignored; `+infinity` marks an edge that must not be used.
    /// - Throws: ``RoutingError/matrixNotSquare(row:length:expected:)`` or
    ///   ``RoutingError/invalidCost(row:column:value:)`` naming the first bad entry.
    public init(matrix: [[Double]]) throws {
        let n = matrix.count
        var flat = [Double](repeating: 0, count: n * n)
        var symmetric = true
        var integral = true
        for (i, row) in matrix.enumerated() {
            guard row.count == n else { throw RoutingError.matrixNotSquare(row: i, length: row.count, expected: n) }
            for (j, value) in row.enumerated() where i != j {
                guard !value.isNaN, value >= 0 else { throw RoutingError.invalidCost(row: i, column: j, value: value) }
                flat[i * n + j] = value
                if value.isFinite && value.rounded() != value { integral = false }
            }
        }
        for i in 0..<n where symmetric {
            for j in (i + 1)..<max(i + 1, n) where flat[i * n + j] != flat[j * n + i] {
                symmetric = false
                break
            }
        }
        self.init(count: n, symmetric: symmetric, unit: .matrix, integral: integral, storage: .matrix(flat))
    }

    init(count: Int, symmetric: Bool, unit: Unit, integral: Bool, storage: Storage) {
        self.count = count
        self.isSymmetric = symmetric
        self.unit = unit
        self.isIntegral = integral
        self.storage = storage
    }

    /// The cost of going from stop `i` to stop `j` (0 when `i == j`).
    @inline(__always)
    public func cost(_ i: Int, _ j: Int) -> Double {
        if i == j { return 0 }
        switch storage {
        case .matrix(let flat):
            return flat[i * count + j]
        case .geodesic(let latitudes, let longitudes):
            // Always in one order, so that the cost is symmetric to the last bit.
            let (low, high) = i < j ? (i, j) : (j, i)
            return Geodesic.distance(
                latitude1: latitudes[low], longitude1: longitudes[low],
                latitude2: latitudes[high], longitude2: longitudes[high])
        case .plane(let x, let y, let metric):
            return Self.planeDistance(x[i] - x[j], y[i] - y[j], metric)
        case .tsplibGeographic(let latitudes, let longitudes):
            let q1 = cos(longitudes[i] - longitudes[j])
            let q2 = cos(latitudes[i] - latitudes[j])
            let q3 = cos(latitudes[i] + latitudes[j])
            return (6378.388 * acos(0.5 * ((1 + q1) * q2 - (1 - q1) * q3)) + 1).rounded(.towardZero)
        }
    }

    /// TSPLIB's integer plane distances (Reinelt 1995, "TSPLIB 95", section 2).
    static func planeDistance(_ dx: Double, _ dy: Double, _ metric: PlaneMetric) -> Double {
        switch metric {
        case .euclideanRounded: return (sqrt(dx * dx + dy * dy) + 0.5).rounded(.down)
        case .euclideanCeiling: return sqrt(dx * dx + dy * dy).rounded(.up)
        case .pseudoEuclidean:
            let r = sqrt((dx * dx + dy * dy) / 10)
            let t = (r + 0.5).rounded(.down)
            return t < r ? t + 1 : t
        case .manhattan: return (abs(dx) + abs(dy) + 0.5).rounded(.down)
        case .maximum: return (max(abs(dx), abs(dy)) + 0.5).rounded(.down)
        }
    }

    /// A position per stop in a space where nearby stops are near, for neighbour lists; nil for a
    /// matrix, whose neighbours come from its rows. Points are placed at their Earth-centred
    /// (ECEF) position in metres: the straight line between two is never longer than the
    /// geodesic, which makes it a lower bound (``LowerBound``).
    var embedding: [SIMD3<Double>]? {
        switch storage {
        case .matrix: return nil
        case .plane(let x, let y, _): return zip(x, y).map { SIMD3($0, $1, 0) }
        case .geodesic(let latitudes, let longitudes):
            return zip(latitudes, longitudes).map { Self.earthCentred(latitude: $0 * .pi / 180, longitude: $1 * .pi / 180) }
        case .tsplibGeographic(let latitudes, let longitudes):
            return zip(latitudes, longitudes).map { Self.unitVector(latitude: $0, longitude: $1) }
        }
    }

    /// WGS84 geodetic latitude and longitude (radians, height 0) to Earth-centred metres.
    static func earthCentred(latitude: Double, longitude: Double) -> SIMD3<Double> {
        let sinLatitude = sin(latitude), cosLatitude = cos(latitude)
        let primeVertical = WGS84.semiMajorAxis / (1 - WGS84.eccentricitySquared * sinLatitude * sinLatitude).squareRoot()
        return SIMD3(
            primeVertical * cosLatitude * cos(longitude), primeVertical * cosLatitude * sin(longitude),
            primeVertical * (1 - WGS84.eccentricitySquared) * sinLatitude)
    }

    /// Whether the cost never decreases as the embedding's straight-line distance grows, so the
    /// nearest stops by position are the cheapest.
    var costGrowsWithEmbeddingDistance: Bool {
        switch storage {
        case .matrix, .geodesic: return false
        case .tsplibGeographic: return true
        case .plane(_, _, let metric): return metric != .manhattan && metric != .maximum
        }
    }

    static func unitVector(latitude: Double, longitude: Double) -> SIMD3<Double> {
        SIMD3(cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
    }

    /// The length of a visiting order; `closed` adds the leg back to the first stop.
    public func length(of order: [Int], closed: Bool) -> Double {
        guard order.count > 1 else { return 0 }
        var total = 0.0
        for k in 1..<order.count { total += cost(order[k - 1], order[k]) }
        if closed { total += cost(order[order.count - 1], order[0]) }
        return total
    }
}
