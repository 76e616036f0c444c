import Foundation

/// A problem read from a TSPLIB file (G. Reinelt, "TSPLIB — A Traveling Salesman Problem
/// Library", ORSA Journal on Computing 3(4), 1991; format in "TSPLIB 95").
///
/// Distances use TSPLIB's own integer functions (`EUC_2D` rounds to the nearest integer, `GEO`
/// reads DDD.MM as degrees and minutes on a sphere of radius 6378.388 km, `ATT` is
/// pseudo-Euclidean), so the published optima reproduce exactly.
public struct TSPLIBProblem: Sendable {
    /// The `NAME` header.
    public let name: String
    /// The `EDGE_WEIGHT_TYPE` header.
    public let edgeWeightType: String
    /// The costs between nodes; node `k` here is TSPLIB's node `k + 1`.
    public let costs: RouteCosts

    /// Parses a `.tsp` or `.atsp` file's text.
    /// - Throws: ``RoutingError/invalidTSPLIB(line:reason:)`` naming the line, or
    ///   ``RoutingError/unsupportedTSPLIB(_:)``.
    public init(text: String) throws {
        var headers: [String: String] = [:]
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        var index = 0
        var coordinates: [(Double, Double)] = []
        var weights: [Double] = []
        var section = ""
        var weightSectionLine = 0
        func number(_ token: Substring, line: Int) throws -> Double {
            guard let value = Double(token), value.isFinite else {
                throw RoutingError.invalidTSPLIB(line: line, reason: "'\(token)' is not a number")
            }
            return value
        }
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            let lineNumber = index + 1
            index += 1
            if line.isEmpty { continue }
            if line == "EOF" { break }
            let upper = line.uppercased()
            if upper.hasSuffix("_SECTION") {
                section = upper
                if upper == "EDGE_WEIGHT_SECTION" { weightSectionLine = lineNumber }
                continue
            }
            if let colon = line.firstIndex(of: ":"), section.isEmpty || line.first?.isLetter == true {
                let key = line[..<colon].trimmingCharacters(in: .whitespaces).uppercased()
                headers[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                section = ""
                continue
            }
            let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch section {
            case "NODE_COORD_SECTION":
                guard tokens.count >= 3 else {
                    throw RoutingError.invalidTSPLIB(line: lineNumber, reason: "a node line needs 'id x y', found '\(line)'")
                }
                coordinates.append((try number(tokens[1], line: lineNumber), try number(tokens[2], line: lineNumber)))
            case "EDGE_WEIGHT_SECTION":
                for token in tokens { weights.append(try number(token, line: lineNumber)) }
            case "":
                if line.first?.isLetter == true {
                    throw RoutingError.invalidTSPLIB(line: lineNumber, reason: "'\(line)' is neither 'KEY: value' nor in a section")
                }
                throw RoutingError.invalidTSPLIB(line: lineNumber, reason: "data outside a section: '\(line)'")
            default:
                continue  // DISPLAY_DATA_SECTION, FIXED_EDGES_SECTION…: not needed for costs
            }
        }
        guard let dimensionText = headers["DIMENSION"], let dimension = Int(dimensionText), dimension > 0 else {
            throw RoutingError.invalidTSPLIB(line: 1, reason: "DIMENSION is missing or not a positive integer")
        }
        let type = (headers["TYPE"] ?? "TSP").uppercased()
        guard type == "TSP" || type == "ATSP" else { throw RoutingError.unsupportedTSPLIB("TYPE \(type)") }
        let weightType = (headers["EDGE_WEIGHT_TYPE"] ?? "").uppercased()
        name = headers["NAME"] ?? ""
        edgeWeightType = weightType
        if weightType == "EXPLICIT" {
            let format = (headers["EDGE_WEIGHT_FORMAT"] ?? "FULL_MATRIX").uppercased()
            costs = try RouteCosts(matrix: Self.matrix(weights, dimension: dimension, format: format, line: weightSectionLine))
            return
        }
        guard coordinates.count == dimension else {
            throw RoutingError.invalidTSPLIB(
                line: lines.count,
                reason: "DIMENSION is \(dimension) but NODE_COORD_SECTION has \(coordinates.count) nodes")
        }
        let x = coordinates.map(\.0), y = coordinates.map(\.1)
        let metric: RouteCosts.PlaneMetric
        switch weightType {
        case "EUC_2D": metric = .euclideanRounded
        case "CEIL_2D": metric = .euclideanCeiling
        case "ATT": metric = .pseudoEuclidean
        case "MAN_2D": metric = .manhattan
        case "MAX_2D": metric = .maximum
        case "GEO":
            costs = RouteCosts(
                count: dimension, symmetric: true, unit: .matrix, integral: true,
                storage: .tsplibGeographic(
                    latitudes: x.map(Self.geographicRadians),
                    longitudes: y.map(Self.geographicRadians)))
            return
        default:
            throw RoutingError.unsupportedTSPLIB("EDGE_WEIGHT_TYPE '\(weightType)'")
        }
        costs = RouteCosts(
            count: dimension, symmetric: true, unit: .matrix, integral: true,
            storage: .plane(x: x, y: y, metric: metric))
    }

