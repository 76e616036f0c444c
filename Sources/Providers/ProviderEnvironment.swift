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
              let text = variables[variable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw ProviderError.invalidSetting(variable: variable, value: text, expected: "an absolute http(s) URL such as http://127.0.0.1:8080")
        }
        return url
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
            throw ProviderError.invalidSetting(variable: variable, value: text,
                                               expected: T.allCases.map(\.rawValue).joined(separator: " or "))
        }
        return parsed
    }
}

/// Joins a base URL and a path, keeping any path prefix the base has (a proxy's `/google`).
func endpoint(_ base: URL, _ path: String, query: [(String, String)] = []) -> URL {
    var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
    let prefix = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
    components.percentEncodedPath = prefix + path
    if !query.isEmpty {
        // `+` and `;` are legal in a query but servers read `+` as a space: encode them.
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "+&=;")
        components.percentEncodedQuery = query.map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }.joined(separator: "&")
    }
    return components.url!
}
