import Foundation
import GeoCore
import PlaceModel

/// Reading the filter values people type, for the CLI and the service alike: each function
/// names the bad value and what is valid, and takes the parameter's name as its face spells it
/// (`price` over HTTP, `--price` in the CLI).
public enum FilterInput {
    /// `2` or a range `1-3` of price levels 1–4.
    public static func priceLevels(_ text: String, name: String) throws(FilterInputError) -> ClosedRange<Int> {
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil,
            (1...4).contains(low), (1...4).contains(high), low <= high
        else {
            throw FilterInputError("\(name) '\(text)' is invalid: give a level from 1 to 4 or a range such as 1-3")
        }
        return low...high
    }

    /// ISO 3166-1 alpha-2 codes, any case (`fr`, `FR`), each a country in `known` when that
    /// is given; answered upper case.
    public static func countries(_ values: [String], name: String, known: Set<String>?) throws(FilterInputError) -> [String] {
        var result: [String] = []
        for value in values {
            let code = value.uppercased()
            guard code.utf8.count == 2, code.utf8.allSatisfy({ (65...90).contains($0) }), known.map({ $0.contains(code) }) ?? true else {
                throw FilterInputError("\(name) '\(value)' is invalid: give an ISO 3166-1 alpha-2 country code such as FR, US or JP")
            }
            if !result.contains(code) { result.append(code) }
        }
        return result
    }

    /// Continent codes or names, any case (`EU`, `europe`, `North America`).
    public static func continents(_ values: [String], name: String) throws(FilterInputError) -> [Continent] {
        var result: [Continent] = []
        for value in values {
            guard let continent = Continent(codeOrName: value) else {
                throw FilterInputError(
                    "\(name) '\(value)' is invalid: give one of "
                        + Continent.allCases.map(\.rawValue).joined(separator: ", ") + " (or the name, e.g. Europe)")
            }
            if !result.contains(continent) { result.append(continent) }
        }
        return result
    }

    /// `true`/`false` (also `1`/`0`, `yes`/`no`).
    public static func flag(_ text: String, name: String) throws(FilterInputError) -> Bool {
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw FilterInputError("\(name) '\(text)' is invalid: give true or false")
        }
    }

    /// An RFC 3339 instant with its offset: `2026-11-23T18:30:00Z`, `2026-11-23T18:30:00+01:00`.
    public static func instant(_ text: String, name: String) throws(FilterInputError) -> Date {
        if let date = RFC3339.date(text) { return date }
        throw FilterInputError("\(name) '\(text)' is invalid: give a time with its offset, e.g. 2026-11-23T18:30:00Z or 2026-11-23T18:30:00+01:00")
    }
}

/// A filter value that cannot be read; the message names it and what is valid.
public struct FilterInputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
