import Foundation
import PlaceModel
import Regions

/// What a `region=` names: a country, a continent, or a city (resolved by the caller against
/// its city list).
public enum RegionQuery: Sendable, Hashable {
    case country(code: String, name: String)
    case continent(Continent)
    case city(name: String)

    /// Why a region text cannot be read.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// Reads `text`: `country:FR`, `continent:SA` and `city:Paris` say which; otherwise an ISO
    /// 3166 code or a country's name (any case and accents: `fr`, `France`, `côte d'ivoire`),
    /// a continent's code or name (`EU`, `Europe`), and anything else is a city's name.
    /// - Throws: ``Failure`` for an empty text, an unknown prefixed country or continent, and
    ///   the four codes that are both a continent and a country (AF, AS, NA, SA) given bare.
    public init(parsing text: String, countries: CountryTable) throws(Failure) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw Failure(description: "region is empty: give a country (fr, France), a continent (EU, Europe) or a city (Paris)")
        }
        if let colon = trimmed.firstIndex(of: ":") {
            let kind = trimmed[..<colon].lowercased(), value = String(trimmed[trimmed.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            switch kind {
            case "country":
                guard let country = Self.country(value, countries) else {
                    throw Failure(
                        description: "region '\(trimmed)': '\(value)' is not a country; give an ISO 3166 code such as FR or a name such as France")
                }
                self = .country(code: country.code, name: country.name)
            case "continent":
                guard let continent = Continent(codeOrName: value) else {
                    throw Failure(
                        description:
                            "region '\(trimmed)': '\(value)' is not a continent; use one of \(Continent.allCases.map(\.rawValue).joined(separator: ", ")) or a name such as Europe"
                    )
                }
                self = .continent(continent)
            case "city":
                guard !value.isEmpty else { throw Failure(description: "region '\(trimmed)' names no city") }
                self = .city(name: value)
            default:
                throw Failure(description: "region '\(trimmed)': '\(kind)' is not a kind of region; use country:, continent: or city:")
            }
            return
        }
        let continent = Continent(codeOrName: trimmed), country = Self.country(trimmed, countries)
        switch (continent, country) {
        case let (continent?, country?):
            throw Failure(
                description:
                    "region '\(trimmed)' is both a continent (\(continent.name)) and a country (\(country.name)); write continent:\(continent.rawValue) or country:\(country.code)"
            )
        case let (continent?, nil): self = .continent(continent)
        case let (nil, country?): self = .country(code: country.code, name: country.name)
        case (nil, nil): self = .city(name: trimmed)
        }
    }

    /// A country by code or by name, case and accents ignored.
    static func country(_ text: String, _ countries: CountryTable) -> CountryTable.Country? {
        if text.count == 2, let country = countries[text] { return country }
        let folded = fold(text)
        return countries.byCode.values.first { fold($0.name) == folded }
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
