import CZlib
import Foundation

/// Which element kinds a pass over an OSM file wants decoded.
struct OSMElementKinds: OptionSet, Sendable {
    let rawValue: Int
    static let nodes = OSMElementKinds(rawValue: 1)
    static let ways = OSMElementKinds(rawValue: 2)
    static let relations = OSMElementKinds(rawValue: 4)
}

/// A relation member: `type` is `n`, `w` or `r`.
struct OSMMember {
    var type: Character
    var id: Int64
    var role: String
}

/// What an OSM reader hands its elements to, in file order. Each call answers false to stop.
protocol OSMElementSink: AnyObject {
    func node(id: Int64, latitude: Double, longitude: Double, tags: [(String, String)]) -> Bool
    func way(id: Int64, refs: [Int64], tags: [(String, String)]) -> Bool
    func relation(id: Int64, members: [OSMMember], tags: [(String, String)]) -> Bool
}

/// Why an OSM file could not be read; the reader's caller names the file.
struct OSMFormatError: Error, Sendable { var reason: String }

/// Reads OpenStreetMap PBF in Swift: the file's blobs framed and checked against the format's
/// size limits before anything is allocated, zlib blocks inflated to exactly their stated size,
/// and the protobuf messages decoded with every length, index and count checked
/// (``ProtobufReader``). A hostile file is an ``OSMFormatError`` naming what is wrong and where,
/// never a crash; arithmetic on its numbers wraps rather than traps.
///
/// Reads `OSMHeader` (refusing required features it does not know, such as history files) and
/// `OSMData` blocks of plain nodes, dense nodes, ways and relations; other blob types are
/// skipped, as the format asks.
enum OSMPBFReader {
    /// The format's limits: a blob header ≤ 64 KiB, a blob ≤ 32 MiB packed and unpacked.
    static let maximumHeaderSize = 64 << 10
    static let maximumBlobSize = 32 << 20
    static let knownFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]

    /// Reads `path`, handing the `kinds` wanted to `sink`.
    static func read(path: String, kinds: OSMElementKinds, sink: any OSMElementSink) throws(OSMFormatError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw OSMFormatError(reason: "cannot open the file") }
        defer { try? handle.close() }
        var blobIndex = 0
        var offset: UInt64 = 0
        var sawHeader = false
        while true {
            let lengthBytes = [UInt8](handle.readData(ofLength: 4))
            if lengthBytes.isEmpty { break }
            func fail(_ reason: String) -> OSMFormatError {
                OSMFormatError(reason: "blob \(blobIndex) at byte \(offset): \(reason)")
            }
            guard lengthBytes.count == 4 else { throw fail("the file ends inside a blob's length (truncated?)") }
            let headerLength = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
            guard headerLength > 0, headerLength <= maximumHeaderSize else {
                throw fail("a blob header of \(headerLength) bytes is outside 1…\(maximumHeaderSize)")
            }
            let headerData = [UInt8](handle.readData(ofLength: headerLength))
            guard headerData.count == headerLength else { throw fail("the file ends inside a blob header (truncated?)") }
            var type = "", dataSize = -1
            do {
                try headerData.withUnsafeBytes { bytes in
                    var reader = ProtobufReader(bytes)
                    while let (number, wire) = try reader.nextField() {
                        switch (number, wire) {
                        case (1, .lengthDelimited): type = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
                        case (3, .varint): dataSize = Int(truncatingIfNeeded: try reader.varint())
                        default: try reader.skip(wire)
                        }
                    }
                }
            } catch { throw fail("the blob header is malformed: \(Self.reason(error))") }
            guard dataSize > 0, dataSize <= maximumBlobSize else {
                throw fail("a blob of \(dataSize) bytes is outside 1…\(maximumBlobSize)")
            }
            let blob = [UInt8](handle.readData(ofLength: dataSize))
            guard blob.count == dataSize else { throw fail("the file ends inside a blob (truncated?)") }
            if type == "OSMHeader" || type == "OSMData" {
                guard sawHeader || type == "OSMHeader" else { throw fail("the file does not start with an OSMHeader blob") }
                let data: [UInt8]
                do { data = try inflate(blob) } catch { throw fail(Self.reason(error)) }
                do {
                    let keepGoing = try data.withUnsafeBytes { bytes -> Bool in
                        if type == "OSMHeader" {
                            try checkHeader(bytes)
                            return true
                        }
                        return try decodeBlock(bytes, kinds: kinds, sink: sink)
                    }
                    if !keepGoing { return }
                } catch { throw fail(Self.reason(error)) }
                sawHeader = true
            }
            offset += UInt64(4 + headerLength + dataSize)
            blobIndex += 1
        }
        guard sawHeader else { throw OSMFormatError(reason: "the file holds no OSMHeader blob") }
    }

    /// The blob's data, inflated when it is zlib-compressed.
    static func inflate(_ blob: [UInt8]) throws -> [UInt8] {
        try blob.withUnsafeBytes { bytes -> [UInt8] in
            var reader = ProtobufReader(bytes)
            var raw: UnsafeRawBufferPointer?
            var zlib: UnsafeRawBufferPointer?
            var rawSize = -1
            while let (number, wire) = try reader.nextField() {
                switch (number, wire) {
                case (1, .lengthDelimited): raw = try reader.lengthDelimited()
                case (2, .varint): rawSize = Int(truncatingIfNeeded: try reader.varint())
                case (3, .lengthDelimited): zlib = try reader.lengthDelimited()
                case (4, _), (5, _), (6, _), (7, _):
                    let name = [4: "lzma", 5: "bzip2", 6: "lz4", 7: "zstd"][number]!
                    throw ProtobufReader.Malformed(reason: "\(name)-compressed blocks are not supported (zlib and raw are)")
                default: try reader.skip(wire)
                }
            }
            if let raw { return Array(raw) }
            guard let zlib else { throw ProtobufReader.Malformed(reason: "the blob has no data") }
            guard rawSize > 0, rawSize <= maximumBlobSize else {
                throw ProtobufReader.Malformed(reason: "an unpacked size of \(rawSize) bytes is outside 1…\(maximumBlobSize)")
            }
            var output = [UInt8](repeating: 0, count: rawSize)
            var written = uLongf(rawSize)
            let status = output.withUnsafeMutableBytes { out in
                uncompress(
                    out.baseAddress!.assumingMemoryBound(to: Bytef.self), &written,
                    zlib.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(zlib.count))
            }
            guard status == Z_OK else { throw ProtobufReader.Malformed(reason: "the zlib data does not inflate (zlib status \(status))") }
            guard Int(written) == rawSize else {
                throw ProtobufReader.Malformed(reason: "the zlib data inflates to \(written) bytes, not the \(rawSize) stated")
            }
            return output
        }
    }

    /// The reason of a decoding error.
    static func reason(_ error: any Error) -> String {
        (error as? ProtobufReader.Malformed)?.reason ?? String(describing: error)
    }

    /// Refuses a header that requires features this reader does not know.
    static func checkHeader(_ bytes: UnsafeRawBufferPointer) throws(ProtobufReader.Malformed) {
        var reader = ProtobufReader(bytes)
        while let (number, wire) = try reader.nextField() {
            if number == 4, wire == .lengthDelimited {
                let feature = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
                guard knownFeatures.contains(feature) else {
                    throw ProtobufReader.Malformed(
                        reason: "the file requires feature '\(feature)'; readable files need only \(knownFeatures.sorted().joined(separator: ", "))")
                }
            } else {
                try reader.skip(wire)
            }
        }
    }
}

