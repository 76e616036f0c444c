import Foundation
import GeoCore
import PlaceModel

/// The dump formats `geoquery import` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// GeoNames cities as CSV: `geonameid,name,lat,lon,country_code,admin1,population,timezone`
    /// (the shipped `cities15000.csv`). Ids `geonames:<geonameid>`, category `city`.
    case geonamesCSV = "geonames-csv"
    /// The airportsdata table: `icao,iata,name,city,subd,country,elevation,lat,lon,tz,lid`.
    /// Ids `airport:<icao>`, category `transport.airport`.
    case airportsCSV = "airports-csv"
    /// The raw GeoNames dump (`allCountries.txt`, `cities15000.txt`): 19 tab-separated columns,
    /// no header. Ids `geonames:<geonameid>`; feature class and code map to the taxonomy.
    case geonames = "geonames"
    /// Foursquare Open Source Places rows (`fsq_place_id,name,latitude,longitude,…,
    /// date_closed,…,fsq_category_labels`). Ids `foursquare:<fsq_place_id>`; closed places are
    /// skipped, not imported.
    case foursquareCSV = "foursquare-csv"
    /// Any CSV with a header: columns chosen by ``CSVColumns`` (defaults `id`, `name`,
    /// `lat`/`latitude`, `lon`/`lng`/`longitude`, `category`/`categories`), any delimiter. Other
    /// columns become tags. Ids `<source>:<id>`.
    case csv = "csv"
    /// A GeoJSON FeatureCollection of Points, streamed. Ids `<source>:<id>`.
    case geojson = "geojson"
    /// GeoJSONSeq / newline-delimited GeoJSON (RS-separated too): one Feature per line.
    case geojsonseq = "geojsonseq"
    /// OpenStreetMap: `.osm.pbf`, `.osm` XML or `.osm.bz2`, told apart by content. Named POI
    /// nodes, ways and multipolygons (``OSMTags``); ids `osm:n<id>`, `osm:w<id>`, `osm:r<id>`.
    case osm = "osm"

    /// The id namespace the format's places get, and the default source of an import.
    public var source: String {
        switch self {
        case .geonamesCSV, .geonames: return "geonames"
        case .airportsCSV: return "airport"
        case .geojson, .geojsonseq: return "geojson"
        case .foursquareCSV: return "foursquare"
        case .csv: return "csv"
        case .osm: return "osm"
        }
    }

    /// What the rows a format leaves out on purpose are, for the summary line.
    var skipDescription: String? {
        switch self {
        case .foursquareCSV: return "closed"
        case .osm: return "unnamed POIs, relations other than multipolygons"
        default: return nil
        }
    }

    /// Columns the header must have (header-driven formats).
    var requiredColumns: [String] {
        switch self {
        case .geonamesCSV: return ["geonameid", "name", "lat", "lon"]
        case .airportsCSV: return ["icao", "name", "lat", "lon"]
        case .foursquareCSV: return ["fsq_place_id", "name", "latitude", "longitude"]
        case .geonames, .geojson, .geojsonseq, .csv, .osm: return []
        }
    }

    /// A reader for a dump in this format.
    /// - Throws: ``ImportError`` when the file cannot be read or its header does not fit.
    public func reader(
        path: String, importedAt: Date, source: String? = nil,
        mapping: PropertyMapping = PropertyMapping(), columns: CSVColumns = CSVColumns()
    ) throws -> any DumpReader {
        let features = FeatureDecoder(source: source ?? self.source, mapping: mapping, importedAt: importedAt)
        switch self {
        case .csv: return try GenericCSVReader(path: path, columns: columns, source: source ?? self.source, importedAt: importedAt)
        case .geonamesCSV, .airportsCSV, .foursquareCSV: return try CSVTableReader(path: path, format: self, importedAt: importedAt)
        case .geonames: return try GeoNamesDumpReader(path: path, importedAt: importedAt)
        case .geojson: return try GeoJSONCollectionReader(path: path, decoder: features)
        case .geojsonseq: return try GeoJSONSeqReader(path: path, decoder: features)
        case .osm: return try OSMDumpReader(path: path, importedAt: importedAt)
        }
    }

    /// Guesses the format of a file from its name and first bytes: `.osm.pbf`, `.osm`,
    /// `.osm.bz2` or OSM content (a PBF header blob, `<osm` XML) → osm; `.geojsonl`/`.geojsons`/
    /// `.ndjson`/`.jsonl` or a first line that is a Feature → geojsonseq; `.geojson`/`.json` →
    /// geojson; 19 tab-separated fields → geonames; a CSV header naming the columns of
    /// airportsdata, GeoNames cities or Foursquare → that format; any other CSV → csv.
    /// - Throws: ``ImportError`` when the file cannot be read or nothing fits.
    public static func detect(path: String) throws -> ImportFormat {
        let handle = try openDump(path).handle
        defer { try? handle.close() }
        let headBytes = [UInt8](handle.readData(ofLength: 64 * 1024))
        let head = String(decoding: headBytes, as: UTF8.self)
        let name = (path as NSString).lastPathComponent.lowercased()
        let osmKind = OSMInput.kind(ofHead: Array(headBytes.prefix(512)))
        if [".pbf", ".osm", ".osm.bz2"].contains(where: name.hasSuffix) || osmKind == .pbf || osmKind == .xml { return .osm }
        let firstLine =
            head.split(separator: "\n", maxSplits: 1).first.map(String.init)?
            .trimmingCharacters(in: CharacterSet(charactersIn: "\u{FEFF}\u{1E} \r\t")) ?? ""
        if [".geojsonl", ".geojsons", ".geojsonseq", ".ndjson", ".jsonl"].contains(where: name.hasSuffix) { return .geojsonseq }
        if name.hasSuffix(".geojson") || name.hasSuffix(".json") {
            return firstLine.hasPrefix("{") && firstLine.contains("\"Feature\"") && !firstLine.contains("FeatureCollection")
                && firstLine.hasSuffix("}") ? .geojsonseq : .geojson
        }
        if firstLine.hasPrefix("{") { return firstLine.contains("FeatureCollection") ? .geojson : .geojsonseq }
        if firstLine.split(separator: "\t", omittingEmptySubsequences: false).count == 19 { return .geonames }
        let header = Set(firstLine.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) })
        if header.isSuperset(of: ["icao", "iata", "name", "lat", "lon"]) { return .airportsCSV }
        if header.isSuperset(of: ["geonameid", "name", "lat", "lon"]) { return .geonamesCSV }
        if header.isSuperset(of: ["fsq_place_id", "name", "latitude", "longitude"]) { return .foursquareCSV }
        if !firstLine.isEmpty { return .csv }
        throw ImportError.emptyFile(path: path)
    }

    /// Parses a `--format` value.
    /// - Throws: ``ImportError/unknownFormat(_:)``.
    public init(name: String) throws {
        guard let format = ImportFormat(rawValue: name.lowercased()) else { throw ImportError.unknownFormat(name) }
        self = format
    }

    /// Turns one CSV row into a place, or says why it cannot.
    func place(from row: CSVRow, importedAt: Date) throws(RowRejection) -> Place {
        switch self {
        case .foursquareCSV:
            return try foursquarePlace(from: row, importedAt: importedAt)
        case .geonamesCSV:
            let coordinate = try row.coordinate()
            let geonameID = try row.required("geonameid")
            guard geonameID.allSatisfy(\.isNumber) else { throw RowRejection("geonameid '\(geonameID)' is not a number") }
            let id = try row.placeID(source: source, localID: geonameID)
            var tags: [String: String] = [:]
            tags["population"] = row.optional("population")
            tags["timezone"] = row.optional("timezone")
            tags["admin1"] = row.optional("admin1")
            return Place(
                id: id, name: try row.required("name"), coordinate: coordinate, categories: [.city],
                address: row.optional("country_code").map { Address(countryCode: $0) },
                provenance: Provenance(source: source, sourceID: geonameID, importedAt: importedAt),
                tags: tags)
        case .airportsCSV:
            let coordinate = try row.coordinate()
            let icao = try row.required("icao")
            let id = try row.placeID(source: source, localID: icao)
            var tags: [String: String] = ["icao": icao]
            tags["iata"] = row.optional("iata")
            if let elevation = row.optional("elevation") {
                guard Double(elevation) != nil else { throw RowRejection("elevation '\(elevation)' is not a number") }
                tags["elevation_ft"] = elevation
            }
            tags["timezone"] = row.optional("tz")
            tags["faa_lid"] = row.optional("lid")
            let address = Address(
                locality: row.optional("city"), region: row.optional("subd"),
                countryCode: row.optional("country"))
            return Place(
                id: id, name: try row.required("name"), coordinate: coordinate, categories: [.airport],
                address: address.isEmpty ? nil : address,
                provenance: Provenance(source: source, sourceID: icao, importedAt: importedAt),
                tags: tags)
        case .geonames, .geojson, .geojsonseq, .csv, .osm:
            throw RowRejection("\(rawValue) is not a fixed-column CSV table")
        }
    }
}

