/// Where a route begins and ends.
public enum RouteShape: Sendable, Equatable, CustomStringConvertible {
    /// A round trip through every stop, back to the first. With `start`, the order begins there.
    case closed(start: Int? = nil)
    /// A one-way path. `start` and `end` fix the first and last stop; `nil` leaves that end free
    /// for the solver to choose. `start == end` is a round trip from that stop.
    case open(start: Int?, end: Int?)

    public var description: String {
        switch self {
        case .closed(let start): return start.map { "round trip from stop \($0)" } ?? "round trip"
        case .open(let start, let end):
            let from = start.map { "from stop \($0)" } ?? "from any stop"
            let to = end.map { "to stop \($0)" } ?? "to any stop"
            return "path \(from) \(to)"
        }
    }

    /// The same shape with a round trip written as `.closed` (open paths with `start == end`).
    var normalised: RouteShape {
        if case .open(let start?, let end?) = self, start == end { return .closed(start: start) }
        return self
    }

    var isClosed: Bool { if case .closed = self { true } else { false } }

    func validate(count: Int) throws {
        func check(_ role: String, _ index: Int?) throws {
            if let index, !(0..<count).contains(index) {
                throw RoutingError.stopOutOfRange(role: role, index: index, count: count)
            }
        }
        switch self {
        case .closed(let start): try check("start", start)
        case .open(let start, let end):
            try check("start", start)
            try check("end", end)
        }
    }
}

/// How hard to look.
public struct RouteOptions: Sendable {
    /// How long a solve may take, counted from when ``RouteSolver/solve(_:shape:options:)``
    /// starts (not from when the options were made): then it stops improving and answers with the
    /// best order so far. Exact search for small inputs usually finishes long before; larger
    /// inputs use all of it.
    public var timeLimit: Duration
    /// Seed for the randomised improvement steps: the same input, seed and amount of work give
    /// the same order.
    public var seed: UInt64
    /// Largest number of stops for which a proof of optimality is attempted (asymmetric costs: at
    /// most 30 whatever this says).
    public var exactLimit: Int
    /// Stops after this many improvement rounds even before the deadline; makes a run
    /// reproducible independently of the machine's speed.
    public var maximumKicks: Int?

    /// - Parameters:
    ///   - timeLimit: how long the solver may take (default one second).
    public init(timeLimit: Duration = .seconds(1), seed: UInt64 = 1, exactLimit: Int = 60, maximumKicks: Int? = nil) {
        self.timeLimit = timeLimit
        self.seed = seed
        self.exactLimit = exactLimit
        self.maximumKicks = maximumKicks
    }
}

/// A visiting order and what is known about it.
public struct Route: Sendable, Equatable {
    /// The stops in visiting order (indices into the problem). A round trip lists each stop once
    /// and returns from the last to the first.
    public let order: [Int]
    /// The total cost, in ``RouteCosts/unit``; a round trip includes the leg back.
    public let length: Double
    /// True when no shorter order exists (within 1e-9 relative for non-integral costs).
    public let isProvenOptimal: Bool
    /// The best lower bound known on the optimum: equal to `length` when proven.
    public let lowerBound: Double
    /// The method that produced the order and the bound.
    public let method: String
    /// The cost of each leg, in order (a round trip's last leg returns to the first stop).
    public let legs: [Double]

    /// How far above the lower bound the length may be, as a fraction (0 when proven).
    public var gapBound: Double {
        lowerBound > 0 ? max(0, (length - lowerBound) / lowerBound) : (length > 0 ? .infinity : 0)
    }
}
