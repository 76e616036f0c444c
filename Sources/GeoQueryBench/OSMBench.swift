import CReadOSM
import CZlib
import Foundation
import GeoCore
import PlaceImport
import PlaceStore

/// The OSM rows of `make bench`: reading the shipped extracts and a generated 1 M-node PBF with
/// the Swift reader (``OSMPBFReader``) and with readosm, the C library GeoQuery used before
/// (element callbacks counted, nothing else), and a whole `geoquery import` with the Swift reader.
enum OSMBench {
    /// readosm's count of elements, and the seconds it took.
    static func readosm(_ path: String) -> (Int, Double) {
        var handle: UnsafeRawPointer?
        guard readosm_open(path, &handle) == READOSM_OK else {
            readosm_close(handle)
            return (-1, 0)
        }
        defer { readosm_close(handle) }
        var count = 0
        let start = Date()
        withUnsafeMutablePointer(to: &count) { pointer in
            _ = readosm_parse(
                handle, UnsafeRawPointer(pointer),
                { data, _ in
                    UnsafeMutableRawPointer(mutating: data!).assumingMemoryBound(to: Int.self).pointee += 1
                    return READOSM_OK
                },
                { data, _ in
                    UnsafeMutableRawPointer(mutating: data!).assumingMemoryBound(to: Int.self).pointee += 1
                    return READOSM_OK
                },
                { data, _ in
                    UnsafeMutableRawPointer(mutating: data!).assumingMemoryBound(to: Int.self).pointee += 1
                    return READOSM_OK
                })
        }
        return (count, Date().timeIntervalSince(start))
    }

    static func swift(_ path: String) throws -> (Int, Double) {
        let start = Date()
        let elements = try OSMElementCount.count(path)
        return (elements, Date().timeIntervalSince(start))
    }