/// Why a row was rejected, or (`isSkip`) left out on purpose, like a closed place.
struct RowRejection: Error {
    var reason: String
    var isSkip = false
    init(_ reason: String, skip: Bool = false) {
        self.reason = reason
        isSkip = skip
    }
}

extension ImportFormat {
    func foursquarePlace(from row: CSVRow, importedAt: Date) throws(RowRejection) -> Place {
        let localID = try row.required("fsq_place_id")
        if let closed = row.optional("date_closed") { throw RowRejection("closed on \(closed)", skip: true) }
        let coordinate = try row.coordinate(latitude: "latitude", longitude: "longitude")
        let id = try row.placeID(source: "foursquare", localID: localID)
        var tags: [String: String] = [:]
        for key in ["email", "facebook_id", "instagram", "twitter", "date_created", "date_refreshed", "admin_region", "post_town", "po_box"] {
            tags[key] = row.optional(key)
        }
        if let labels = row.optional("fsq_category_labels") { tags["fsq_category_labels"] = labels }
        let address = Address(
            street: row.optional("address"), locality: row.optional("locality"), region: row.optional("region"),
            postcode: row.optional("postcode"), countryCode: row.optional("country"))
        return Place(
            id: id, name: try row.required("name"), coordinate: coordinate,
            categories: row.optional("fsq_category_labels").map(FoursquareCategories.categories) ?? [],
            address: address.isEmpty ? nil : address, phone: row.optional("tel"), website: row.optional("website"),
            provenance: Provenance(source: "foursquare", sourceID: localID, importedAt: importedAt), tags: tags)
    }
}

