import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// How a place is stored in a PostgreSQL place table: typed columns for what queries test and
/// every other field in GeoQuery's details record (`record`, the bytes SpatiaLite stores), plus
/// the row in COPY's text format for bulk writes.
enum PlaceRecord {
    /// The place table's written columns, in the order of a COPY line's fields.
    static let columns = [
        "id", "source", "name", "latitude", "longitude", "geog", "categories", "rating", "price", "country",
        "continent", "rank_key", "name_words", "gem_owner", "gem_visibility", "content_hash", "record",
    ]

    /// The staged columns of a temporary table: the place table's, the point kept as text (hex
    /// EWKB) until a row is written, since most rows of a nightly dump are unchanged.
    private static let stagedColumnDefinitions = """
        id text COLLATE "C" NOT NULL, source text NOT NULL, name text NOT NULL,
            latitude double precision NOT NULL, longitude double precision NOT NULL, geog text NOT NULL,
            categories text[] NOT NULL, rating double precision, price smallint, country text, continent text, rank_key bigint NOT NULL,
            name_words text[] NOT NULL, gem_owner text, gem_visibility text, content_hash bigint NOT NULL, record bytea NOT NULL
        """

    /// Where single writes stage their rows (``PostGISPlaceIndex/write(_:into:on:)``), one row per
    /// id: made in every write's transaction, so it has no column it need not have.
    static let stagingTable = "CREATE TEMP TABLE IF NOT EXISTS staging (\(stagedColumnDefinitions)) ON COMMIT DROP"

    /// Where a snapshot import stages its rows when it merges or rebuilds (``PostGISSnapshotWriter``):
    /// an unlogged table (no WAL; emptied by a crash, which only a killed import's leftovers
    /// would be), with `seq`, which numbers the rows in the order COPY read them, so that the
    /// last of two rows with one id wins.
    static func importTable(_ name: String) -> String {
        "CREATE UNLOGGED TABLE \(name) (seq bigint GENERATED ALWAYS AS IDENTITY, \(stagedColumnDefinitions))"
    }

    /// The place table's written columns, and the values from a staging table (alias `s`) that fill them.
    static let tableColumns = columns.joined(separator: ", ")
    static let stagedValues = columns.map { $0 == "geog" ? "s.geog::geography" : "s." + $0 }.joined(separator: ", ")
    static let updateAssignments = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")

    /// Decodes a stored row; a details record this build cannot read loses those fields, not
    /// the place.
    static func place(record: UnsafeRawBufferPointer, id: String, name: String, latitude: Double, longitude: Double) -> Place {
        let details = record.isEmpty ? nil : try? PlaceDetailsCodec.decode(record, id: id)
        return PlaceDetailsCodec.place(
            id: PlaceID(trustedRawValue: id), name: name,
            coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude), details: details)
    }

    /// The categories with every ancestor, once each: each identifier and its prefixes up to a
    /// dot, without building a category for each (an import computes this a million times).
    static func categoryClosure(_ categories: [Category]) -> [Substring] {
        var all: [Substring] = []
        all.reserveCapacity(categories.count * 2)
        for category in categories {
            let identifier = Substring(category.identifier)
            var end = identifier.utf8.endIndex
            while true {
                let prefix = identifier[..<end]
                if !all.contains(where: { $0.utf8.elementsEqual(prefix.utf8) }) { all.append(prefix) }
                guard let dot = identifier.utf8[..<end].lastIndex(of: UInt8(ascii: ".")) else { break }
                end = dot
            }
        }
        return all
    }

    /// The words of a name or a query: runs of letters and digits, lower case, without diacritics
    /// (as SQLite's `unicode61 remove_diacritics` tokenizer reads names). An ASCII text (most
    /// names) is split byte by byte, which gives the same words as Foundation's folding.
    static func words(_ text: String) -> [String] {
        asciiWords(text) ?? foldedWords(text)
    }

    /// The words of any text, through Foundation's case and diacritic folding.
    static func foldedWords(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map(String.init)
    }

    /// The words of an all-ASCII text, or nil when it holds any other byte.
    static func asciiWords(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var words: [String] = []
            var word: [UInt8] = []
            for byte in bytes {
                switch byte {
                case 0x30...0x39, 0x61...0x7A: word.append(byte)
                case 0x41...0x5A: word.append(byte | 0x20)
                case 0x80...: return nil
                default:
                    if !word.isEmpty {
                        words.append(String(decoding: word, as: UTF8.self))
                        word.removeAll(keepingCapacity: true)
                    }
                }
            }
            if !word.isEmpty { words.append(String(decoding: word, as: UTF8.self)) }
            return words
        }
    }

    /// The details record (GeoQuery's compact binary form of every field but the id, name and
    /// coordinates, as SpatiaLite stores it) and the FNV-1a hash of everything but the import
    /// time: equal for places that differ in nothing else.
    static func record(_ place: Place) throws -> (details: [UInt8], contentHash: Int64) {
        var details: [UInt8] = []
        let hash = try record(place, into: &details)
        return (details, hash)
    }

    /// Writes the place's details record into `details` (emptied first, its storage kept, so
    /// an import reuses one buffer) and answers the content hash.
    static func record(_ place: Place, into details: inout [UInt8]) throws -> Int64 {
        details.removeAll(keepingCapacity: true)
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
        return Int64(bitPattern: hash)
    }

    /// Appends the place as one line of COPY text format, byte by byte: an import encodes a
    /// million of these on its reading thread.
    /// The fields are ``columns``, in that order.
    /// `scratch` holds the details record on its way (one buffer for every line of a batch).
    static func appendCopyLine(_ place: Place, to text: inout CopyText, scratch: inout [UInt8]) throws {
        let contentHash = try record(place, into: &scratch)
        let details = scratch
        text.text(place.id.rawValue)
        text.text(place.provenance.source)
        text.text(place.name)
        text.double(place.coordinate.latitude)
        text.double(place.coordinate.longitude)
        text.point(place.coordinate)
        text.array(categoryClosure(place.categories))
        if let rating = place.rating { text.double(rating.value) } else { text.null() }
        if let price = place.priceLevel { text.integer(Int64(price.level)) } else { text.null() }
        text.optionalText(place.region?.countryCode)
        text.optionalText(place.region?.continent?.rawValue)
        text.integer(PlaceRank.key(of: place))
        text.words(of: place.name)
        text.optionalText(place.gem?.owner)
        text.optionalText(place.gem?.visibility.rawValue)
        text.integer(contentHash)
        text.bytea(details)
        text.endLine()
    }
}

