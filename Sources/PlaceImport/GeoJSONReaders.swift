import Foundation
import GeoCore
import PlaceModel

/// Which GeoJSON properties hold a place's id, name and categories.
public struct PropertyMapping: Sendable, Hashable {
    /// Property holding the id; the Feature's own `id` member is used when it is absent.
    public var idField = "id"
    public var nameField = "name"
    /// Property holding a category id or a list of them (`category`, else `categories`).
    public var categoryField = "category"

    public init(idField: String = "id", nameField: String = "name", categoryField: String = "category") {
        self.idField = idField
        self.nameField = nameField
        self.categoryField = categoryField
    }
}

/// Turns one GeoJSON Feature (as bytes) into a place or a reason.
struct FeatureDecoder {
    let source: String
    let mapping: PropertyMapping
    let importedAt: Date
    let categoryMemo = CategoryMemo(splitsCells: false)

    func record(_ bytes: some Collection<UInt8>, line: Int) -> DumpRecord {
        func reject(_ reason: String) -> DumpRecord { .rejected(RowProblem(line: line, reason: reason)) }
        let parsed: JSONValue
        do { parsed = try JSONScanner.parse(bytes) } catch { return reject(error.description) }
        guard case .object(let object) = parsed else { return reject("not a JSON object") }
        guard object["type"]?.stringValue == "Feature" else {
            return reject("not a GeoJSON Feature (type is \(object["type"].flatMap(Self.text) ?? "missing"))")
        }
        guard case .object(let geometry)? = object["geometry"] else { return reject("the feature has no geometry") }
        let geometryType = geometry["type"]?.stringValue ?? "missing"
        let coordinate: Coordinate
        if geometryType == "Point" {
            guard case .array(let position)? = geometry["coordinates"], position.count >= 2,
                let longitude = position[0].doubleValue, let latitude = position[1].doubleValue
            else {
                return reject("Point coordinates must be [longitude, latitude]")
            }
            do { coordinate = try Coordinate(latitude: latitude, longitude: longitude) } catch { return reject(String(describing: error)) }
        } else {
            // Lines, polygons and multi-geometries are placed at their centroid.
            switch Centroid.of(geometry) {
            case .success(let centre): coordinate = centre
            case .failure(let reason): return reject(reason.text)
            }
        }
        var properties: [String: JSONValue] = [:]
        if case .object(let members)? = object["properties"] { properties = members }
        guard let localID = properties[mapping.idField].flatMap(Self.text) ?? object["id"].flatMap(Self.text), !localID.isEmpty else {
            return reject("no id: neither property '\(mapping.idField)' nor the feature's id is set")
        }
        guard let name = properties[mapping.nameField].flatMap(Self.text), !name.isEmpty else {
            return reject("no name: property '\(mapping.nameField)' is missing or empty")
        }
        let id: PlaceID
        do { id = try PlaceID(source: source, localID: localID) } catch { return reject(String(describing: error)) }
        var categories: [Category] = []
        var unknownCategories: [String] = []
        let rawCategories = properties[mapping.categoryField] ?? (mapping.categoryField == "category" ? properties["categories"] : nil)
        let categoryValues: [JSONValue]
        switch rawCategories {
        case .array(let values)?: categoryValues = values
        case let value?: categoryValues = [value]
        case nil: categoryValues = []
        }
        for value in categoryValues {
            guard let text = Self.text(value) else { continue }
            let parsed = categoryMemo.parse(text)
            categories += parsed.categories.filter { !categories.contains($0) }
            unknownCategories += parsed.unknown
        }
        var tags: [String: String] = [:]
        for (key, value) in properties
        where key != mapping.idField && key != mapping.nameField
            && key != mapping.categoryField && key != "categories"
        {
            if let text = Self.text(value) { tags[key] = text }
        }
        if !unknownCategories.isEmpty { tags["source_category"] = unknownCategories.joined(separator: ";") }
        if geometryType != "Point" { tags["geometry"] = geometryType }
        return .place(
            Place(
                id: id, name: name, coordinate: coordinate, categories: categories,
                provenance: Provenance(source: source, sourceID: localID, importedAt: importedAt), tags: tags))
    }

