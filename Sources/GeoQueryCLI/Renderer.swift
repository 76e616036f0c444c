import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import PlaceStore

/// Writes answers to standard output: JSON, GeoJSON and CSV through the wire format the server
/// uses too; tables for a terminal.
enum Renderer {
    static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        // snake_case, as every JSON answer of the service (docs/api-conventions.md).
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func jsonLine<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder(pretty: false).encode(value), as: UTF8.self)
    }

    static func emit(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func emit(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes + [UInt8(ascii: "\n")]))
    }

    static func write(_ answer: PlaceAnswer, format: OutputFormat, detailed: Bool = false) throws {
        switch format {
        case .json: emit(answer.json(pretty: true))
        case .geojson: emit(answer.geoJSON(pretty: true))
        case .csv:
            emit(answer.csv())
            // CSV has no place for it, and standard output is the data: the cursor goes to
            // standard error, so a script pages with `2>` and the rows stay clean.
            if let cursor = answer.page.nextCursor {
                FileHandle.standardError.write(Data("geoquery: more with --cursor \(cursor)\n".utf8))
            }
        case .table: emit(detailed ? detailTable(answer) : table(answer))
        }
    }

    static func write(_ statistics: IndexStatistics, format: OutputFormat) throws {
        switch format {
        case .table, .csv:
            var out = "index: \(statistics.path)\nschema version: \(statistics.schemaVersion)\n"
            out += String(format: "file size: %.1f MB\nplaces: %d\n", Double(statistics.fileSize) / 1_000_000, statistics.total)
            let rows = statistics.sources.map { source in
                [source.name, String(source.count), extentText(source.extent), source.lastImport ?? "-"]
            }
            out +=
                TextTable(
                    headers: ["source", "places", "extent (W,S,E,N)", "last import"], rows: rows,
                    rightAligned: [1]
                ).rendered
            emit(out)
        case .json, .geojson:
            emit(String(decoding: try encoder(pretty: true).encode(statistics), as: UTF8.self) + "\n")
        }
    }

    /// `W,S,E,N` in degrees to 1e-5 (about a metre, as the table's coordinates), without the
    /// binary noise of a stored double (`1.7805540000000002`).
    static func extentText(_ box: BoundingBox) -> String {
        [box.west, box.south, box.east, box.north].map { String(($0 * 100_000).rounded() / 100_000) }.joined(separator: ",")
    }

    static func formatDistance(_ distance: Distance?) -> String {
        guard let meters = distance?.meters else { return "" }
        return meters < 1000 ? String(format: "%.0f m", meters) : String(format: "%.2f km", meters / 1000)
    }

    static func table(_ answer: PlaceAnswer) -> String {
        let matches = answer.page.matches
        if matches.isEmpty { return "no places found\n" }
        let hasDistance = matches.first?.distance != nil
        var headers = ["#", "name", "categories", "id", "lat", "lon"]
        if hasDistance { headers.insert("distance", at: 1) }
        let rows = matches.enumerated().map { offset, match -> [String] in
            var row = [
                String(offset + 1), match.place.name, match.place.categories.map(\.identifier).joined(separator: " "),
                match.place.id.rawValue, String(format: "%.5f", match.place.coordinate.latitude),
                String(format: "%.5f", match.place.coordinate.longitude),
            ]
            if hasDistance { row.insert(formatDistance(match.distance), at: 1) }
            return row
        }
        var out = TextTable(headers: headers, rows: rows, rightAligned: hasDistance ? [0, 1, 5, 6] : [0, 4, 5]).rendered
        out += "\(matches.count) place\(matches.count == 1 ? "" : "s")"
        if let cursor = answer.page.nextCursor { out += "; more with --cursor \(cursor)" }
        return out + "\n"
    }

    static func detailTable(_ answer: PlaceAnswer) -> String {
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
        if let importedAt = place.provenance.importedAt { rows.append(["imported", Timestamp.iso8601(importedAt)]) }
        return TextTable(headers: nil, rows: rows, rightAligned: []).rendered
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