    static func report(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let generated = directory + "/generated-1M.osm.pbf"
        if !FileManager.default.fileExists(atPath: generated) { try writeGenerated(to: generated, nodes: 1_000_000) }
        print("")
        print("OSM PBF reading (best of 3 runs; readosm = the C library used before, elements counted only):")
        print(
            [
                pad("file", 22), pad("elements", 9, right: true), pad("Swift", 8, right: true), pad("readosm", 8, right: true),
                pad("ratio", 6, right: true), pad("import (Swift)", 15, right: true),
            ].joined(separator: "  "))
        for path in ["geodata/monaco.osm.pbf", "geodata/andorra.osm.pbf", generated] {
            let elements: Int
            var swiftSeconds: Double
            (elements, swiftSeconds) = try swift(path)
            let readosmElements: Int
            var readosmSeconds: Double
            (readosmElements, readosmSeconds) = readosm(path)
            for _ in 0..<2 {
                swiftSeconds = min(swiftSeconds, try swift(path).1)
                readosmSeconds = min(readosmSeconds, readosm(path).1)
            }
            let index = directory + "/osm-import.sqlite"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }
            let store = try SpatiaLitePlaceIndex(path: index, mode: .createIfMissing)
            let start = Date()
            let summary = try PlaceImporter.importFile(path, format: .osm, into: store, source: "bench-osm")
            let importSeconds = Date().timeIntervalSince(start)
            print(
                [
                    pad((path as NSString).lastPathComponent, 22), pad("\(elements)", 9, right: true),
                    pad(String(format: "%.3f s", swiftSeconds), 8, right: true),
                    pad(readosmElements == elements ? String(format: "%.3f s", readosmSeconds) : "differs", 8, right: true),
                    pad(String(format: "%.2f×", swiftSeconds / max(readosmSeconds, 1e-9)), 6, right: true),
                    pad(String(format: "%.2f s, %d places", importSeconds, summary.added), 15, right: true),
                ].joined(separator: "  "))
        }
    }

    // MARK: A generated PBF

    private static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
    private static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    private static func field(_ number: Int, _ payload: [UInt8], into out: inout [UInt8]) {
        varint(UInt64(number << 3 | 2), into: &out)
        varint(UInt64(payload.count), into: &out)
        out += payload
    }
    private static func packed(_ number: Int, _ values: [UInt64], into out: inout [UInt8]) {
        var payload: [UInt8] = []
        for value in values { varint(value, into: &payload) }
        field(number, payload, into: &out)
    }
    private static func blob(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var packedLength = compressBound(uLong(data.count))
        var compressed = [UInt8](repeating: 0, count: Int(packedLength))
        _ = compress2(&compressed, &packedLength, data, uLong(data.count), 6)
        compressed.removeSubrange(Int(packedLength)...)
        var body: [UInt8] = []
        varint(2 << 3, into: &body)
        varint(UInt64(data.count), into: &body)
        field(3, compressed, into: &body)
        var header: [UInt8] = []
        field(1, Array(type.utf8), into: &header)
        varint(3 << 3, into: &header)
        varint(UInt64(body.count), into: &header)
        return withUnsafeBytes(of: UInt32(header.count).bigEndian, Array.init) + header + body
    }

    /// `nodes` nodes in blocks of 8 000 dense nodes over Europe, one in 25 a named café, and a
    /// named building way over every 40 nodes.
    static func writeGenerated(to path: String, nodes: Int) throws {
        var file: [UInt8] = []
        var header: [UInt8] = []
        field(4, Array("OsmSchema-V0.6".utf8), into: &header)
        field(4, Array("DenseNodes".utf8), into: &header)
        file += blob("OSMHeader", header)
        let strings = ["", "amenity", "cafe", "name", "building", "yes", "Generated place"]
        var random = SplitMix64(seed: 1)
        var wayID: Int64 = 1
        for start in stride(from: 0, to: nodes, by: 8_000) {
            let count = min(8_000, nodes - start)
            var ids: [UInt64] = [], lats: [UInt64] = [], lons: [UInt64] = [], keysValues: [UInt64] = []
            var last = (id: Int64(0), lat: Int64(0), lon: Int64(0))
            for n in start..<(start + count) {
                let id = Int64(n + 1)
                let lat = Int64((36 + random.unit() * 30) * 1e7), lon = Int64((-10 + random.unit() * 40) * 1e7)
                ids.append(zigzag(id - last.id))
                lats.append(zigzag(lat - last.lat))
                lons.append(zigzag(lon - last.lon))
                last = (id, lat, lon)
                if n % 25 == 0 { keysValues += [1, 2, 3, 6] }
                keysValues.append(0)
            }
            var dense: [UInt8] = []
            packed(1, ids, into: &dense)
            packed(8, lats, into: &dense)
            packed(9, lons, into: &dense)
            packed(10, keysValues, into: &dense)
            var group: [UInt8] = []
            field(2, dense, into: &group)
            var block: [UInt8] = []
            var table: [UInt8] = []
            for string in strings { field(1, Array(string.utf8), into: &table) }
            field(1, table, into: &block)
            field(2, group, into: &block)
            varint(17 << 3, into: &block)
            varint(100, into: &block)
            file += blob("OSMData", block)
        }
        // Ways after every node, as OSM orders them.
        var block: [UInt8] = []
        var table: [UInt8] = []
        for string in strings { field(1, Array(string.utf8), into: &table) }
        field(1, table, into: &block)
        var group: [UInt8] = []
        for first in stride(from: 1, to: nodes - 4, by: 40) {
            var way: [UInt8] = []
            varint(1 << 3, into: &way)
            varint(UInt64(wayID), into: &way)
            wayID += 1
            packed(2, [4, 3], into: &way)
            packed(3, [5, 6], into: &way)
            packed(8, [zigzag(Int64(first)), 1, 1, zigzag(-2)], into: &way)
            field(3, way, into: &group)
            if group.count > 1 << 20 {
                var full = block
                field(2, group, into: &full)
                file += blob("OSMData", full)
                group = []
            }
        }
        if !group.isEmpty {
            field(2, group, into: &block)
            file += blob("OSMData", block)
        }
        try Data(file).write(to: URL(fileURLWithPath: path))
    }
}