/// Rows in COPY's text format: fields separated by tabs, each line ended by a newline, a
/// backslash escaping the bytes COPY reads specially, `\N` for NULL.
struct CopyText: Sendable {
    private(set) var bytes: [UInt8] = []
    private var lineHasFields = false

    mutating func reserveCapacity(_ count: Int) { bytes.reserveCapacity(count) }

    /// Appends whole lines of another ``CopyText``.
    mutating func appendLines(_ lines: ArraySlice<UInt8>) { bytes.append(contentsOf: lines) }

    private mutating func separate() {
        if lineHasFields { bytes.append(0x09) }
        lineHasFields = true
    }

    mutating func endLine() {
        bytes.append(0x0A)
        lineHasFields = false
    }

    mutating func null() {
        separate()
        bytes.append(0x5C)
        bytes.append(0x4E)
    }

    mutating func integer(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(0x2D) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: a 64-bit integer has at most 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[start...])
        }
    }

    mutating func double(_ value: Double) {
        separate()
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func optionalText(_ value: String?) {
        if let value { text(value) } else { null() }
    }

    mutating func text(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { for byte in $0 { appendEscaped(byte) } }
    }

    /// A `text[]` literal, every element quoted: inside the literal a backslash and a quote are
    /// escaped with a backslash, and COPY then doubles every backslash.
    mutating func array<Element: StringProtocol>(_ values: [Element]) {
        separate()
        bytes.append(0x7B)  // {
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            bytes.append(0x22)
            for byte in value.utf8 {
                switch byte {
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C, 0x5C, 0x5C])
                case 0x22: bytes.append(contentsOf: [0x5C, 0x5C, 0x22])
                default: appendEscaped(byte)
                }
            }
            bytes.append(0x22)
        }
        bytes.append(0x7D)  // }
    }

    /// The `text[]` literal of a name's words (``PlaceRecord/words(_:)``): an ASCII name's are
    /// written as they are found, letters and digits needing no escape.
    mutating func words(of name: String) {
        var name = name
        let start = bytes.count, hadFields = lineHasFields
        let done = name.withUTF8 { name -> Bool in
            separate()
            bytes.append(0x7B)  // {
            var inWord = false, first = true
            for byte in name {
                switch byte {
                case 0x30...0x39, 0x61...0x7A, 0x41...0x5A:
                    if !inWord {
                        if !first { bytes.append(0x2C) }
                        bytes.append(0x22)
                        inWord = true
                        first = false
                    }
                    bytes.append(byte | (byte >= 0x41 && byte <= 0x5A ? 0x20 : 0))
                case 0x80...:
                    return false
                default:
                    if inWord {
                        bytes.append(0x22)
                        inWord = false
                    }
                }
            }
            if inWord { bytes.append(0x22) }
            bytes.append(0x7D)  // }
            return true
        }
        if !done {
            // Not ASCII: undone, and written from Foundation's folding.
            bytes.removeSubrange(start...)
            lineHasFields = hadFields
            array(PlaceRecord.foldedWords(name))
        }
    }

    /// A `geography(Point, 4326)` as hex EWKB (little-endian, with the SRID), which PostGIS
    /// reads without the server building the point from two numbers.
    mutating func point(_ coordinate: Coordinate) {
        separate()
        bytes.append(contentsOf: Self.pointHeader)
        appendHex(coordinate.longitude.bitPattern.littleEndian)
        appendHex(coordinate.latitude.bitPattern.littleEndian)
    }

    /// Byte order 1 (little-endian), type 0x20000001 (a point with an SRID), SRID 4326.
    private static let pointHeader: [UInt8] = Array("0101000020E6100000".utf8)

    /// The eight bytes of `value` as they lie in memory, in hex.
    private mutating func appendHex(_ value: UInt64) {
        withUnsafeBytes(of: value) { raw in
            for byte in raw {
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    /// bytea in hex (`\\x…`, the backslash doubled for COPY).
    mutating func bytea(_ value: [UInt8]) {
        separate()
        bytes.append(contentsOf: [0x5C, 0x5C, 0x78])
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: value.count * 2))
        bytes.withUnsafeMutableBufferPointer { buffer in
            Self.hexDigits.withUnsafeBufferPointer { digits in
                var at = start
                for byte in value {
                    buffer[at] = digits[Int(byte >> 4)]
                    buffer[at + 1] = digits[Int(byte & 0x0F)]
                    at += 2
                }
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
        case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
        case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
        default: bytes.append(byte)
        }
    }
}

/// Places prepared for a PostgreSQL writer: COPY text lines, encoded on the importer's reading
/// thread so the writer only streams bytes.
public struct PostGISBatch: PlaceBatch {
    /// Ten thousand places. Each batch is one `COPY`, streamed while the reading thread encodes
    /// the next; in batches of 100 000 the two overlapped less, and 1 M places (a CSV in random
    /// order, regions decided) took 10.9–11.9 s to import against 9.3–9.6 s.
    public static var preferredCount: Int { 10_000 }

    /// The COPY text of every place, one line each.
    var text = CopyText()
    var lines: [UInt8] { text.bytes }
    /// The details record of the place being appended.
    private var scratch: [UInt8] = []
    public private(set) var count = 0
    /// Each place's id hashed (`hashValue`, so within this process only): a snapshot whose ids'
    /// hashes never repeat has no id twice, and skips the engine's search for repeats.
    private(set) var idHashes: [Int] = []

    /// Where each line starts in ``text``, and each place's position on the Hilbert curve.
    private var lineStarts: [Int] = []
    private var hilbertKeys: [UInt32] = []

    public init() {}

    public init(_ places: [Place]) throws {
        reserveCapacity(places.count)
        for place in places { try append(place) }
    }

    public mutating func reserveCapacity(_ count: Int) {
        text.reserveCapacity(count * 400)
        lineStarts.reserveCapacity(count)
        hilbertKeys.reserveCapacity(count)
    }

    public mutating func append(_ place: Place) throws {
        let start = text.bytes.count
        try PlaceRecord.appendCopyLine(place, to: &text, scratch: &scratch)
        lineStarts.append(start)
        hilbertKeys.append(HilbertCurve.index(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude))
        idHashes.append(place.id.rawValue.hashValue)
        count += 1
    }

    /// The batch with its lines in Hilbert order, so that nearby places are copied next to
    /// each other and a table filled by COPY keeps them on nearby pages: a near query then reads
    /// a few pages where it read one page a place (near 20 mi on the bench's million places,
    /// 1.3× faster). As it is when it is in that order already, or when an id may come twice
    /// in it: the later of two lines of an id must stay the later.
    func spatiallyOrdered() -> PostGISBatch {
        guard count > 1, zip(hilbertKeys, hilbertKeys.dropFirst()).contains(where: { $0 > $1 }),
            Set(idHashes).count == idHashes.count
        else { return self }
        let order = hilbertKeys.indices.sorted { (hilbertKeys[$0], $0) < (hilbertKeys[$1], $1) }
        var ordered = PostGISBatch()
        ordered.reserveCapacity(count)
        let bytes = text.bytes
        for index in order {
            let end = index + 1 < lineStarts.count ? lineStarts[index + 1] : bytes.count
            ordered.lineStarts.append(ordered.text.bytes.count)
            ordered.text.appendLines(bytes[lineStarts[index]..<end])
            ordered.hilbertKeys.append(hilbertKeys[index])
            ordered.idHashes.append(idHashes[index])
        }
        ordered.count = count
        return ordered
    }
}
