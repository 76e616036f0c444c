import GeoCore

/// Errors every store gives for a query it cannot answer as asked.
///
/// `description` names the bad value and what is valid, in words that suit any face (a CLI, an
/// HTTP answer, a library caller).
public enum PlaceQueryError: ClassifiedError, Sendable, Hashable {
    /// A page cursor that is malformed or belongs to another query.
    case invalidCursor(String, reason: String)
    /// A limit or count outside its valid range: what it was, and what is valid.
    case invalidArgument(name: String, value: String, valid: String)
    /// The query ran past its ``QueryDeadline`` and was stopped.
    case deadlineExceeded
    /// The store could not be reached (a networked database that does not answer); the
    /// sentence says which and why. Worth trying again later.
    case storeUnavailable(String)

    public var description: String {
        switch self {
        case .invalidCursor(let text, let reason):
            return "cursor '\(text)' is invalid: \(reason); start the query again without a cursor"
        case .invalidArgument(let name, let value, let valid):
            return "\(name) \(value) is invalid: \(valid)"
        case .deadlineExceeded:
            return "the query did not finish in the time allowed; narrow it (a smaller radius or box, a filter that matches more)"
        case .storeUnavailable(let sentence):
            return sentence
        }
    }
}

/// The time by which the queries of the current task must be answered. A server sets it per
/// request (`QueryDeadline.$current.withValue(…)`); a store that can stop work midway (SQLite's
/// progress handler, PostgreSQL's statement timeout) gives up at that time with
/// ``PlaceQueryError/deadlineExceeded``, so a query that would scan for seconds frees its thread.
public enum QueryDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?
}

extension PlaceQueryError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        switch self {
        case .deadlineExceeded: .unavailable(retryAfter: .seconds(1))
        case .storeUnavailable: .unavailable(retryAfter: .seconds(5))
        default: .invalidInput
        }
    }
}
