import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// OpenStreetMap dumps — `.osm.pbf`, `.osm` XML and `.osm.bz2` — read in Swift
/// (``OSMPBFReader``, ``OSMXMLReader``): a hostile file is an error naming what is wrong, never
/// a crash.
///
/// Places are nodes, ways (at the centroid of their area when closed, of their line when not)
/// and multipolygon relations (at the centroid of their outer rings) that carry a POI tag and a
/// name (``OSMTags``). Ids are `osm:n<id>`, `osm:w<id>`, `osm:r<id>`.
///
/// Elements come in file order (nodes, then ways, then relations), so the reader makes up to
/// three passes, keeping only what places need:
/// 1. ways and relations: the POI ways with their node ids, the POI multipolygons with their
///    outer ways' ids;
/// 2. ways again, only when there are POI multipolygons: the node ids of their outer ways;
/// 3. nodes: POI nodes become places; the coordinates of the nodes that step 1 and 2 asked for
///    are kept, and then the ways and relations become places.
/// Memory grows with the POIs of the dump, not with its nodes. The readers push elements, and an
/// import pulls records (``DumpReader/next()``), so the passes run on a thread of their own and
/// hand records over through a bounded queue.
final class OSMDumpReader: DumpReader {
    private let queue = BoundedQueue<DumpRecord>(capacity: 8192)
    /// Where a renamed or compressed dump is made readable; gone once the last record is read.
    let temporaryDirectory: URL?

    init(path: String, importedAt: Date) throws {
        let input = try OSMInput(path: path)
        temporaryDirectory = input.temporaryDirectory
        let scan = OSMScan(path: path, input: input, importedAt: importedAt, queue: queue)
        let thread = Thread { [scan] in scan.run() }
        thread.stackSize = 8 << 20
        thread.start()
    }

    deinit { queue.cancel() }

    func next() throws -> DumpRecord? { try queue.pop() }
}

/// What an OSM file holds, by its first bytes; `.bz2` is decompressed to a temporary `.osm` first.
struct OSMInput: Sendable {
    /// The path the readers read.
    let readablePath: String
    /// PBF or XML (after decompression).
    let isPBF: Bool
    /// A temporary directory to remove when done.
    let temporaryDirectory: URL?

    enum Kind { case pbf, xml, bzip2 }

