import Foundation
import GeoCore
import PlaceModel
import PlaceStore

/// What the query was, echoed in JSON answers.
struct QueryDescription: Encodable {
    var kind: String
    var lat: Double?
    var lon: Double?
    var radiusMeters: Double?
    var bbox: [Double]?
    var id: String?
    var categories: [String]?
    var text: String?
    var sources: [String]?
    var minimumRating: Double?
    var limit: Int?
    var line: Int?

    init(kind: String, lat: Double? = nil, lon: Double? = nil, radiusMeters: Double? = nil, bbox: [Double]? = nil,
         id: String? = nil, filter: PlaceFilter = .none, limit: Int? = nil, line: Int? = nil) {
        self.kind = kind
        self.lat = lat
        self.lon = lon
        self.radiusMeters = radiusMeters
        self.bbox = bbox
        self.id = id
        categories = filter.categories.isEmpty ? nil : filter.categories.map(\.identifier)
        text = filter.text
        sources = filter.sources.isEmpty ? nil : filter.sources
        minimumRating = filter.minimumRating
        self.limit = limit
        self.line = line
    }

    enum CodingKeys: String, CodingKey {
        case kind, lat, lon, radiusMeters = "radius_m", bbox, id, categories, text = "query", sources
        case minimumRating = "min_rating", limit, line
    }
}

/// The JSON answer contract: `{"query":{…},"count":N,"places":[…],"next_cursor":string|null}`.
struct Answer: Encodable {
    var query: QueryDescription
    var page: PlacePage

    enum CodingKeys: String, CodingKey { case query, count, places, nextCursor = "next_cursor" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(query, forKey: .query)
        try container.encode(page.matches.count, forKey: .count)
        try container.encode(page.matches.map(PlaceJSON.init), forKey: .places)
        if let cursor = page.nextCursor { try container.encode(cursor, forKey: .nextCursor) } else { try container.encodeNil(forKey: .nextCursor) }
    }
}

/// One place in JSON: `id, name, lat, lon, distance_m, categories, source` always (distance_m is
/// null without a centre), then the optional fields that are known.
struct PlaceJSON: Encodable {
    var match: PlaceMatch

    init(_ match: PlaceMatch) { self.match = match }

    enum CodingKeys: String, CodingKey {
        case id, name, lat, lon, distanceMeters = "distance_m", categories, source, address, rating
        case priceLevel = "price_level", phone, website, openingHours = "opening_hours", photos, tags, gem
        case importedAt = "imported_at", fetchedAt = "fetched_at"
    }

    func encode(to encoder: any Encoder) throws {
        let place = match.place
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(place.id.rawValue, forKey: .id)
        try container.encode(place.name, forKey: .name)
        try container.encode(place.coordinate.latitude, forKey: .lat)
        try container.encode(place.coordinate.longitude, forKey: .lon)
        if let distance = match.distance {
            try container.encode((distance.meters * 1000).rounded() / 1000, forKey: .distanceMeters)
        } else {
            try container.encodeNil(forKey: .distanceMeters)
        }
        try container.encode(place.categories.map(\.identifier), forKey: .categories)
        try container.encode(place.provenance.source, forKey: .source)
        if let address = place.address { try container.encode(AddressJSON(address), forKey: .address) }
        if let rating = place.rating { try container.encode(RatingJSON(rating), forKey: .rating) }
        try container.encodeIfPresent(place.priceLevel?.level, forKey: .priceLevel)
        try container.encodeIfPresent(place.phone, forKey: .phone)
        try container.encodeIfPresent(place.website, forKey: .website)
        try container.encodeIfPresent(place.openingHours, forKey: .openingHours)
        if !place.photos.isEmpty { try container.encode(place.photos, forKey: .photos) }
        if !place.tags.isEmpty { try container.encode(place.tags, forKey: .tags) }
        try container.encodeIfPresent(place.gem, forKey: .gem)
        try container.encodeIfPresent(place.provenance.importedAt.map(iso8601), forKey: .importedAt)
        try container.encodeIfPresent(place.provenance.fetchedAt.map(iso8601), forKey: .fetchedAt)
    }
}

