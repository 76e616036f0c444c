import Foundation
import GeoCore
import PlaceModel

/// The raw GeoNames dump (`allCountries.txt`, `cities15000.txt`): UTF-8, tab-separated, no
/// header, 19 columns in GeoNames' order, no quoting. Ids `geonames:<geonameid>`; the feature
/// class and code map to the common taxonomy (``category(featureClass:featureCode:)``).
struct GeoNamesDumpReader: DumpReader {
    static let columnCount = 19
    private var lines: LineReader
    private let importedAt: Date
    var progress: Double? { lines.progress }

    init(path: String, importedAt: Date) throws {
        lines = try LineReader(path: path)
        self.importedAt = importedAt
    }

    mutating func next() throws -> DumpRecord? {
        let importedAt = self.importedAt
        return lines.nextRecord { line, number in
            guard !line.isEmpty else { return nil }
            let fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            return GeoNamesDumpReader.record(fields, line: number, importedAt: importedAt)
        }
    }

    static func record(_ fields: [String], line: Int, importedAt: Date) -> DumpRecord {
        func reject(_ reason: String) -> DumpRecord { .rejected(RowProblem(line: line, reason: reason)) }
        guard fields.count == columnCount else { return reject("expected \(columnCount) tab-separated fields, found \(fields.count)") }
        let geonameID = fields[0]
        guard !geonameID.isEmpty, geonameID.allSatisfy(\.isASCII), geonameID.allSatisfy(\.isNumber) else {
            return reject("geonameid '\(geonameID)' is not a number")
        }
        guard !fields[1].isEmpty else { return reject("name is empty") }
        guard let latitude = Double(fields[4]), let longitude = Double(fields[5]) else {
            return reject("latitude '\(fields[4])' or longitude '\(fields[5])' is not a number")
        }
        let coordinate: Coordinate
        do { coordinate = try Coordinate(latitude: latitude, longitude: longitude) } catch { return reject(String(describing: error)) }
        let featureClass = fields[6], featureCode = fields[7]
        var tags: [String: String] = [:]
        func tag(_ key: String, _ value: String) { if !value.isEmpty { tags[key] = value } }
        tag("asciiname", fields[2] == fields[1] ? "" : fields[2])
        tag("feature_code", featureClass.isEmpty ? "" : "\(featureClass).\(featureCode)")
        tag("admin1", fields[10])
        tag("admin2", fields[11])
        tag("population", fields[14] == "0" ? "" : fields[14])
        tag("elevation_m", fields[15])
        tag("timezone", fields[17])
        tag("modified", fields[18])
        if featureCode == "PPLC" { tags["capital"] = "yes" }
        let country = fields[8]
        guard let id = try? PlaceID(source: "geonames", localID: geonameID) else {
            return reject("geonameid '\(geonameID.prefix(40))' is not a usable id")
        }
        let place = Place(
            id: id, name: fields[1], coordinate: coordinate,
            categories: category(featureClass: featureClass, featureCode: featureCode).map { [$0] } ?? [],
            address: country.isEmpty ? nil : Address(countryCode: country),
            provenance: Provenance(source: "geonames", sourceID: geonameID, importedAt: importedAt),
            tags: tags)
        return .place(place)
    }

    /// GeoNames `class.code` → a category of the taxonomy, for the codes that say more than their class.
    static let featureCategories: [String: String] = [
        "H.LK": "water.lake", "H.LKS": "water.lake", "H.RSV": "water.lake", "H.STM": "water.river",
        "H.BAY": "water.bay", "H.SPNG": "water.spring", "H.FLLS": "water.waterfall", "H.GLCR": "nature.glacier",
        "T.BCH": "water.beach", "T.BCHS": "water.beach", "T.MT": "nature.peak", "T.PK": "nature.peak",
        "T.MTS": "nature.mountains", "T.VLC": "nature.volcano", "T.ISL": "nature.island", "T.CAPE": "nature.cape",
        "T.CNYN": "nature.canyon", "T.CAVE": "nature.cave",
        "S.MUS": "culture.museum", "S.THTR": "culture.theatre", "S.LIBR": "culture.library",
        "S.CSTL": "historic.castle", "S.RUIN": "historic.ruins", "S.FT": "historic.fort", "S.PAL": "historic.palace",
        "S.MNMT": "landmark.monument", "S.TOWR": "landmark.tower", "S.BDG": "landmark.bridge",
        "S.CH": "religious.church", "S.CTRR": "religious", "S.MSQE": "religious.mosque", "S.TMPL": "religious.temple",
        "S.SHRN": "religious.shrine", "S.MSTY": "religious.monastery", "S.CMTY": "religious.cemetery",
        "S.AIRP": "transport.airport", "S.AIRF": "transport.airport", "S.RSTN": "transport.station",
        "S.BUSTN": "transport.bus_station", "S.PRT": "transport.port", "S.HTL": "lodging.hotel",
        "S.REST": "food.restaurant", "S.ZOO": "activity.zoo", "S.STDM": "activity.stadium",
        "S.AMUS": "activity.amusement_park", "S.GDN": "nature.garden", "S.MKT": "shopping.market",
        "S.MALL": "shopping.mall", "S.HSP": "service.hospital", "S.SCH": "service.school", "S.UNIV": "service.university",
        "L.PRK": "nature.park", "L.RESN": "nature.reserve", "V.FRST": "nature.forest",
    ]

    /// GeoNames feature class and code → common taxonomy. Specific codes first, then the class.
    static func category(featureClass: String, featureCode: String) -> Category? {
        if let id = featureCategories["\(featureClass).\(featureCode)"] { return try? Category(id) }
        switch featureClass {
        case "P": return .city
        case "H", "U": return .water
        case "T", "L", "V": return try? Category("nature")
        case "S": return try? Category("landmark")
        case "R": return .transport
        default: return nil  // A: administrative areas are not places to visit
        }
    }
}