    /// What a file holds, by its first bytes: a PBF `OSMHeader` blob, XML, or a bzip2 stream.
    static func kind(ofHead head: [UInt8]) -> Kind? {
        if head.count >= 15, head[4] == 0x0A, head[5] == 0x09, Array(head[6..<15]) == Array("OSMHeader".utf8) { return .pbf }
        if head.starts(with: Array("BZh".utf8)) { return .bzip2 }
        let text = String(decoding: head.prefix(512), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.hasPrefix("<osm") || (text.hasPrefix("<?xml") && text.contains("<osm")) ? .xml : nil
    }

    init(path: String) throws {
        let handle = try openDump(path).handle
        let head = [UInt8](handle.readData(ofLength: 512))
        try? handle.close()
        guard !head.isEmpty else { throw ImportError.emptyFile(path: path) }
        guard let kind = OSMInput.kind(ofHead: head) else {
            throw ImportError.corruptDump(
                path: path, reason: "not an OpenStreetMap file (neither PBF with an OSMHeader blob, nor <osm> XML, nor bzip2)")
        }
        isPBF = kind == .pbf
        guard kind == .bzip2 else {
            readablePath = path
            temporaryDirectory = nil
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-osm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        temporaryDirectory = directory
        do {
            let output = directory.appendingPathComponent("dump.osm")
            try Bzip2.decompress(path, to: output.path)
            readablePath = output.path
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func removeTemporaryFiles() {
        if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
    }
}

/// The passes over one dump, run on the reader's thread; the readers hand it elements.
final class OSMScan: OSMElementSink, @unchecked Sendable {
    // @unchecked Sendable: a scan is made on the importing thread and handed to the reading
    // thread before reading starts; from then on only that thread (the readers call back on it)
    // touches its mutable state. The consumer talks to it only through `queue`.
    enum Phase { case waysAndRelations, relationMembers, nodes }

    /// A way or relation that is a place, waiting for its nodes' coordinates.
    struct Pending {
        let kind: Character
        let id: Int64
        let tags: [String: String]
        let name: String
        let categories: [Category]
        /// The way's nodes, or the relation's outer ways.
        let members: [Int64]
    }

    let path: String
    let input: OSMInput
    let importedAt: Date
    let queue: BoundedQueue<DumpRecord>
    var phase = Phase.waysAndRelations
    var ways: [Pending] = []
    var relations: [Pending] = []
    var memberWays: [Int64: [Int64]] = [:]
    var neededNodes = Set<Int64>()
    var coordinates: [Int64: (Double, Double)] = [:]
    /// Set when the consumer went away: the callbacks ask the reader to stop.
    var cancelled = false

    init(path: String, input: OSMInput, importedAt: Date, queue: BoundedQueue<DumpRecord>) {
        self.path = path
        self.input = input
        self.importedAt = importedAt
        self.queue = queue
    }

    func run() {
        var failure: (any Error)?
        do {
            if !input.isPBF {
                do { try OSMXMLReader.checkUTF8(path: input.readablePath) } catch {
                    throw ImportError.corruptDump(path: path, reason: error.reason)
                }
            }
            try parse(.waysAndRelations)
            if !relations.isEmpty && !cancelled { try parse(.relationMembers) }
            if !cancelled { try parse(.nodes) }
            if !cancelled { emitWaysAndRelations() }
        } catch {
            failure = error
        }
        // Before the consumer hears of the end, so no temporary file outlives the import.
        input.removeTemporaryFiles()
        queue.finish(error: failure)
    }

    private func parse(_ phase: Phase) throws {
        self.phase = phase
        let kinds: OSMElementKinds =
            switch phase {
            case .waysAndRelations: [.ways, .relations]
            case .relationMembers: .ways
            case .nodes: .nodes
            }
        do {
            if input.isPBF {
                try OSMPBFReader.read(path: input.readablePath, kinds: kinds, sink: self)
            } else {
                try OSMXMLReader.read(path: input.readablePath, kinds: kinds, sink: self, checkedUTF8: true)
            }
        } catch {
            throw ImportError.corruptDump(path: path, reason: error.reason)
        }
    }

    /// Hands a record to the consumer; false (stop) when it went away.
    private func emit(_ record: DumpRecord) -> Bool {
        if queue.push(record) { return true }
        cancelled = true
        return false
    }

    private static func element(_ kind: Character, _ id: Int64) -> String {
        "\(kind == "n" ? "node" : kind == "w" ? "way" : "relation") \(id)"
    }

    func node(id: Int64, latitude: Double, longitude: Double, tags: [(String, String)]) -> Bool {
        if neededNodes.contains(id) { coordinates[id] = (longitude, latitude) }
        guard !tags.isEmpty, let tags = OSMScan.interestingTags(tags) else { return true }
        switch OSMTags.verdict(tags) {
        case .notAPOI:
            return true
        case .unnamed:
            return emit(.skipped(RowProblem(element: OSMScan.element("n", id), reason: "a POI without a name")))
        case .place(let name, let categories):
            do {
                let coordinate = try Coordinate(latitude: latitude, longitude: longitude)
                return emit(
                    .place(
                        OSMTags.place(
                            kind: "n", id: id, tags: tags, name: name, categories: categories,
                            coordinate: coordinate, importedAt: importedAt)))
            } catch {
                return emit(.rejected(RowProblem(element: OSMScan.element("n", id), reason: String(describing: error))))
            }
        }
    }

    func way(id: Int64, refs: [Int64], tags: [(String, String)]) -> Bool {
        if phase == .relationMembers {
            if memberWays[id] != nil {
                memberWays[id] = refs
                neededNodes.formUnion(refs)
            }
            return true
        }
        guard !tags.isEmpty, let tags = OSMScan.interestingTags(tags) else { return true }
        let element = OSMScan.element("w", id)
        switch OSMTags.verdict(tags) {
        case .notAPOI:
            return true
        case .unnamed:
            return emit(.skipped(RowProblem(element: element, reason: "a POI without a name")))
        case .place(let name, let categories):
            guard !refs.isEmpty else { return emit(.rejected(RowProblem(element: element, reason: "no nodes"))) }
            ways.append(Pending(kind: "w", id: id, tags: tags, name: name, categories: categories, members: refs))
            neededNodes.formUnion(refs)
            return true
        }
    }

    func relation(id: Int64, members: [OSMMember], tags: [(String, String)]) -> Bool {
        guard !tags.isEmpty, let tags = OSMScan.interestingTags(tags, extra: "type") else { return true }
        let element = OSMScan.element("r", id)
        let (name, categories): (String, [Category])
        switch OSMTags.verdict(tags) {
        case .notAPOI: return true
        case .unnamed: return emit(.skipped(RowProblem(element: element, reason: "a POI without a name")))
        case .place(let placeName, let placeCategories): (name, categories) = (placeName, placeCategories)
        }
        guard tags["type"] == "multipolygon" else {
            return emit(.skipped(RowProblem(element: element, reason: "a \(tags["type"] ?? "untyped") relation has no place of its own")))
        }
        let outer = members.filter { $0.type == "w" && ($0.role == "outer" || $0.role.isEmpty) }.map(\.id)
        guard !outer.isEmpty else { return emit(.rejected(RowProblem(element: element, reason: "a multipolygon without outer ways"))) }
        relations.append(Pending(kind: "r", id: id, tags: tags, name: name, categories: categories, members: outer))
        for way in outer { memberWays[way] = [] }
        return true
    }

    private func emitWaysAndRelations() {
        func positions(_ refs: [Int64]) -> [(Double, Double)] { refs.compactMap { coordinates[$0] } }
        for way in ways {
            let closed = way.members.count >= 4 && way.members.first == way.members.last
            let points = positions(way.members)
            guard emitPlaced(way, rings: closed ? [points] : [], lines: closed ? [] : [points], nodeCount: way.members.count)
            else { return }
        }
        for relation in relations {
            let members = relation.members.compactMap { memberWays[$0] }.filter { !$0.isEmpty }
            let (ringRefs, lineRefs) = OSMScan.assembleRings(members)
            guard
                emitPlaced(
                    relation, rings: ringRefs.map(positions).filter { $0.count >= 3 },
                    lines: lineRefs.map(positions).filter { !$0.isEmpty },
                    nodeCount: members.reduce(0) { $0 + $1.count })
            else { return }
        }
    }

    /// Emits a way or relation at its centroid; false when the consumer went away.
    private func emitPlaced(_ pending: Pending, rings: [[(Double, Double)]], lines: [[(Double, Double)]], nodeCount: Int) -> Bool {
        let element = OSMScan.element(pending.kind, pending.id)
        let record: DumpRecord
        if (rings + lines).allSatisfy(\.isEmpty) {
            record = .rejected(RowProblem(element: element, reason: "none of its \(nodeCount) nodes is in the file"))
        } else {
            switch Centroid.of(points: [], lines: lines, rings: rings, kind: element) {
            case .failure(let reason):
                record = .rejected(RowProblem(element: element, reason: reason.text))
            case .success(let centre):
                record = .place(
                    OSMTags.place(
                        kind: pending.kind, id: pending.id, tags: pending.tags, name: pending.name,
                        categories: pending.categories, coordinate: centre, importedAt: importedAt))
            }
        }
        return emit(record)
    }

    /// Joins way segments that share end nodes into closed rings; what does not close is a line.
    static func assembleRings(_ ways: [[Int64]]) -> (rings: [[Int64]], lines: [[Int64]]) {
        var pending = ways
        var rings: [[Int64]] = [], lines: [[Int64]] = []
        while var chain = pending.popLast() {
            while chain.first != chain.last,
                let index = pending.firstIndex(where: { $0.first == chain.last || $0.last == chain.last })
            {
                var next = pending.remove(at: index)
                if next.first != chain.last { next.reverse() }
                chain += next.dropFirst()
            }
            if chain.count >= 4 && chain.first == chain.last { rings.append(chain) } else { lines.append(chain) }
        }
        return (rings, lines)
    }

    /// The tags worth keeping, or nil when none is (most nodes: only `created_by`, `highway`…).
    static func interestingTags(_ tags: [(String, String)], extra: String? = nil) -> [String: String]? {
        var result: [String: String]?
        for (key, value) in tags where OSMTags.isInteresting(key: key) || key == extra {
            result = result ?? [:]
            result![key] = value
        }
        return result
    }
}