/// One CSV row with its header, read by column name. Every value is read as text (so `NA` stays
/// Namibia, not a missing value).
struct CSVRow {
    let fields: [String]
    let columns: [String: Int]

    func optional(_ name: String) -> String? {
        guard let index = columns[name], index < fields.count else { return nil }
        let value = fields[index].trimmedWhitespace
        return value.isEmpty ? nil : value
    }

    func required(_ name: String) throws(RowRejection) -> String {
        guard let value = optional(name) else { throw RowRejection("\(name) is empty") }
        return value
    }

    func coordinate(latitude latitudeColumn: String = "lat", longitude longitudeColumn: String = "lon") throws(RowRejection) -> Coordinate {
        let latText = try required(latitudeColumn), lonText = try required(longitudeColumn)
        guard let latitude = Double(latText) else { throw RowRejection("\(latitudeColumn) '\(latText)' is not a number") }
        guard let longitude = Double(lonText) else { throw RowRejection("\(longitudeColumn) '\(lonText)' is not a number") }
        do {
            return try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw RowRejection(String(describing: error))
        }
    }

    func placeID(source: String, localID: String) throws(RowRejection) -> PlaceID {
        do { return try PlaceID(source: source, localID: localID) } catch { throw RowRejection(String(describing: error)) }
    }
}
