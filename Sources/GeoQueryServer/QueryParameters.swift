import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery

/// A request's query string, read strictly: a parameter the route does not know, a value that
/// does not parse, or a parameter given twice that may be given once is a 400 that names it
/// and says what is valid. Names are the CLI's option names with `_` for `-`.
struct QueryParameters {
    /// The pairs in the order given. A query string holds a handful, so looking one up by
    /// scanning beats hashing every name (a near query looks up some fifteen).
    private var pairs: [(name: String, value: String)] = []

    init(_ request: Request, allowed: [String]) throws {
        try self.init(query: request.uri.query ?? "", allowed: allowed)
    }

    /// From a raw query string (the part after `?`).
    init(query: String, allowed: [String]) throws {
        pairs = Self.pairs(query: query).map { (name: $0.0, value: $0.1) }
        for (key, _) in pairs where !allowed.contains(key) {
            throw APIProblem.badRequest(
                allowed.isEmpty
                    ? "unknown query parameter '\(key)'; this route takes none"
                    : "unknown query parameter '\(key)'; this route takes \(allowed.joined(separator: ", "))")
        }
    }

    /// The query string as `application/x-www-form-urlencoded` pairs, in order: `+` is a space,
    /// then percent-escapes are decoded (`query=sao+paulo` and `query=sao%20paulo` are the same).
    static func pairs(_ request: Request) -> [(String, String)] { pairs(query: request.uri.query ?? "") }

    /// Byte by byte: splitting the `String` on `&` and `=` walked it by `Character` (grapheme
    /// breaking), 2–3 % of a near query's CPU in `geoquery serve`. The separators are ASCII, so
    /// every piece between them is whole UTF-8.
    static func pairs(query: String) -> [(String, String)] {
        guard !query.isEmpty else { return [] }
        var query = query
        return query.withUTF8 { bytes in
            var result: [(String, String)] = []
            var start = 0
            while start < bytes.count {
                var end = start
                var equals: Int?
                while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                    if equals == nil, bytes[end] == UInt8(ascii: "=") { equals = end }
                    end += 1
                }
                if end > start {
                    let name = formDecoded(UnsafeBufferPointer(rebasing: bytes[start..<(equals ?? end)]))
                    let value = equals.map { formDecoded(UnsafeBufferPointer(rebasing: bytes[($0 + 1)..<end])) } ?? ""
                    result.append((name, value))
                }
                start = end + 1
            }
            return result
        }
    }

    /// One name or value of a query string: `+` is a space, then `%XX` escapes are decoded. A
    /// malformed escape, or escapes that decode to invalid UTF-8, leave the part as it is (with
    /// `+` as space), as Foundation's `removingPercentEncoding` returning nil did. Byte by byte:
    /// Foundation's two passes were 3–4 % of a query's CPU in `geoquery serve`.
    static func formDecoded(_ part: Substring) -> String {
        var part = part
        return part.withUTF8 { formDecoded($0) }
    }

    /// ``formDecoded(_:)-(Substring)`` of whole UTF-8 bytes.
    static func formDecoded(_ part: UnsafeBufferPointer<UInt8>) -> String {
        guard part.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else {
            return String(decoding: part, as: UTF8.self)
        }
        var bytes = Array(part)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "+") { bytes[index] = UInt8(ascii: " ") }
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else {
                return String(decoding: bytes, as: UTF8.self)
            }
            decoded.append(high << 4 | low)
            index += 3
        }
        return String(validating: decoded, as: UTF8.self) ?? String(decoding: bytes, as: UTF8.self)
    }

    /// The one value of `name`, or nil. An empty value (`cursor=`, as an HTML form sends an
    /// empty field) counts as absent.
    func single(_ name: String) throws -> String? {
        guard let first = pairs.firstIndex(where: { $0.name == name }) else { return nil }
        let count = pairs[first...].count { $0.name == name }
        guard count == 1 else { throw APIProblem.badRequest("query parameter '\(name)' is given \(count) times; give it once") }
        return pairs[first].value.isEmpty ? nil : pairs[first].value
    }

    func required(_ name: String, example: String) throws -> String {
        guard let value = try single(name) else {
            throw APIProblem.badRequest("query parameter '\(name)' is required, e.g. \(name)=\(example)")
        }
        return value
    }

    /// Every value of a repeatable parameter; a comma-separated value counts as several.
    func list(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.flatMap { $0.value.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
    }

    func double(_ name: String, example: String) throws -> Double? {
        guard let text = try single(name) else { return nil }
        guard let value = Double(text) else {
            throw APIProblem.badRequest("\(name) '\(text)' is not a number, e.g. \(name)=\(example)")
        }
        guard value.isFinite else {
            throw APIProblem.badRequest("\(name) '\(text)' is not a finite number, e.g. \(name)=\(example)")
        }
        return value
    }

    func int(_ name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let text = try single(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIProblem.badRequest("\(name) '\(text)' is invalid: it must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// `lat` and `lon` as a validated coordinate.
    func coordinate() throws -> Coordinate {
        guard let latitude = try double("lat", example: "48.8584") else {
            throw APIProblem.badRequest("query parameter 'lat' is required, e.g. lat=48.8584")
        }
        guard let longitude = try double("lon", example: "2.2945") else {
            throw APIProblem.badRequest("query parameter 'lon' is required, e.g. lon=2.2945")
        }
        return try Coordinate(latitude: latitude, longitude: longitude)
    }

    /// `lat` and `lon` when both are given, nil when neither is; one without the other is a 400.
    func optionalCoordinate() throws -> Coordinate? {
        let hasLatitude = try single("lat") != nil, hasLongitude = try single("lon") != nil
        guard hasLatitude || hasLongitude else { return nil }
        return try coordinate()
    }

    func distance(_ name: String) throws -> Distance? {
        guard let text = try single(name) else { return nil }
        do { return try Distance(parsing: text) } catch { throw APIProblem.badRequest("\(name): \(error)") }
    }

    /// The filters every place query takes: `category` (repeatable, any of), `query`, `source`
    /// (repeatable), `min_rating` (0–5), `price` (`2` or `1-3`), `country` and `continent`
    /// (repeatable), `open_now` (`true`) or `open_at` (an RFC 3339 time).
    func filter(countries known: Set<String>? = nil, now: Date = Date()) throws -> PlaceFilter {
        // A category outside the taxonomy throws PlaceModelError: 400 with its sentence (Problem.swift).
        let categories = try list("category").map { try Category($0) }
        let minimumRating = try double("min_rating", example: "4")
        if let minimumRating, !(0...5).contains(minimumRating) {
            throw APIProblem.badRequest("min_rating \(minimumRating) is invalid: it must be from 0 to 5")
        }
        do {
            let prices = try single("price").map { text throws(FilterInputError) in try FilterInput.priceLevels(text, name: "price") }
            let countries = try FilterInput.countries(list("country"), name: "country", known: known)
            let continents = try FilterInput.continents(list("continent"), name: "continent")
            let openNow = try single("open_now").map { text throws(FilterInputError) in try FilterInput.flag(text, name: "open_now") } ?? false
            var openAt = try single("open_at").map { text throws(FilterInputError) in try FilterInput.instant(text, name: "open_at") }
            if openNow {
                guard openAt == nil else { throw FilterInputError("open_now and open_at are both given: give one") }
                openAt = now
            }
            let text = try single("query").flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            return PlaceFilter(
                categories: categories, text: text, minimumRating: minimumRating, priceLevels: prices,
                sources: list("source"), countries: countries, continents: continents, openAt: openAt)
        } catch let error as FilterInputError {
            throw APIProblem.badRequest(error.description)
        }
    }
}