    /// Strings as they are, numbers and booleans as their JSON text; nil for anything else.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .int(let integer): return String(integer)
        case .double(let double): return double == double.rounded() && abs(double) < 1e15 ? String(Int64(double)) : String(double)
        case .bool(let flag): return flag ? "true" : "false"
        case .null, .array, .object: return nil
        }
    }
}

/// GeoJSONSeq / newline-delimited GeoJSON: one Feature per line, optionally prefixed by the
/// RS character (RFC 8142). Streamed: memory stays flat whatever the file size.
struct GeoJSONSeqReader: DumpReader {
    private var lines: LineReader
    var progress: Double? { lines.progress }
    private let decoder: FeatureDecoder

    init(path: String, decoder: FeatureDecoder) throws {
        lines = try LineReader(path: path)
        self.decoder = decoder
    }

    mutating func next() throws -> DumpRecord? {
        let decoder = self.decoder
        return lines.nextRecord { line, number in
            var body = line
            while let first = body.first, first == 0x1E || first == 0x20 || first == 0x09 { body = body.dropFirst() }
            return body.isEmpty ? nil : decoder.record(body, line: number)
        }
    }
}

/// A GeoJSON FeatureCollection, streamed: the bytes of each element of `features` are cut out
/// by a small scanner (strings and escapes respected) and decoded one at a time, so a file of
/// any size is read in constant memory.
struct GeoJSONCollectionReader: DumpReader {
    private let handle: FileHandle
    private let path: String
    private let decoder: FeatureDecoder
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var line = 1
    private var inFeatures = false
    private var finished = false

    init(path: String, decoder: FeatureDecoder) throws {
        handle = try openDump(path).handle
        self.path = path
        self.decoder = decoder
    }

    private mutating func byte() -> UInt8? {
        if position >= buffer.count {
            if atEnd { return nil }
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty {
                atEnd = true
                return nil
            }
            buffer = Array(chunk)
            position = 0
        }
        defer { position += 1 }
        let value = buffer[position]
        if value == 0x0A { line += 1 }
        return value
    }

    /// Skips a JSON string whose opening quote was just read; returns its bytes.
    private mutating func string() -> [UInt8] {
        var bytes: [UInt8] = []
        while let value = byte() {
            if value == UInt8(ascii: "\\") {
                if let escaped = byte() {
                    bytes.append(value)
                    bytes.append(escaped)
                }
                continue
            }
            if value == UInt8(ascii: "\"") { return bytes }
            bytes.append(value)
        }
        return bytes
    }

    /// Moves to the first element of the top-level `features` array.
    private mutating func seekFeatures() throws {
        var depth = 0
        var lastKey: [UInt8] = []
        while let value = byte() {
            switch value {
            case UInt8(ascii: "\""):
                let text = string()
                if depth == 1 { lastKey = text }
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: "["):
                if depth == 1 && lastKey == Array("features".utf8) {
                    inFeatures = true
                    return
                }
                depth += 1
            case UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        throw ImportError.missingColumns(path: path, format: "geojson", missing: ["features"], found: [])
    }

    mutating func next() throws -> DumpRecord? {
        if finished { return nil }
        if !inFeatures { try seekFeatures() }
        // Skip to the next element's '{' (or the end of the array).
        while let value = byte() {
            if value == UInt8(ascii: "]") {
                finished = true
                return nil
            }
            if value == UInt8(ascii: "{") {
                let startLine = line
                var element: [UInt8] = [value]
                var depth = 1
                while depth > 0, let inner = byte() {
                    element.append(inner)
                    if inner == UInt8(ascii: "\"") {
                        element.append(contentsOf: string())
                        element.append(UInt8(ascii: "\""))
                    } else if inner == UInt8(ascii: "{") || inner == UInt8(ascii: "[") {
                        depth += 1
                    } else if inner == UInt8(ascii: "}") || inner == UInt8(ascii: "]") {
                        depth -= 1
                    }
                }
                if depth > 0 { return .rejected(RowProblem(line: startLine, reason: "the file ends inside this feature")) }
                return decoder.record(element, line: startLine)
            }
        }
        finished = true
        return nil
    }
}
