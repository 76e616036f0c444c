import Foundation
import GeoCore
import PlaceModel

/// Which columns of a generic CSV hold what. A nil name means "the first of the usual names".
public struct CSVColumns: Sendable, Hashable {
    public var latitude: String?
    public var longitude: String?
    public var id: String?
    public var name: String?
    public var category: String?
    /// The field separator (a single character); `,` by default, `\t` for TSV.
    public var delimiter: Character = ","

    public init(
        latitude: String? = nil, longitude: String? = nil, id: String? = nil, name: String? = nil,
        category: String? = nil, delimiter: Character = ","
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.id = id
        self.name = name
        self.category = category
        self.delimiter = delimiter
    }
}

/// Any CSV with a header row: RFC 4180 quoting, UTF-8 with or without BOM, any delimiter.
struct GenericCSVReader: DumpReader {
    private var csv: CSVReader
    var progress: Double? { csv.progress }
    private let indexes: (latitude: Int, longitude: Int, id: Int, name: Int, category: Int?)
    private let names: [String]
    /// Columns that become tags: all but the ones read above.
    private let tagColumns: [Int]
    private let source: String
    private let importedAt: Date
    private let categoryCells = CategoryMemo(splitsCells: true)

    init(path: String, columns: CSVColumns, source: String, importedAt: Date) throws {
        csv = try CSVReader(path: path, delimiter: columns.delimiter)
        guard let header = csv.next() else { throw ImportError.emptyFile(path: path) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        let lowered = names.map { $0.lowercased() }
        func find(_ chosen: String?, _ usual: [String], _ role: String) throws -> Int? {
            if let chosen {
                guard let index = names.firstIndex(of: chosen) ?? lowered.firstIndex(of: chosen.lowercased()) else {
                    throw ImportError.missingColumns(path: path, format: "csv", missing: ["\(chosen) (\(role))"], found: names)
                }
                return index
            }
            return usual.lazy.compactMap { lowered.firstIndex(of: $0) }.first
        }
        var missing: [String] = []
        let latitude = try find(columns.latitude, ["lat", "latitude", "y"], "latitude")
        let longitude = try find(columns.longitude, ["lon", "lng", "long", "longitude", "x"], "longitude")
        let id = try find(columns.id, ["id"], "id")
        let name = try find(columns.name, ["name", "title"], "name")
        if latitude == nil { missing.append("lat/latitude (or --lat-column)") }
        if longitude == nil { missing.append("lon/longitude (or --lon-column)") }
        if id == nil { missing.append("id (or --id-column)") }
        if name == nil { missing.append("name (or --name-column)") }
        guard missing.isEmpty else { throw ImportError.missingColumns(path: path, format: "csv", missing: missing, found: names) }
        indexes = (latitude!, longitude!, id!, name!, try find(columns.category, ["category", "categories"], "category"))
        self.names = names
        let used = Set([indexes.latitude, indexes.longitude, indexes.id, indexes.name] + (indexes.category.map { [$0] } ?? []))
        tagColumns = names.indices.filter { !used.contains($0) }
        self.source = source
        self.importedAt = importedAt
    }

    mutating func next() throws -> DumpRecord? {
        guard let record = csv.next() else { return nil }
        func reject(_ reason: String) -> DumpRecord { .rejected(RowProblem(line: record.line, reason: reason)) }
        let fields = record.fields
        guard fields.count == names.count else { return reject("expected \(names.count) fields, found \(fields.count)") }
        func value(_ index: Int) -> String { fields[index].trimmedWhitespace }
        guard let latitude = Double(value(indexes.latitude)) else {
            return reject("\(names[indexes.latitude]) '\(value(indexes.latitude))' is not a number")
        }
        guard let longitude = Double(value(indexes.longitude)) else {
            return reject("\(names[indexes.longitude]) '\(value(indexes.longitude))' is not a number")
        }
        let coordinate: Coordinate
        do { coordinate = try Coordinate(latitude: latitude, longitude: longitude) } catch { return reject(String(describing: error)) }
        let localID = value(indexes.id), name = value(indexes.name)
        guard !localID.isEmpty else { return reject("\(names[indexes.id]) is empty") }
        guard !name.isEmpty else { return reject("\(names[indexes.name]) is empty") }
        let id: PlaceID
        do { id = try PlaceID(source: source, localID: localID) } catch { return reject(String(describing: error)) }
        let cell = indexes.category.map { categoryCells.parse(value($0)) } ?? CategoryMemo.Cell(categories: [], unknown: [])
        var tags: [String: String] = [:]
        for offset in tagColumns {
            let text = value(offset)
            if !text.isEmpty { tags[names[offset]] = text }
        }
        if !cell.unknown.isEmpty { tags["source_category"] = cell.unknown.joined(separator: ";") }
        return .place(
            Place(
                id: id, name: name, coordinate: coordinate, categories: cell.categories,
                provenance: Provenance(source: source, sourceID: localID, importedAt: importedAt), tags: tags))
    }
}