private func iso8601(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

struct AddressJSON: Encodable {
    var street, locality, region, postcode, countryCode, formatted: String?
    init(_ address: Address) {
        street = address.street; locality = address.locality; region = address.region
        postcode = address.postcode; countryCode = address.countryCode; formatted = address.formatted
    }
    enum CodingKeys: String, CodingKey { case street, locality, region, postcode, countryCode = "country_code", formatted }
}

struct RatingJSON: Encodable {
    var value: Double
    var count: Int?
    var scale: Double
    init(_ rating: Rating) { value = rating.value; count = rating.count; scale = rating.originalScale }
}

/// Writes answers in the requested format to standard output.
enum Renderer {
    static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .withoutEscapingSlashes] : [.withoutEscapingSlashes]
        return encoder
    }

    static func jsonLine<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder(pretty: false).encode(value), as: UTF8.self)
    }

    static func emit(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func write(_ answer: Answer, format: OutputFormat, detailed: Bool = false) throws {
        switch format {
        case .json:
            emit(String(decoding: try encoder(pretty: true).encode(answer), as: UTF8.self) + "\n")
        case .geojson:
            emit(String(decoding: try encoder(pretty: true).encode(GeoJSONAnswer(answer: answer)), as: UTF8.self) + "\n")
        case .csv:
            emit(csv(answer))
        case .table:
            emit(detailed ? detailTable(answer) : table(answer))
        }
    }

    static func write(_ statistics: IndexStatistics, format: OutputFormat) throws {
        switch format {
        case .table, .csv:
            var out = "index: \(statistics.path)\nschema version: \(statistics.schemaVersion)\n"
            out += String(format: "file size: %.1f MB\nplaces: %d\n", Double(statistics.fileSize) / 1_000_000, statistics.total)
            let rows = statistics.sources.map { source in
                [source.name, String(source.count), source.extent.description, source.lastImport ?? "-"]
            }
            out += TextTable(headers: ["source", "places", "extent (W,S,E,N)", "last import"], rows: rows,
                             rightAligned: [1]).rendered
            emit(out)
        case .json, .geojson:
            emit(String(decoding: try encoder(pretty: true).encode(statistics), as: UTF8.self) + "\n")
        }
    }

    static func formatDistance(_ distance: Distance?) -> String {
        guard let meters = distance?.meters else { return "" }
        return meters < 1000 ? String(format: "%.0f m", meters) : String(format: "%.2f km", meters / 1000)
    }

    static func table(_ answer: Answer) -> String {
        let matches = answer.page.matches
        if matches.isEmpty { return "no places found\n" }
        let hasDistance = matches.first?.distance != nil
        var headers = ["#", "name", "categories", "id", "lat", "lon"]
        if hasDistance { headers.insert("distance", at: 1) }
        let rows = matches.enumerated().map { offset, match -> [String] in
            var row = [String(offset + 1), match.place.name, match.place.categories.map(\.identifier).joined(separator: " "),
                       match.place.id.rawValue, String(format: "%.5f", match.place.coordinate.latitude),
                       String(format: "%.5f", match.place.coordinate.longitude)]
            if hasDistance { row.insert(formatDistance(match.distance), at: 1) }
            return row
        }
        var out = TextTable(headers: headers, rows: rows, rightAligned: hasDistance ? [0, 1, 5, 6] : [0, 4, 5]).rendered
        out += "\(matches.count) place\(matches.count == 1 ? "" : "s")"
        if let cursor = answer.page.nextCursor { out += "; more with --cursor \(cursor)" }
        return out + "\n"
    }

    static func detailTable(_ answer: Answer) -> String {
        guard let place = answer.page.matches.first?.place else { return "" }
        var rows: [[String]] = [
            ["id", place.id.rawValue], ["name", place.name],
            ["coordinate", "\(place.coordinate.latitude), \(place.coordinate.longitude)"],
            ["categories", place.categories.map(\.identifier).joined(separator: " ")],
            ["source", "\(place.provenance.source) \(place.provenance.sourceID)"],
        ]
        if let address = place.address {
            let parts = [address.street, address.locality, address.region, address.postcode, address.countryCode, address.formatted]
            rows.append(["address", parts.compactMap { $0 }.joined(separator: ", ")])
        }
        if let rating = place.rating { rows.append(["rating", String(format: "%.1f/5", rating.value)]) }
        if let level = place.priceLevel { rows.append(["price", String(repeating: "$", count: level.level)]) }
        if let phone = place.phone { rows.append(["phone", phone]) }
        if let website = place.website { rows.append(["website", website]) }
        if let hours = place.openingHours?.text { rows.append(["hours", hours]) }
        for key in place.tags.keys.sorted() { rows.append([key, place.tags[key]!]) }
        if let importedAt = place.provenance.importedAt { rows.append(["imported", iso8601(importedAt)]) }
        return TextTable(headers: nil, rows: rows, rightAligned: []).rendered
    }

    static func csv(_ answer: Answer) -> String {
        func field(_ text: String) -> String {
            text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        var out = "id,name,lat,lon,distance_m,categories,source\n"
        for match in answer.page.matches {
            let place = match.place
            let distance = match.distance.map { String(($0.meters * 1000).rounded() / 1000) } ?? ""
            out += [place.id.rawValue, place.name, String(place.coordinate.latitude), String(place.coordinate.longitude),
                    distance, place.categories.map(\.identifier).joined(separator: " "), place.provenance.source]
                .map(field).joined(separator: ",") + "\n"
        }
        return out
    }
}

/// RFC 7946 FeatureCollection with the JSON answer's place properties; `query` and
/// `next_cursor` ride along as foreign members (§6.1).
struct GeoJSONAnswer: Encodable {
    var answer: Answer

    enum CodingKeys: String, CodingKey { case type, features, query, nextCursor = "next_cursor" }

    struct Feature: Encodable {
        var match: PlaceMatch
        enum CodingKeys: String, CodingKey { case type, id, geometry, properties }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("Feature", forKey: .type)
            try container.encode(match.place.id.rawValue, forKey: .id)
            try container.encode(GeoJSON.Point(match.place.coordinate), forKey: .geometry)
            try container.encode(PlaceJSON(match), forKey: .properties)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("FeatureCollection", forKey: .type)
        try container.encode(answer.page.matches.map(Feature.init), forKey: .features)
        try container.encode(answer.query, forKey: .query)
        if let cursor = answer.page.nextCursor { try container.encode(cursor, forKey: .nextCursor) } else { try container.encodeNil(forKey: .nextCursor) }
    }
}

/// A plain-text table with columns padded to their widest cell.
struct TextTable {
    var headers: [String]?
    var rows: [[String]]
    var rightAligned: Set<Int>

    var rendered: String {
        let all = (headers.map { [$0] } ?? []) + rows
        guard let columns = all.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in all { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return rightAligned.contains(index) ? pad + cell : cell + pad
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        var out = ""
        if let headers {
            out += line(headers)
            out += line(widths.map { String(repeating: "-", count: $0) })
        }
        for row in rows { out += line(row) }
        return out
    }
}
