import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// How a place is stored in a PostgreSQL place table: typed columns for what queries test and
/// every other field in GeoQuery's details record (`record`, the bytes SpatiaLite stores), plus
/// the row in COPY's text format for bulk writes.
enum PlaceRecord {
    /// The staging table's columns, in COPY order (the place table's but `geog`, plus `seq`,
    /// the row's position, so that the last of two rows with one id wins).
    static let stagingColumns = ["seq", "id", "source", "name", "latitude", "longitude", "categories", "rating", "price",
                                 "country", "continent", "rank_key", "name_words", "gem_owner", "gem_visibility", "content_hash", "record"]

    static let stagingTable = """
        CREATE TEMP TABLE IF NOT EXISTS staging (seq bigint NOT NULL, id text COLLATE "C" NOT NULL, source text NOT NULL, name text NOT NULL,
            latitude double precision NOT NULL, longitude double precision NOT NULL, categories text[] NOT NULL,
            rating double precision, price smallint, country text, continent text, rank_key bigint NOT NULL, name_words text[] NOT NULL,
            gem_owner text, gem_visibility text, content_hash bigint NOT NULL, record bytea NOT NULL) ON COMMIT DROP
        """

    /// The place table's written columns, and the values from `staging` (alias `s`) that fill them.
    static let tableColumns = "id, source, name, latitude, longitude, geog, categories, rating, price, country, continent, rank_key, "
        + "name_words, gem_owner, gem_visibility, content_hash, record"
    static let stagedValues = "s.id, s.source, s.name, s.latitude, s.longitude, "
        + "ST_SetSRID(ST_MakePoint(s.longitude, s.latitude), 4326)::geography, s.categories, s.rating, s.price, s.country, "
        + "s.continent, s.rank_key, s.name_words, s.gem_owner, s.gem_visibility, s.content_hash, s.record"
    static let updateAssignments = ["source", "name", "latitude", "longitude", "geog", "categories", "rating", "price", "country",
                                    "continent", "rank_key", "name_words", "gem_owner", "gem_visibility", "content_hash", "record"]
        .map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// Decodes a stored row; a details record this build cannot read loses those fields, not
    /// the place.
    static func place(record: UnsafeRawBufferPointer, id: String, name: String, latitude: Double, longitude: Double) -> Place {
        let details = record.isEmpty ? nil : try? PlaceDetailsCodec.decode(record, id: id)
        return PlaceDetailsCodec.place(id: PlaceID(trustedRawValue: id), name: name,
                                       coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude), details: details)
    }

    /// The categories with every ancestor, once each.
    static func categoryClosure(_ categories: [Category]) -> [String] {
        var all: [String] = []
        for category in categories {
            var current: Category? = category
            while let each = current {
                if !all.contains(each.identifier) { all.append(each.identifier) }
                current = each.parent
            }
        }
        return all
    }

    /// The words of a name or a query: runs of letters and digits, lower case, without diacritics
    /// (as SQLite's `unicode61 remove_diacritics` tokenizer reads names).
    static func words(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// The details record (GeoQuery's compact binary form of every field but the id, name and
    /// coordinates, as SpatiaLite stores it) and the FNV-1a hash of everything but the import
    /// time: equal for places that differ in nothing else.
    static func record(_ place: Place) throws -> (details: [UInt8], contentHash: Int64) {
        var details: [UInt8] = []
        try PlaceDetailsCodec.encode(place, appendingTo: &details)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        func separate() {
            hash ^= 0xFF
            hash = hash &* 0x0000_0100_0000_01B3
        }
        var name = place.name
        name.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
        separate()
        withUnsafeBytes(of: place.coordinate.latitude.bitPattern) { mix($0) }
        separate()
        withUnsafeBytes(of: place.coordinate.longitude.bitPattern) { mix($0) }
        separate()
        details.withUnsafeBytes { PlaceDetailsCodec.forEachContentField($0, mix) }
        separate()
        return (details, Int64(bitPattern: hash))
    }

    /// Appends the place as one line of COPY text format (tab-separated, `\N` for NULL).
    static func appendCopyLine(_ place: Place, sequence: Int, to out: inout [UInt8]) throws {
        func field(_ text: String?) {
            guard let text else { out.append(contentsOf: "\\N".utf8); return }
            for byte in text.utf8 {
                switch byte {
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                case 0x09: out.append(contentsOf: [0x5C, 0x74])
                default: out.append(byte)
                }
            }
        }
        func array(_ values: [String]) -> String {
            "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
                .joined(separator: ",") + "}"
        }
        let (details, contentHash) = try record(place)
        // bytea in hex; the backslash doubled for COPY's own escaping.
        let digits = Array("0123456789abcdef".utf8)
        var hexBytes: [UInt8] = [0x5C, 0x5C, 0x78]  // \\x
        hexBytes.reserveCapacity(details.count * 2 + 3)
        for byte in details {
            hexBytes.append(digits[Int(byte >> 4)])
            hexBytes.append(digits[Int(byte & 0x0F)])
        }
        let fields: [String?] = [
            String(sequence), place.id.rawValue, place.provenance.source, place.name,
            String(place.coordinate.latitude), String(place.coordinate.longitude),
            array(categoryClosure(place.categories)), place.rating.map { String($0.value) },
            place.priceLevel.map { String($0.level) }, place.region?.countryCode, place.region?.continent?.rawValue,
            String(PlaceRank.key(of: place)), array(words(place.name)), place.gem?.owner, place.gem?.visibility.rawValue,
            String(contentHash),
        ]
        for value in fields {
            field(value)
            out.append(0x09)
        }
        out.append(contentsOf: hexBytes)
        out.append(0x0A)
    }
}

/// Places prepared for a PostgreSQL writer: COPY text lines, encoded on the importer's reading
/// thread so the writer only streams bytes.
public struct PostGISBatch: PlaceBatch {
    /// The COPY text of every place, one line each.
    var lines: [UInt8] = []
    public private(set) var count = 0

    public init() {}

    public init(_ places: [Place]) throws {
        for place in places { try append(place) }
    }

    public mutating func reserveCapacity(_ count: Int) { lines.reserveCapacity(count * 400) }

    public mutating func append(_ place: Place) throws {
        try PlaceRecord.appendCopyLine(place, sequence: count, to: &lines)
        count += 1
    }
}
