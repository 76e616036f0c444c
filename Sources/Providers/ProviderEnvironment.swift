import Foundation

/// Keys, base URLs and API generations, read from environment variables.
///
/// | provider | key | base URL override | default base |
/// |---|---|---|---|
/// | Google | `GOOGLE_PLACES_API_KEY` | `GEOQUERY_GOOGLE_BASE_URL` | `https://places.googleapis.com` (legacy: `https://maps.googleapis.com`) |
/// | Yelp | `YELP_API_KEY` | `GEOQUERY_YELP_BASE_URL` | `https://api.yelp.com` |
/// | Foursquare | `FOURSQUARE_API_KEY` | `GEOQUERY_FOURSQUARE_BASE_URL` | `https://places-api.foursquare.com` (v3: `https://api.foursquare.com`) |
/// | HERE | `HERE_API_KEY` | `GEOQUERY_HERE_BASE_URL` (one base for all hosts) | `https://{browse,discover,lookup}.search.hereapi.com` |
/// | Open-Meteo | none | `GEOQUERY_OPENMETEO_BASE_URL` | `https://api.open-meteo.com` |
/// | OpenWeatherMap | `OPENWEATHERMAP_API_KEY` | `GEOQUERY_OPENWEATHERMAP_BASE_URL` | `https://api.openweathermap.org` |
/// | Pirate Weather | `PIRATEWEATHER_API_KEY` | `GEOQUERY_PIRATEWEATHER_BASE_URL` | `https://api.pirateweather.net` |
/// | Wikimedia Commons | none | `GEOQUERY_COMMONS_BASE_URL` | `https://commons.wikimedia.org` |
/// | Pixabay | `PIXABAY_API_KEY` | `GEOQUERY_PIXABAY_BASE_URL` | `https://pixabay.com` |
/// | Unsplash | `UNSPLASH_ACCESS_KEY` | `GEOQUERY_UNSPLASH_BASE_URL` | `https://api.unsplash.com` |
///
/// `GEOQUERY_GOOGLE_API=new|legacy` and `GEOQUERY_FOURSQUARE_API=places|v3` choose API
/// generations (defaults `new` and `places`).
public struct ProviderEnvironment: Sendable {
    public var variables: [String: String]

