/// Errors raised when a value handed to GeoCore is outside what it can represent.
///
/// Every case carries the offending input so the message can name it; `description` says what
/// is valid, in words a user at a terminal can act on.
public enum GeoCoreError: ClassifiedError, Sendable, Equatable {
    /// A latitude that is NaN, infinite or outside [-90, 90].
    case invalidLatitude(Double)
    /// A longitude that is NaN, infinite or outside [-180, 180].
    case invalidLongitude(Double)
    /// A distance string that could not be parsed, with the reason.
    case invalidDistance(String, reason: String)
    /// A distance that is negative, NaN or infinite.
    case invalidDistanceValue(Double)
    /// A bounding box whose south edge is north of its north edge, or with a bad edge.
    case invalidBoundingBox(String, reason: String)
    /// GeoJSON that does not follow RFC 7946.
    case invalidGeoJSON(String)

    public var description: String {
        switch self {
        case .invalidLatitude(let value):
            return "latitude \(Self.format(value)) is invalid: it must be a number from -90 to 90"
        case .invalidLongitude(let value):
            return "longitude \(Self.format(value)) is invalid: it must be a number from -180 to 180"
        case .invalidDistance(let text, let reason):
            return "distance '\(text)' is invalid: \(reason)"
        case .invalidDistanceValue(let value):
            return "distance \(Self.format(value)) m is invalid: it must be a finite number of metres, 0 or more"
        case .invalidBoundingBox(let text, let reason):
            return "bounding box '\(text)' is invalid: \(reason)"
        case .invalidGeoJSON(let reason):
            return "invalid GeoJSON: \(reason)"
        }
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-infinity" : "infinity" }
        return String(value)
    }
}

extension GeoCoreError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        .invalidInput
    }
}
