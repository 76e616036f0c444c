import CZlib
import Foundation

/// One feature of a country-boundaries GeoJSON file: its properties (text values) and its
/// polygons, each a list of rings (the exterior first, then holes), each ring flat
/// `[x0, y0, x1, y1, …]` in degrees of longitude and latitude.
struct BoundaryFeature {
    var properties: [String: String]
    var polygons: [[[Double]]]
}

/// Reads a GeoJSON FeatureCollection of Polygon / MultiPolygon features, plain or gzip-compressed
/// (Natural Earth's admin-0 countries as `geodata/countries.geojson.gz` holds them).
///
/// A small parser of its own rather than `JSONSerialization`: the file has a million
/// coordinates, and boxing each in an object costs seconds where this takes a fraction of one.
enum BoundaryFile {
    /// The bytes of `path`, inflated when it is gzip-compressed.
    static func bytes(of path: String) throws -> [UInt8] {
        guard let file = gzopen(path, "rb") else { throw RegionError.unreadable(path: path, reason: "cannot open it") }
        defer { gzclose(file) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let read = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32($0.count)) }
            if read < 0 { throw RegionError.unreadable(path: path, reason: "it is not valid gzip") }
            if read == 0 { break }
            result.append(contentsOf: chunk[0..<Int(read)])
            guard result.count <= 256 << 20 else { throw RegionError.unreadable(path: path, reason: "it is over 256 MB") }
        }
        return result
    }

    /// The features of the file at `path`.
    static func features(at path: String) throws -> [BoundaryFeature] {
        let data = try bytes(of: path)
        do {
            var parser = Parser(bytes: data)
            return try parser.featureCollection()
        } catch let error as Parser.Failure {
            throw RegionError.malformed(path: path, reason: "\(error.reason) at byte \(error.offset)")
        }
    }

    /// A recursive-descent reader of just what a boundaries file needs.
    struct Parser {
        struct Failure: Error {
            var reason: String
            var offset: Int
        }

        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// A value kept from the file: text, a number, an object, a list, or coordinates.
        indirect enum Value {
            case text(String), number(Double), other, object([String: Value]), list([Value])
            case coordinates(Nested)
        }
        /// Nested coordinate arrays: a position's numbers, or a list of deeper arrays.
        indirect enum Nested {
            case position(Double, Double)
            case list([Nested])
        }

        mutating func featureCollection() throws -> [BoundaryFeature] {
            guard case .object(let root) = try value(depth: 0) else { throw fail("the file is not a JSON object") }
            guard case .list(let items)? = root["features"] else { throw fail("it has no \"features\" list") }
            return try items.map { item in
                guard case .object(let feature) = item, case .object(let geometry)? = feature["geometry"],
                    case .text(let type)? = geometry["type"], case .coordinates(let nested)? = geometry["coordinates"]
                else {
                    throw fail("a feature has no geometry with coordinates")
                }
                var properties: [String: String] = [:]
                if case .object(let values)? = feature["properties"] {
                    for (key, value) in values { if case .text(let text) = value { properties[key] = text } }
                }
                let polygons: [[[Double]]]
                switch type {
                case "Polygon": polygons = [try polygon(nested)]
                case "MultiPolygon":
                    guard case .list(let items) = nested else { throw fail("a MultiPolygon's coordinates are not a list") }
                    polygons = try items.map(polygon)
                default: throw fail("geometry type \(type) is not Polygon or MultiPolygon")
                }
                return BoundaryFeature(properties: properties, polygons: polygons)
            }
        }

        private func polygon(_ nested: Nested) throws -> [[Double]] {
            guard case .list(let rings) = nested else { throw fail("a polygon is not a list of rings") }
            return try rings.map { ring in
                guard case .list(let positions) = ring else { throw fail("a ring is not a list of positions") }
                var flat: [Double] = []
                flat.reserveCapacity(positions.count * 2)
                for position in positions {
                    guard case .position(let x, let y) = position else { throw fail("a ring holds something other than positions") }
                    flat.append(x)
                    flat.append(y)
                }
                guard flat.count >= 8 else { throw fail("a ring has fewer than 4 positions") }
                return flat
            }
        }

        private func fail(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

        private mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                index += 1
            }
        }

        private mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else {
                throw fail("expected '\(Character(Unicode.Scalar(byte)))'")
            }
            index += 1
        }

        mutating func value(depth: Int) throws -> Value {
            guard depth < 64 else { throw fail("nesting is deeper than 64") }
            skipSpace()
            guard index < bytes.count else { throw fail("the file ends early") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: Value] = [:]
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    let key = try string()
                    try expect(UInt8(ascii: ":"))
                    members[key] = key == "coordinates" ? .coordinates(try nested(depth: depth + 1)) : try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.count else { throw fail("the file ends inside an object") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        return .object(members)
                    }
                    throw fail("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [Value] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .list(items)
                }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw fail("the file ends inside a list") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    if bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        return .list(items)
                    }
                    throw fail("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .text(try string())
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                while index < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) { index += 1 }
                return .other
            default:
                return .number(try number())
            }
        }

        /// Coordinates: lists nested to any depth whose innermost lists are positions.
        private mutating func nested(depth: Int) throws -> Nested {
            guard depth < 64 else { throw fail("nesting is deeper than 64") }
            try expect(UInt8(ascii: "["))
            skipSpace()
            guard index < bytes.count else { throw fail("the file ends inside coordinates") }
            if bytes[index] != UInt8(ascii: "[") {
                let x = try number()
                try expect(UInt8(ascii: ","))
                let y = try number()
                skipSpace()
                while index < bytes.count, bytes[index] == UInt8(ascii: ",") {  // an altitude: skipped
                    index += 1
                    _ = try number()
                    skipSpace()
                }
                try expect(UInt8(ascii: "]"))
                guard (-180...180).contains(x), (-90...90).contains(y) else { throw fail("position \(x), \(y) is outside lon -180…180, lat -90…90") }
                return .position(x, y)
            }
            var items: [Nested] = []
            while true {
                items.append(try nested(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw fail("the file ends inside coordinates") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .list(items)
                }
                throw fail("expected ',' or ']' in coordinates")
            }
        }

        private mutating func number() throws -> Double {
            skipSpace()
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                guard
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                        || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                else { break }
                index += 1
            }
            guard index > start, index - start < 40 else { throw fail("expected a number") }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw fail("'\(text)' is not a number") }
            return value
        }

        private mutating func string() throws -> String {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string") }
            index += 1
            let start = index
            var escaped = false
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\") {
                    escaped = true
                    index += 1
                }
                index += 1
            }
            guard index < bytes.count else { throw fail("the file ends inside a string") }
            defer { index += 1 }
            let raw = bytes[start..<index]
            guard escaped else { return String(decoding: raw, as: UTF8.self) }
            // Rare here (names are plain): let Foundation undo the escapes.
            let quoted = [UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]
            guard let text = try? JSONDecoder().decode(String.self, from: Data(quoted)) else { throw fail("a string has a bad escape") }
            return text
        }
    }
}