    public init(_ variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    /// The variable holding `provider`'s key, if it needs one.
    public static func keyVariable(for provider: ProviderName) -> String? {
        switch provider {
        case .google: return "GOOGLE_PLACES_API_KEY"
        case .yelp: return "YELP_API_KEY"
        case .foursquare: return "FOURSQUARE_API_KEY"
        case .here: return "HERE_API_KEY"
        case .openWeatherMap: return "OPENWEATHERMAP_API_KEY"
        case .pirateWeather: return "PIRATEWEATHER_API_KEY"
        case .pixabay: return "PIXABAY_API_KEY"
        case .unsplash: return "UNSPLASH_ACCESS_KEY"
        case .local, .openMeteo, .wikimediaCommons: return nil
        }
    }

    /// The variable overriding `provider`'s base URL.
    public static func baseURLVariable(for provider: ProviderName) -> String? {
        switch provider {
        case .google: return "GEOQUERY_GOOGLE_BASE_URL"
        case .yelp: return "GEOQUERY_YELP_BASE_URL"
        case .foursquare: return "GEOQUERY_FOURSQUARE_BASE_URL"
        case .here: return "GEOQUERY_HERE_BASE_URL"
        case .openMeteo: return "GEOQUERY_OPENMETEO_BASE_URL"
        case .openWeatherMap: return "GEOQUERY_OPENWEATHERMAP_BASE_URL"
        case .pirateWeather: return "GEOQUERY_PIRATEWEATHER_BASE_URL"
        case .wikimediaCommons: return "GEOQUERY_COMMONS_BASE_URL"
        case .pixabay: return "GEOQUERY_PIXABAY_BASE_URL"
        case .unsplash: return "GEOQUERY_UNSPLASH_BASE_URL"
        case .local: return nil
        }
    }

    /// `provider`'s key.
    /// - Throws: ``ProviderError/missingKey(provider:variable:)`` naming the variable when it is
    ///   unset or blank.
    public func key(for provider: ProviderName) throws -> String {
        guard let variable = Self.keyVariable(for: provider) else { return "" }
        guard let value = variables[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            throw ProviderError.missingKey(provider: provider, variable: variable)
        }
        return value
    }

    /// The override for `provider`'s base URL, if one is set.
    /// - Throws: ``ProviderError/invalidSetting(variable:value:expected:)`` for a value that is
    ///   not an absolute http(s) URL.
    public func baseURLOverride(for provider: ProviderName) throws -> URL? {
        guard let variable = Self.baseURLVariable(for: provider),
            let text = variables[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty
        else { return nil }
        guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else {
            throw ProviderError.invalidSetting(variable: variable, value: text, expected: "an absolute http(s) URL such as http://127.0.0.1:8080")
        }
        return url
    }

    /// The hosts of every base URL this environment overrides (lower case): the operator's own
    /// choice of where a provider's requests go, which may be a local address.
    public var overriddenHosts: Set<String> {
        Set(
            ProviderName.allCases.compactMap { provider in
                (try? baseURLOverride(for: provider))?.host.map { host in
                    (host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host).lowercased()
                }
            })
    }

    /// Google's API generation.
    public func googleGeneration() throws -> GooglePlacesAdapter.Generation {
        try choice("GEOQUERY_GOOGLE_API", default: .new)
    }

    /// Foursquare's API generation.
    public func foursquareGeneration() throws -> FoursquareAdapter.Generation {
        try choice("GEOQUERY_FOURSQUARE_API", default: .places)
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ variable: String, default value: T) throws -> T
    where T.RawValue == String {
        guard let text = variables[variable]?.trimmingCharacters(in: .whitespaces).lowercased(), !text.isEmpty else { return value }
        guard let parsed = T(rawValue: text) else {
            throw ProviderError.invalidSetting(
                variable: variable, value: text,
                expected: T.allCases.map(\.rawValue).joined(separator: " or "))
        }
        return parsed
    }
}

/// Joins a base URL and a path, keeping any path prefix the base has (a proxy's `/google`).
///
/// `path` is written by an adapter; a value that came from elsewhere (a place id, a photo
/// reference) goes in through ``pathSegment(_:)``. Any byte a path may not hold is
/// percent-encoded here as well, so no text makes Foundation trap on an invalid path.
/// - Throws: ``ProviderError/invalidQuery(_:)`` when no URL can be made of the parts.
func endpoint(_ base: URL, _ path: String, query: [(String, String)] = []) throws(ProviderError) -> URL {
    guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
        throw .invalidQuery("the base URL \(base.absoluteString) cannot take a path")
    }
    let basePath = components.percentEncodedPath
    let prefix = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
    components.percentEncodedPath = percentEncodedPath(prefix) + percentEncodedPath(path)
    if !query.isEmpty {
        // `+` and `;` are legal in a query but servers read `+` as a space: encode them.
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "+&=;")
        components.percentEncodedQuery = query.map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
    guard let url = components.url else { throw .invalidQuery("no URL can be made of \(base.absoluteString) and \(path.prefix(100))") }
    return url
}

/// `text` as one path segment: everything but RFC 3986's unreserved characters encoded, `/`
/// and `%` too, so an id can neither leave its segment nor smuggle an escape.
func pathSegment(_ text: some StringProtocol) -> String {
    var encoded = ""
    for byte in text.utf8 {
        if isUnreserved(byte) { encoded.unicodeScalars.append(Unicode.Scalar(byte)) } else { appendEscape(byte, to: &encoded) }
    }
    return encoded
}

/// A path as written, with every byte a path may not hold percent-encoded; `%` followed by two
/// hex digits is kept as the escape it is.
func percentEncodedPath(_ path: String) -> String {
    let bytes = Array(path.utf8)
    var encoded = ""
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) {
            encoded += "%"
        } else if isUnreserved(byte) || "/:@!$&'()*+,;=".utf8.contains(byte) {
            encoded.unicodeScalars.append(Unicode.Scalar(byte))
        } else {
            appendEscape(byte, to: &encoded)
        }
        index += 1
    }
    return encoded
}

private func isUnreserved(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
        || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
}

private func isHexDigit(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
}

private func appendEscape(_ byte: UInt8, to text: inout String) {
    let digits = Array("0123456789ABCDEF".utf8)
    text += "%"
    text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
    text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
}
