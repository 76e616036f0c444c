import GeoCore
import PlaceModel
import PlaceQuery

/// Places in their stored form, laid out flat: every row's id, source, name and `details`
/// record back to back in one byte buffer, the numbers beside them, and each category
/// identifier of the batch once.
///
/// Encoding is most of the per-place work of a write that is not SQLite's, and it needs no
/// connection, so an importer encodes on one thread while another writes
/// (``PlaceWriter/merge(_:)-(EncodedBatch)``). The flat layout is what makes the hand-over cheap: the
/// writer binds straight from the buffer, and a batch of ten thousand places is freed as a
/// handful of arrays rather than a few hundred thousand strings.
public struct EncodedBatch: PlaceBatch {
    /// A hundred thousand places. The writer stores each batch in Hilbert-curve order, and
    /// SQLite keeps rows in key order, so the larger the batch, the closer the stored order comes
    /// to the map's even when the dump is in no spatial order: places near each other then share
    /// pages, and a query reads fewer of them. On a million places in random order, batches of
    /// 100 000 cost a first page near 20 miles about 12 % less server CPU than batches of
    /// 10 000. The import took the same time where the reading thread sets the pace (regions
    /// decided) and 3–4 % longer where the writer does (`--no-regions`). Larger batches also
    /// cost memory: about 300 bytes a place, with a few batches held at once.
    public static var preferredCount: Int { 100_000 }

    /// Where a row's text or record lies in ``bytes``.
    struct Span: Sendable {
        var start: Int
        var count: Int
    }

    struct Row: Sendable {
        var id: Span
        var source: Span
        var name: Span
        /// Empty when the place has no details (the column is NULL).
        var details: Span
        var latitude: Double
        var longitude: Double
        var hilbert: UInt32
        /// The row's entries in ``rowCategories``.
        var categories: Span
        /// FNV-1a of the id's bytes, to find an id given twice without building strings.
        var idHash: UInt64
        /// The region columns (nil: NULL) and ``PlaceRank/key(_:)``.
        var country: Span?
        var continent: Span?
        var rankKey: Int64
    }

    private(set) var bytes: [UInt8] = []
    private(set) var rows: [Row] = []
    /// Each category identifier of the batch, once.
    private(set) var categoryIdentifiers: [String] = []
    private var categoryCodes: [String: Int] = [:]
    /// Per row, indexes into ``categoryIdentifiers``.
    private(set) var rowCategories: [Int] = []

    /// An empty batch.
    public init() {}

    /// Encodes `places`.
    /// - Throws: ``PlaceStoreError`` when a field cannot be stored.
    public init(_ places: [Place]) throws {
        reserveCapacity(places.count)
        for place in places { try append(place) }
    }

    /// How many places the batch holds.
    public var count: Int { rows.count }
    public var isEmpty: Bool { rows.isEmpty }

    /// Makes room for `count` places.
    public mutating func reserveCapacity(_ count: Int) {
        rows.reserveCapacity(count)
        bytes.reserveCapacity(count * 96)
        rowCategories.reserveCapacity(count)
    }

    /// Encodes one place at the end of the batch.
    /// - Throws: ``PlaceStoreError`` when a field cannot be stored.
    public mutating func append(_ place: Place) throws {
        let id = append(text: place.id.rawValue)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes[id.start..<(id.start + id.count)] { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let source = append(text: place.provenance.source)
        let name = append(text: place.name)
        let detailsStart = bytes.count
        try PlaceDetailsCodec.encode(place, appendingTo: &bytes)
        let details = Span(start: detailsStart, count: bytes.count - detailsStart)
        let categoriesStart = rowCategories.count
        for category in place.categories {
            let identifier = category.identifier
            if let code = categoryCodes[identifier] {
                rowCategories.append(code)
            } else {
                categoryCodes[identifier] = categoryIdentifiers.count
                rowCategories.append(categoryIdentifiers.count)
                categoryIdentifiers.append(identifier)
            }
        }
        let country = place.region?.countryCode.map { append(text: $0) }
        let continent = place.region?.continent.map { append(text: $0.rawValue) }
        let coordinate = place.coordinate
        rows.append(
            Row(
                id: id, source: source, name: name, details: details,
                latitude: coordinate.latitude, longitude: coordinate.longitude,
                hilbert: HilbertCurve.index(latitude: coordinate.latitude, longitude: coordinate.longitude),
                categories: Span(start: categoriesStart, count: rowCategories.count - categoriesStart), idHash: hash,
                country: country, continent: continent, rankKey: PlaceRank.key(of: place)))
    }

    private mutating func append(text: String) -> Span {
        let start = bytes.count
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
        return Span(start: start, count: bytes.count - start)
    }

    /// The rows to write, in Hilbert-curve order (places near each other in one batch share
    /// pages; a large dump in no spatial order still spreads a disc's places over many batches,
    /// see docs/performance-history.md), with an id given twice written once, as its last occurrence.
    /// - Parameter subset: only these rows (by default all).
    /// - Returns: the order, and how many rows were left out as repeated ids.
    func writeOrder(of subset: [Int]? = nil) -> (rows: [Int], superseded: Int) {
        let candidates = subset ?? Array(rows.indices)
        var byID = candidates
        byID.sort { rows[$0].idHash != rows[$1].idHash ? rows[$0].idHash < rows[$1].idHash : $0 < $1 }
        var superseded = Set<Int>()
        var runStart = 0
        while runStart < byID.count {
            var runEnd = runStart + 1
            while runEnd < byID.count && rows[byID[runEnd]].idHash == rows[byID[runStart]].idHash { runEnd += 1 }
            // Within a run of equal hashes (almost always one row), a row repeated later goes.
            for earlier in runStart..<runEnd - 1 {
                for later in (earlier + 1)..<runEnd where sameID(byID[earlier], byID[later]) {
                    superseded.insert(byID[earlier])
                    break
                }
            }
            runStart = runEnd
        }
        var order = superseded.isEmpty ? candidates : candidates.filter { !superseded.contains($0) }
        order.sort { rows[$0].hilbert != rows[$1].hilbert ? rows[$0].hilbert < rows[$1].hilbert : $0 < $1 }
        return (order, superseded.count)
    }

    private func sameID(_ first: Int, _ second: Int) -> Bool {
        let a = rows[first].id, b = rows[second].id
        return a.count == b.count && bytes[a.start..<(a.start + a.count)].elementsEqual(bytes[b.start..<(b.start + b.count)])
    }

    /// The category identifiers of a row.
    func categories(of row: Int) -> ArraySlice<Int> {
        let span = rows[row].categories
        return rowCategories[span.start..<(span.start + span.count)]
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The bytes of a span of ``EncodedBatch/bytes``.
    func slice(_ span: EncodedBatch.Span) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: baseAddress.map { $0 + span.start }, count: span.count)
    }
}
