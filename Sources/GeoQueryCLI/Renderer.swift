import Foundation
import GeoCore
import PlaceModel
import PlaceStore

/// What the query was, echoed in JSON answers.
struct QueryDescription {
    var kind: String
    var lat: Double?
    var lon: Double?
    var radiusMeters: Double?
    var bbox: [Double]?
    var id: String?
    var filter: PlaceFilter
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
        self.filter = filter
        self.limit = limit
        self.line = line
    }

    var json: OrderedJSON {
        var members: [(String, OrderedJSON)] = [("kind", .string(kind))]
        if let line { members.append(("line", .int(line))) }
        if let id { members.append(("id", .string(id))) }
        if let lat { members.append(("lat", .double(lat))) }
        if let lon { members.append(("lon", .double(lon))) }
        if let radiusMeters { members.append(("radius_m", .double(radiusMeters))) }
        if let bbox { members.append(("bbox", .array(bbox.map(OrderedJSON.double)))) }
        if !filter.categories.isEmpty { members.append(("categories", .array(filter.categories.map { .string($0.identifier) }))) }
        if let text = filter.text { members.append(("query", .string(text))) }
        if !filter.sources.isEmpty { members.append(("sources", .array(filter.sources.map(OrderedJSON.string)))) }
        if let rating = filter.minimumRating { members.append(("min_rating", .double(rating))) }
        if kind != "place" { members.append(("limit", limit.map(OrderedJSON.int) ?? .null)) }
        return .object(members)
    }
}

/// The JSON answer contract: `{"query":{…},"count":N,"places":[…],"next_cursor":string|null}`.
struct Answer {
    var query: QueryDescription
    var page: PlacePage

    var json: OrderedJSON {
        .object([("query", query.json), ("count", .int(page.matches.count)),
                 ("places", .array(page.matches.map { placeJSON($0, includeCoordinates: true) })),
                 ("next_cursor", .optional(page.nextCursor))])
    }
}

/// One place: `id, name, lat, lon, distance_m, categories, source` always (distance_m is null
/// without a centre), then the optional fields that are known.
func placeJSON(_ match: PlaceMatch, includeCoordinates: Bool) -> OrderedJSON {
    let place = match.place
    var members: [(String, OrderedJSON)] = [("id", .string(place.id.rawValue)), ("name", .string(place.name))]
    if includeCoordinates {
        members += [("lat", .double(place.coordinate.latitude)), ("lon", .double(place.coordinate.longitude))]
    }
    members.append(("distance_m", match.distance.map { .double(($0.meters * 1000).rounded() / 1000) } ?? .null))
    members.append(("categories", .array(place.categories.map { .string($0.identifier) })))
    members.append(("source", .string(place.provenance.source)))
    if let address = place.address {
        let parts: [(String, String?)] = [("street", address.street), ("locality", address.locality), ("region", address.region),
                                          ("postcode", address.postcode), ("country_code", address.countryCode),
                                          ("formatted", address.formatted)]
        members.append(("address", .object(parts.compactMap { key, value in value.map { (key, .string($0)) } })))
    }
    if let rating = place.rating {
        var parts: [(String, OrderedJSON)] = [("value", .double(rating.value))]
        if let count = rating.count { parts.append(("count", .int(count))) }
        parts.append(("scale", .double(rating.originalScale)))
        members.append(("rating", .object(parts)))
    }
    if let level = place.priceLevel { members.append(("price_level", .int(level.level))) }
    if let phone = place.phone { members.append(("phone", .string(phone))) }
    if let website = place.website { members.append(("website", .string(website))) }
    if let hours = place.openingHours {
        var parts: [(String, OrderedJSON)] = []
        if let text = hours.text { parts.append(("text", .string(text))) }
        parts.append(("periods", .array(hours.periods.map { period in
            .object([("open_day", .int(period.openDay)), ("open_minute", .int(period.openMinute)),
                     ("close_day", .int(period.closeDay)), ("close_minute", .int(period.closeMinute))])
        })))
        members.append(("opening_hours", .object(parts)))
    }
    if !place.photos.isEmpty {
        members.append(("photos", .array(place.photos.map { photo in
            let parts: [(String, OrderedJSON?)] = [
                ("url", photo.url.map(OrderedJSON.string)), ("reference", photo.reference.map(OrderedJSON.string)),
                ("width", photo.width.map(OrderedJSON.int)), ("height", photo.height.map(OrderedJSON.int)),
                ("attribution", photo.attribution.map(OrderedJSON.string)),
            ]
            return .object(parts.compactMap { key, value in value.map { (key, $0) } })
        })))
    }
    if !place.tags.isEmpty {
        members.append(("tags", .object(place.tags.keys.sorted().map { ($0, .string(place.tags[$0]!)) })))
    }
    if let gem = place.gem {
        members.append(("gem", .object([("owner", .string(gem.owner)), ("visibility", .string(gem.visibility.rawValue))])))
    }
    if let importedAt = place.provenance.importedAt { members.append(("imported_at", .string(iso8601(importedAt)))) }
    if let fetchedAt = place.provenance.fetchedAt { members.append(("fetched_at", .string(iso8601(fetchedAt)))) }
    return .object(members)
}

private func iso8601(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

/// RFC 7946 FeatureCollection with the JSON answer's place properties; `query` and
/// `next_cursor` ride along as foreign members (§6.1).
func geoJSON(_ answer: Answer) -> OrderedJSON {
    .object([
        ("type", .string("FeatureCollection")),
        ("features", .array(answer.page.matches.map { match in
            .object([("type", .string("Feature")), ("id", .string(match.id.rawValue)),
                     ("geometry", .object([("type", .string("Point")),
                                           ("coordinates", .array([.double(match.coordinate.longitude),
                                                                   .double(match.coordinate.latitude)]))])),
                     ("properties", placeJSON(match, includeCoordinates: false))])
        })),
        ("query", answer.query.json),
        ("next_cursor", .optional(answer.page.nextCursor)),
    ])
}

/// Writes answers in the requested format to standard output.
enum Renderer {
    static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
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
            emit(answer.json.rendered(pretty: true) + "\n")
        case .geojson:
            emit(geoJSON(answer).rendered(pretty: true) + "\n")
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
