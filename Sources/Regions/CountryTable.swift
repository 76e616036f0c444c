import Foundation

/// Country names and continents by ISO alpha-2 code, from GeoNames' `countries.csv`
/// (`country_code,iso3,iso_numeric,name,continent,…`).
public struct CountryTable: Sendable {
    public struct Country: Sendable, Hashable {
        public var code: String
        public var name: String
        /// `AF AN AS EU NA OC SA`.
        public var continent: String
    }

    public private(set) var byCode: [String: Country] = [:]

    public init() {}

    /// Reads the CSV at `path`; a missing file gives an empty table (answers then carry no
    /// country names or continents).
    public init(contentsOf path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n").dropFirst() {
            let fields = CountryTable.fields(of: line)
            guard fields.count >= 5, fields[0].count == 2 else { continue }
            let code = fields[0]
            byCode[code] = Country(code: code, name: fields[3].trimmingCharacters(in: .whitespaces), continent: fields[4])
        }
    }

    /// The fields of one CSV line, quotes removed (`"Bonaire, Saint Eustatius and Saba "` is one field).
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var previous: Character? = nil
        for character in line {
            if character == "\"" {
                if !quoted, previous == "\"" { current.append("\"") }  // a doubled quote inside quotes
                quoted.toggle()
            } else if character == ",", !quoted {
                fields.append(current)
                current = ""
            } else if character != "\r" {
                current.append(character)
            }
            previous = character
        }
        fields.append(current)
        return fields
    }

    public subscript(code: String?) -> Country? { code.flatMap { byCode[$0.uppercased()] } }
}

extension CountryTable: CustomStringConvertible {
    /// A short summary (see ``RegionLocator/description``).
    public var description: String { "CountryTable(\(byCode.count) countries)" }
}
