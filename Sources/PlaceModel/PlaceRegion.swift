import Foundation

/// A continent, by the two-letter codes GeoNames uses.
public enum Continent: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case africa = "AF", antarctica = "AN", asia = "AS", europe = "EU", northAmerica = "NA", oceania = "OC",
        southAmerica = "SA"

    /// The English name (`Europe`, `North America`).
    public var name: String {
        switch self {
        case .africa: "Africa"
        case .antarctica: "Antarctica"
        case .asia: "Asia"
        case .europe: "Europe"
        case .northAmerica: "North America"
        case .oceania: "Oceania"
        case .southAmerica: "South America"
        }
    }

    /// A continent from its code or English name, case-insensitively (`eu`, `Europe`,
    /// `north america`); nil for anything else.
    public init?(codeOrName text: String) {
        let folded = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard
            let match = Continent.allCases.first(where: {
                $0.rawValue.lowercased() == folded || $0.name.lowercased() == folded
            })
        else { return nil }
        self = match
    }

    public static func < (lhs: Continent, rhs: Continent) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where a place lies politically: its country (ISO 3166-1 alpha-2, upper case) and continent.
///
/// A place in no country (open sea, Antarctica's claims aside, the few disputed areas no
/// boundary covers) has a nil ``countryCode`` and may still have a continent.
public struct PlaceRegion: Sendable, Hashable, Codable {
    public var countryCode: String?
    public var continent: Continent?

    public init(countryCode: String?, continent: Continent?) {
        self.countryCode = countryCode
        self.continent = continent
    }
}