    /// TSPLIB's GEO conversion: DDD.MM (degrees and minutes) to radians with PI = 3.141592.
    static func geographicRadians(_ value: Double) -> Double {
        let degrees = value.rounded(.towardZero)
        let minutes = value - degrees
        return 3.141592 * (degrees + 5.0 * minutes / 3.0) / 180.0
    }

    /// The full matrix from an `EDGE_WEIGHT_SECTION` (which starts at `line`) in `format`.
    static func matrix(_ weights: [Double], dimension n: Int, format: String, line: Int = 0) throws -> [[Double]] {
        // The count the format needs, checked against what the file holds before anything of
        // DIMENSION's size is allocated (a hostile DIMENSION of 2^32 would ask for 34 GB).
        let (square, overflow) = n.multipliedReportingOverflow(by: n)
        let needed: Int
        switch format {
        case "FULL_MATRIX": needed = square
        case "UPPER_ROW", "LOWER_COL", "LOWER_ROW", "UPPER_COL": needed = (square - n) / 2
        case "UPPER_DIAG_ROW", "LOWER_DIAG_COL", "LOWER_DIAG_ROW", "UPPER_DIAG_COL": needed = square / 2 + (n + 1) / 2
        default: throw RoutingError.unsupportedTSPLIB("EDGE_WEIGHT_FORMAT '\(format)'")
        }
        guard !overflow, weights.count == needed else {
            throw RoutingError.invalidTSPLIB(
                line: line,
                reason: "EDGE_WEIGHT_SECTION has \(weights.count) numbers; "
                    + "\(format) with DIMENSION \(n) needs " + (overflow ? "more than any file holds" : "\(needed)"))
        }
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        // Which (row, column) cells each format lists, in order; columns formats are the
        // transposed row formats.
        let cells: [(Int, Int)]
        switch format {
        case "FULL_MATRIX":
            cells = (0..<n).flatMap { i in (0..<n).map { (i, $0) } }
        case "UPPER_ROW", "LOWER_COL":
            cells = (0..<n).flatMap { i in ((i + 1)..<max(i + 1, n)).map { (i, $0) } }
        case "LOWER_ROW", "UPPER_COL":
            cells = (0..<n).flatMap { i in (0..<i).map { (i, $0) } }
        case "UPPER_DIAG_ROW", "LOWER_DIAG_COL":
            cells = (0..<n).flatMap { i in (i..<n).map { (i, $0) } }
        case "LOWER_DIAG_ROW", "UPPER_DIAG_COL":
            cells = (0..<n).flatMap { i in (0...i).map { (i, $0) } }
        default:
            throw RoutingError.unsupportedTSPLIB("EDGE_WEIGHT_FORMAT '\(format)'")
        }
        guard weights.count == cells.count else {
            throw RoutingError.invalidTSPLIB(
                line: line,
                reason: "EDGE_WEIGHT_SECTION has \(weights.count) numbers; "
                    + "\(format) with DIMENSION \(n) needs \(cells.count)")
        }
        let symmetric = format != "FULL_MATRIX"
        for ((i, j), value) in zip(cells, weights) {
            matrix[i][j] = value
            if symmetric { matrix[j][i] = value }
        }
        for i in 0..<n { matrix[i][i] = 0 }
        return matrix
    }

    /// Reads a `.opt.tour` file: the 1-based node ids after `TOUR_SECTION`, up to `-1`.
    /// - Returns: 0-based node indices.
    public static func tour(text: String) throws -> [Int] {
        var inSection = false
        var order: [Int] = []
        for (offset, raw) in text.split(whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.uppercased() == "TOUR_SECTION" {
                inSection = true
                continue
            }
            guard inSection else { continue }
            for token in line.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                guard let id = Int(token) else {
                    if token == "EOF" { return order }
                    throw RoutingError.invalidTSPLIB(line: offset + 1, reason: "'\(token)' is not a node id")
                }
                if id == -1 { return order }
                order.append(id - 1)
            }
        }
        return order
    }
}
