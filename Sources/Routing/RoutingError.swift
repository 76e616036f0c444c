import GeoCore

/// Errors from building a routing problem or solving it.
///
/// Each case names the bad value and says what is valid, so the message can go to a user as is.
public enum RoutingError: ClassifiedError, Sendable, Equatable {
    /// No stops were given.
    case noStops
    /// A distance matrix that is not square: row `row` has `length` entries, `expected` wanted.
    case matrixNotSquare(row: Int, length: Int, expected: Int)
    /// A matrix entry that is negative or NaN (`+infinity` is allowed and means "no edge").
    case invalidCost(row: Int, column: Int, value: Double)
    /// A start or end index outside `0..<count`.
    case stopOutOfRange(role: String, index: Int, count: Int)
    /// Every order uses at least one forbidden (infinite) edge.
    case noFeasibleRoute
    /// A TSPLIB file that could not be read, with the line and the reason.
    case invalidTSPLIB(line: Int, reason: String)
    /// A TSPLIB feature this reader does not implement.
    case unsupportedTSPLIB(String)

    public var description: String {
        switch self {
        case .noStops:
            return "a route needs at least one stop; none were given"
        case .matrixNotSquare(let row, let length, let expected):
            return "distance matrix row \(row) has \(length) entries; every row must have \(expected), one per stop"
        case .invalidCost(let row, let column, let value):
            return "distance matrix entry [\(row)][\(column)] is \(value); entries must be 0 or more "
                + "(use null or infinity for a missing edge)"
        case .stopOutOfRange(let role, let index, let count):
            return "\(role) stop \(index) does not exist: stops are numbered 0 to \(count - 1)"
        case .noFeasibleRoute:
            return "no order of the stops avoids the edges the matrix marks as missing (null or infinity); "
                + "give those edges a cost or drop a stop"
        case .invalidTSPLIB(let line, let reason):
            return "TSPLIB line \(line): \(reason)"
        case .unsupportedTSPLIB(let what):
            return "TSPLIB \(what) is not supported; supported: TYPE TSP or ATSP, EDGE_WEIGHT_TYPE EUC_2D, "
                + "CEIL_2D, GEO, ATT, MAN_2D, MAX_2D or EXPLICIT (FULL_MATRIX, UPPER_ROW, LOWER_ROW, "
                + "UPPER_DIAG_ROW, LOWER_DIAG_ROW, UPPER_COL, LOWER_COL, UPPER_DIAG_COL, LOWER_DIAG_COL)"
        }
    }
}

extension RoutingError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        switch self {
        case .noStops, .stopOutOfRange: .invalidInput
        default: .unprocessable
        }
    }
}
