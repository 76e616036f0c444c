import GeoCore

/// Errors for values that do not fit the place model.
public enum PlaceModelError: ClassifiedError, Sendable, Equatable {
    /// A place id that is not `source:localId`.
    case invalidPlaceID(String)
    /// A category id that is not dotted lower-case words under a known top level.
    case invalidCategory(String)
    /// A rating outside its scale.
    case invalidRating(Double, scale: Double)
    /// A price level outside 1...4.
    case invalidPriceLevel(Int)

    public var description: String {
        switch self {
        case .invalidPlaceID(let text):
            return
                "place id '\(text)' is invalid: write source:localId, e.g. geonames:2988507 or airport:LFPG (source is lower-case letters, digits, '-' or '_')"
        case .invalidCategory(let text):
            return "category '\(text)' is not in the taxonomy: \(Category.validChoices(for: text))"
        case .invalidRating(let value, let scale):
            return "rating \(value) is outside its scale 0...\(scale)"
        case .invalidPriceLevel(let value):
            return "price level \(value) is invalid: it must be 1, 2, 3 or 4"
        }
    }
}

extension PlaceModelError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        .invalidInput
    }
}
