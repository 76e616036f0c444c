/// What each provider's own place ids look like, checked where an id enters (a favourite, a
/// plan's place) so that an id is data and never URL text.
///
/// - Google: a place id, `[A-Za-z0-9_-]`, up to 512 characters (`ChIJN1t_tDeuEmsRUsoyG83frY4`).
/// - Yelp: a business id or alias, letters (any script), digits, `-` and `_`, up to 256.
/// - Foursquare: `[A-Za-z0-9]`, up to 64 (`4b058754f964a52073a922e3`).
/// - HERE: `here:pds:place:…`, `[A-Za-z0-9:._=-]`, up to 256.
extension ProviderName {
    /// Whether `localID` (what follows `google:`, `yelp:`…) is an id this provider could have
    /// given. Sources other than the remote place providers take any local id.
    public func isValidLocalID(_ localID: some StringProtocol) -> Bool {
        guard let rule = localIDRule else { return true }
        let count = localID.unicodeScalars.count
        guard count > 0, count <= rule.maximumLength else { return false }
        return localID.unicodeScalars.allSatisfy(rule.allows)
    }

    /// - Throws: ``ProviderError/invalidPlaceID(provider:localID:expected:)`` when `localID` is
    ///   not an id this provider could have given.
    public func checkLocalID(_ localID: some StringProtocol) throws(ProviderError) {
        guard let expected = localIDDescription, !isValidLocalID(localID) else { return }
        throw .invalidPlaceID(provider: self, localID: String(localID.prefix(100)), expected: expected)
    }

    /// What a valid local id of this provider is, for an error message; nil for sources that
    /// take any local id.
    public var localIDDescription: String? {
        guard let rule = localIDRule else { return nil }
        return "a \(rawValue) id is 1 to \(rule.maximumLength) of \(rule.alphabet)"
    }

    private var localIDRule: (maximumLength: Int, alphabet: String, allows: @Sendable (Unicode.Scalar) -> Bool)? {
        switch self {
        case .google: return (512, "A-Z, a-z, 0-9, '-' and '_'", { $0.isASCIIAlphanumeric || $0 == "-" || $0 == "_" })
        case .yelp:
            return (
                256, "letters, digits, '-' and '_'",
                {
                    $0.isASCIIAlphanumeric || $0 == "-" || $0 == "_"
                        || ($0.value > 0x7F && ($0.properties.isAlphabetic || $0.properties.numericType != nil))
                }
            )
        case .foursquare: return (64, "A-Z, a-z and 0-9", { $0.isASCIIAlphanumeric })
        case .here: return (256, "A-Z, a-z, 0-9, ':', '.', '_', '=' and '-'", { $0.isASCIIAlphanumeric || ":._=-".unicodeScalars.contains($0) })
        default: return nil
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIAlphanumeric: Bool {
        (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
    }
}
