import Foundation

/// A non-negative length, stored in metres.
///
/// Parses the forms people type: `20mi`, `32.2km`, `800m`, `1200ft`, `0.5nmi`, `15 km`, and a bare
/// number as metres.
///
/// ```swift
/// let radius = try Distance(parsing: "20mi")   // 32 186.88 m
/// radius.formatted(in: .kilometers)              // "32.187km"
/// ```
public struct Distance: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The length in metres: finite and ≥ 0.
    public let meters: Double

    /// Creates a distance from metres.
    /// - Throws: ``GeoCoreError/invalidDistanceValue(_:)`` for negative, NaN or infinite values.
    public init(meters: Double) throws {
        guard meters.isFinite, meters >= 0 else { throw GeoCoreError.invalidDistanceValue(meters) }
        self.meters = meters
    }

    /// Creates a distance from a value in `unit`.
    public init(_ value: Double, _ unit: DistanceUnit) throws {
        guard value.isFinite, value >= 0 else { throw GeoCoreError.invalidDistanceValue(value) }
        try self.init(meters: value * unit.metersPerUnit)
    }

    /// A distance known to be valid (constants, results of GeoCore's own computations).
    public init(uncheckedMeters meters: Double) {
        assert(meters.isFinite && meters >= 0, "invalid distance \(meters)")
        self.meters = meters
    }

    public static let zero = Distance(uncheckedMeters: 0)

    /// Half the WGS84 meridian circumference (20 003 931 m): no two points on Earth are further
    /// apart along the ellipsoid, so a radius this large covers the whole planet.
    public static let halfMeridian = Distance(uncheckedMeters: WGS84.halfMeridianLength)

    /// Parses `"<number><unit>"`, with optional spaces, unit case-insensitive. A bare number is
    /// metres.
    /// - Throws: ``GeoCoreError/invalidDistance(_:reason:)`` naming the input and what is valid.
    public init(parsing text: String) throws {
        guard var (numberPart, unitPart) = Self.numberAndUnit(text) else {
            throw GeoCoreError.invalidDistance(text, reason: "it is empty; write a number and a unit, e.g. 20mi, 5km, 800m")
        }
        // "5e" cannot be a number; let "e" belong to no unit either. Guard odd splits like "1e3km".
        if Double(numberPart) == nil, let eIndex = numberPart.lastIndex(where: { $0 == "e" || $0 == "E" }) {
            unitPart = String(numberPart[eIndex...]).lowercased() + unitPart
            numberPart = String(numberPart[..<eIndex])
        }
        guard !numberPart.isEmpty else {
            throw GeoCoreError.invalidDistance(text, reason: "it has no number; write a number and a unit, e.g. 20mi, 5km, 800m")
        }
        guard let value = Double(numberPart) else {
            throw GeoCoreError.invalidDistance(text, reason: "'\(numberPart)' is not a number; write e.g. 20mi, 5km, 800m")
        }
        let unit: DistanceUnit
        if unitPart.isEmpty {
            unit = .meters
        } else if let known = DistanceUnit(symbol: unitPart) {
            unit = known
        } else {
            throw GeoCoreError.invalidDistance(
                text, reason: "unknown unit '\(unitPart)'; valid units are \(DistanceUnit.validSymbolsList)")
        }
        guard value.isFinite else {
            throw GeoCoreError.invalidDistance(text, reason: "it must be a finite number")
        }
        guard value >= 0 else {
            throw GeoCoreError.invalidDistance(text, reason: "it is negative; a distance must be 0 or more")
        }
        self.meters = value * unit.metersPerUnit
        guard meters.isFinite else {
            throw GeoCoreError.invalidDistance(text, reason: "it is too large")
        }
    }

    /// The text split where the number ends: the number as written and the unit, trimmed and
    /// lowercased; nil when the text is only spaces and tabs.
    static func numberAndUnit(_ text: String) -> (number: String, unit: String)? {
        asciiNumberAndUnit(text) ?? unicodeNumberAndUnit(text)
    }

    /// ``numberAndUnit(_:)`` with Foundation's whitespace and Unicode's numbers and case: for
    /// any text.
    static func unicodeNumberAndUnit(_ text: String) -> (number: String, unit: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let numberEnd =
            trimmed.firstIndex { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E") }
            ?? trimmed.endIndex
        return (String(trimmed[..<numberEnd]), trimmed[numberEnd...].trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// ``numberAndUnit(_:)`` byte by byte for ASCII text (every query string's radius), where
    /// spaces and tabs are the only whitespace, digits the only numbers and A–Z the only
    /// capitals; nil for other text. A request's radius took 2–3 % of a near query's server CPU
    /// through Foundation's trimming and Unicode's properties.
    static func asciiNumberAndUnit(_ text: String) -> (number: String, unit: String)?? {
        var text = text
        return text.withUTF8 { bytes -> (number: String, unit: String)?? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return .none }
            func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            guard let first = bytes.firstIndex(where: { !isBlank($0) }) else { return .some(nil) }
            let last = bytes.lastIndex(where: { !isBlank($0) })!
            var numberEnd = first
            while numberEnd <= last {
                let byte = bytes[numberEnd]
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                        || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                else { break }
                numberEnd += 1
            }
            var unitStart = numberEnd
            while unitStart <= last && isBlank(bytes[unitStart]) { unitStart += 1 }
            let number = String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<numberEnd]), as: UTF8.self)
            let unit =
                unitStart > last
                ? ""
                : String(unsafeUninitializedCapacity: last + 1 - unitStart) { buffer in
                    for (offset, byte) in bytes[unitStart...last].enumerated() {
                        buffer[offset] = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
                    }
                    return last + 1 - unitStart
                }
            return .some((number, unit))
        }
    }

    /// The value expressed in `unit`.
    public func value(in unit: DistanceUnit) -> Double { meters / unit.metersPerUnit }

    /// Formats the distance in `unit` with up to `fractionDigits` decimals and no trailing zeros,
    /// e.g. `"20mi"`, `"32.187km"`. Parsing the result gives back the distance (to that precision).
    public func formatted(in unit: DistanceUnit = .meters, fractionDigits: Int = 3) -> String {
        var number = String(format: "%.\(fractionDigits)f", value(in: unit))
        if number.contains(".") {
            while number.hasSuffix("0") { number.removeLast() }
            if number.hasSuffix(".") { number.removeLast() }
        }
        return number + unit.symbol
    }

    public var description: String { formatted() }

    public static func < (lhs: Distance, rhs: Distance) -> Bool { lhs.meters < rhs.meters }

    public init(from decoder: any Decoder) throws {
        try self.init(meters: try decoder.singleValueContainer().decode(Double.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(meters)
    }
}

/// Units a ``Distance`` can be parsed from and formatted in.
public enum DistanceUnit: String, Sendable, CaseIterable, Codable {
    case meters, kilometers, miles, feet, yards, nauticalMiles

    /// Exact conversion factors (international mile, foot and yard; international nautical mile).
    public var metersPerUnit: Double {
        switch self {
        case .meters: return 1
        case .kilometers: return 1000
        case .miles: return 1609.344
        case .feet: return 0.3048
        case .yards: return 0.9144
        case .nauticalMiles: return 1852
        }
    }

    /// The canonical symbol used when formatting.
    public var symbol: String {
        switch self {
        case .meters: return "m"
        case .kilometers: return "km"
        case .miles: return "mi"
        case .feet: return "ft"
        case .yards: return "yd"
        case .nauticalMiles: return "nmi"
        }
    }

    /// Accepted spellings, lower case.
    static let symbols: [String: DistanceUnit] = [
        "m": .meters, "meter": .meters, "meters": .meters, "metre": .meters, "metres": .meters,
        "km": .kilometers, "kilometer": .kilometers, "kilometers": .kilometers,
        "kilometre": .kilometers, "kilometres": .kilometers,
        "mi": .miles, "mile": .miles, "miles": .miles,
        "ft": .feet, "foot": .feet, "feet": .feet,
        "yd": .yards, "yard": .yards, "yards": .yards,
        "nmi": .nauticalMiles, "nm": .nauticalMiles,
    ]

    static let validSymbolsList = "m, km, mi, ft, yd, nmi"

    /// The unit for a symbol such as `km` or `miles` (case-insensitive), or nil.
    public init?(symbol: String) {
        guard let unit = DistanceUnit.symbols[symbol.lowercased()] else { return nil }
        self = unit
    }
}