/// Reads every element of an OSM file and counts them: for measuring the reader (`make bench`)
/// and checking a file reads to the end.
public enum OSMElementCount {
    /// The number of nodes, ways and relations in the PBF or XML file at `path`.
    /// - Throws: ``ImportError/corruptDump(path:reason:)`` naming what is wrong.
    public static func count(_ path: String) throws -> Int {
        final class Counter: OSMElementSink {
            var elements = 0
            func node(id: Int64, latitude: Double, longitude: Double, tags: [(String, String)]) -> Bool {
                elements += 1
                return true
            }
            func way(id: Int64, refs: [Int64], tags: [(String, String)]) -> Bool {
                elements += 1
                return true
            }
            func relation(id: Int64, members: [OSMMember], tags: [(String, String)]) -> Bool {
                elements += 1
                return true
            }
        }
        let counter = Counter()
        let input = try OSMInput(path: path)
        defer { input.removeTemporaryFiles() }
        do {
            if input.isPBF {
                try OSMPBFReader.read(path: input.readablePath, kinds: [.nodes, .ways, .relations], sink: counter)
            } else {
                try OSMXMLReader.read(path: input.readablePath, kinds: [.nodes, .ways, .relations], sink: counter)
            }
        } catch {
            throw ImportError.corruptDump(path: path, reason: error.reason)
        }
        return counter.elements
    }
}
