import COSM
import Foundation
import PlaceQuery
import GeoCore
import PlaceModel

/// OpenStreetMap dumps — `.osm.pbf`, `.osm` XML and `.osm.bz2` — read with readosm, the C
/// library by SpatiaLite's author.
///
/// Places are nodes, ways (at the centroid of their area when closed, of their line when not)
/// and multipolygon relations (at the centroid of their outer rings) that carry a POI tag and a
/// name (``OSMTags``). Ids are `osm:n<id>`, `osm:w<id>`, `osm:r<id>`.
///
/// readosm calls back once per element, in file order (nodes, then ways, then relations), so the
/// reader makes up to three passes, keeping only what places need:
/// 1. ways and relations: the POI ways with their node ids, the POI multipolygons with their
///    outer ways' ids;
/// 2. ways again, only when there are POI multipolygons: the node ids of their outer ways;
/// 3. nodes: POI nodes become places; the coordinates of the nodes that step 1 and 2 asked for
///    are kept, and then the ways and relations become places.
/// Memory grows with the POIs of the dump, not with its nodes. readosm drives the reading
/// (callbacks), and an import pulls records (``DumpReader/next()``), so the passes run on a
/// thread of their own and hand records over through a bounded queue.
final class OSMDumpReader: DumpReader {
    private let queue = BoundedQueue<DumpRecord>(capacity: 8192)
    /// Where a renamed or compressed dump is made readable; gone once the last record is read.
    let temporaryDirectory: URL?

    init(path: String, importedAt: Date) throws {
        let input = try OSMInput(path: path)
        temporaryDirectory = input.temporaryDirectory
        let scan = OSMScan(path: path, input: input, importedAt: importedAt, queue: queue)
        try scan.checkOpens()
        let thread = Thread { [scan] in scan.run() }
        thread.stackSize = 8 << 20
        thread.start()
    }

    deinit { queue.cancel() }

    func next() throws -> DumpRecord? { try queue.pop() }
}

/// A file readosm can open: readosm goes by suffix (`.osm`, `.pbf`) only, so other names are
/// linked under one, and `.bz2` is decompressed to a temporary `.osm` first.
struct OSMInput: Sendable {
    /// The path handed to readosm.
    let readablePath: String
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
            throw ImportError.corruptDump(path: path, reason: "not an OpenStreetMap file (neither PBF with an OSMHeader blob, nor <osm> XML, nor bzip2)")
        }
        let lowered = path.lowercased()
        if (kind == .pbf && lowered.hasSuffix(".pbf")) || (kind == .xml && lowered.hasSuffix(".osm")) {
            readablePath = path
            temporaryDirectory = nil
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-osm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        temporaryDirectory = directory
        do {
            switch kind {
            case .pbf, .xml:
                let link = directory.appendingPathComponent(kind == .pbf ? "dump.osm.pbf" : "dump.osm")
                let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
                try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: absolute)
                readablePath = link.path
            case .bzip2:
                let output = directory.appendingPathComponent("dump.osm")
                try Bzip2.decompress(path, to: output.path)
                readablePath = output.path
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func removeTemporaryFiles() {
        if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
    }
}

/// The passes over one dump, run on the reader's thread; readosm's callbacks reach it through
/// their user-data pointer.
final class OSMScan: @unchecked Sendable {
    // @unchecked Sendable: a scan is made on the importing thread and handed to the reading
    // thread before readosm runs; from then on only that thread (and readosm's callbacks, on the
    // same thread) touch its mutable state. The consumer talks to it only through `queue`.
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
    /// Set when the consumer went away: the callbacks ask readosm to stop.
    var cancelled = false

    init(path: String, input: OSMInput, importedAt: Date, queue: BoundedQueue<DumpRecord>) {
        self.path = path
        self.input = input
        self.importedAt = importedAt
        self.queue = queue
    }

    /// Opens the file once, so that a file readosm refuses fails the import before it starts.
    func checkOpens() throws {
        var handle: UnsafeRawPointer?
        let status = readosm_open(input.readablePath, &handle)
        readosm_close(handle)
        guard status == READOSM_OK else {
            input.removeTemporaryFiles()
            throw ImportError.corruptDump(path: path, reason: OSMScan.describe(status))
        }
    }

    func run() {
        var failure: (any Error)?
        do {
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
        var handle: UnsafeRawPointer?
        var status = readosm_open(input.readablePath, &handle)
        defer { readosm_close(handle) }
        if status == READOSM_OK {
            let context = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
            switch phase {
            case .waysAndRelations: status = readosm_parse(handle, context, nil, OSMScan.onWay, OSMScan.onRelation)
            case .relationMembers: status = readosm_parse(handle, context, nil, OSMScan.onWay, nil)
            case .nodes: status = readosm_parse(handle, context, OSMScan.onNode, nil, nil)
            }
        }
        guard status == READOSM_OK || (status == READOSM_ABORT && cancelled) else {
            throw ImportError.corruptDump(path: path, reason: OSMScan.describe(status))
        }
    }

    static func describe(_ status: Int32) -> String {
        switch status {
        case READOSM_INVALID_SUFFIX: return "readosm reads only .osm and .pbf files"
        case READOSM_FILE_NOT_FOUND: return "no such file"
        case READOSM_INSUFFICIENT_MEMORY: return "out of memory"
        case READOSM_READ_ERROR: return "read error (is the file truncated?)"
        case READOSM_XML_ERROR: return "malformed OSM XML"
        case READOSM_INVALID_PBF_HEADER: return "invalid PBF header"
        case READOSM_UNZIP_ERROR: return "a PBF block does not inflate (is the file truncated?)"
        default: return "readosm error \(status)"
        }
    }

    private static func scan(_ userData: UnsafeRawPointer?) -> OSMScan {
        Unmanaged<OSMScan>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// Hands a record to the consumer; false (abort) when it went away.
    private func emit(_ record: DumpRecord) -> Int32 {
        if queue.push(record) { return READOSM_OK }
        cancelled = true
        return READOSM_ABORT
    }

    private static let onNode: readosm_node_callback = { userData, node in
        guard let node else { return READOSM_OK }
        return scan(userData).node(node.pointee)
    }

    private static let onWay: readosm_way_callback = { userData, way in
        guard let way else { return READOSM_OK }
        return scan(userData).way(way.pointee)
    }

    private static let onRelation: readosm_relation_callback = { userData, relation in
        guard let relation else { return READOSM_OK }
        return scan(userData).relation(relation.pointee)
    }

    private static func element(_ kind: Character, _ id: Int64) -> String {
        "\(kind == "n" ? "node" : kind == "w" ? "way" : "relation") \(id)"
    }

    private func node(_ node: readosm_node) -> Int32 {
        if neededNodes.contains(node.id) { coordinates[node.id] = (node.longitude, node.latitude) }
        guard node.tag_count > 0, let tags = OSMScan.interestingTags(node.tags, count: node.tag_count) else { return READOSM_OK }
        switch OSMTags.verdict(tags) {
        case .notAPOI:
            return READOSM_OK
        case .unnamed:
            return emit(.skipped(RowProblem(element: OSMScan.element("n", node.id), reason: "a POI without a name")))
        case .place(let name, let categories):
            do {
                let coordinate = try Coordinate(latitude: node.latitude, longitude: node.longitude)
                return emit(.place(OSMTags.place(kind: "n", id: node.id, tags: tags, name: name, categories: categories,
                                                 coordinate: coordinate, importedAt: importedAt)))
            } catch {
                return emit(.rejected(RowProblem(element: OSMScan.element("n", node.id), reason: String(describing: error))))
            }
        }
    }

    private func way(_ way: readosm_way) -> Int32 {
        let refs = { Array(UnsafeBufferPointer(start: way.node_refs, count: Int(max(0, way.node_ref_count)))) }
        if phase == .relationMembers {
            if memberWays[way.id] != nil {
                let nodes = refs()
                memberWays[way.id] = nodes
                neededNodes.formUnion(nodes)
            }
            return READOSM_OK
        }
        guard way.tag_count > 0, let tags = OSMScan.interestingTags(way.tags, count: way.tag_count) else { return READOSM_OK }
        let element = OSMScan.element("w", way.id)
        switch OSMTags.verdict(tags) {
        case .notAPOI:
            return READOSM_OK
        case .unnamed:
            return emit(.skipped(RowProblem(element: element, reason: "a POI without a name")))
        case .place(let name, let categories):
            let nodes = refs()
            guard !nodes.isEmpty else { return emit(.rejected(RowProblem(element: element, reason: "no nodes"))) }
            ways.append(Pending(kind: "w", id: way.id, tags: tags, name: name, categories: categories, members: nodes))
            neededNodes.formUnion(nodes)
            return READOSM_OK
        }
    }

    private func relation(_ relation: readosm_relation) -> Int32 {
        guard relation.tag_count > 0, let tags = OSMScan.interestingTags(relation.tags, count: relation.tag_count, extra: "type")
        else { return READOSM_OK }
        let element = OSMScan.element("r", relation.id)
        let (name, categories): (String, [Category])
        switch OSMTags.verdict(tags) {
        case .notAPOI: return READOSM_OK
        case .unnamed: return emit(.skipped(RowProblem(element: element, reason: "a POI without a name")))
        case .place(let placeName, let placeCategories): (name, categories) = (placeName, placeCategories)
        }
        guard tags["type"] == "multipolygon" else {
            return emit(.skipped(RowProblem(element: element, reason: "a \(tags["type"] ?? "untyped") relation has no place of its own")))
        }
        var outer: [Int64] = []
        for member in UnsafeBufferPointer(start: relation.members, count: Int(max(0, relation.member_count)))
        where member.member_type == READOSM_MEMBER_WAY {
            let role = member.role.map { String(cString: $0) } ?? ""
            if role == "outer" || role.isEmpty { outer.append(member.id) }
        }
        guard !outer.isEmpty else { return emit(.rejected(RowProblem(element: element, reason: "a multipolygon without outer ways"))) }
        relations.append(Pending(kind: "r", id: relation.id, tags: tags, name: name, categories: categories, members: outer))
        for way in outer { memberWays[way] = [] }
        return READOSM_OK
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
            guard emitPlaced(relation, rings: ringRefs.map(positions).filter { $0.count >= 3 },
                             lines: lineRefs.map(positions).filter { !$0.isEmpty },
                             nodeCount: members.reduce(0) { $0 + $1.count }) else { return }
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
                record = .place(OSMTags.place(kind: pending.kind, id: pending.id, tags: pending.tags, name: pending.name,
                                              categories: pending.categories, coordinate: centre, importedAt: importedAt))
            }
        }
        return emit(record) == READOSM_OK
    }

    /// Joins way segments that share end nodes into closed rings; what does not close is a line.
    static func assembleRings(_ ways: [[Int64]]) -> (rings: [[Int64]], lines: [[Int64]]) {
        var pending = ways
        var rings: [[Int64]] = [], lines: [[Int64]] = []
        while var chain = pending.popLast() {
            while chain.first != chain.last,
                  let index = pending.firstIndex(where: { $0.first == chain.last || $0.last == chain.last }) {
                var next = pending.remove(at: index)
                if next.first != chain.last { next.reverse() }
                chain += next.dropFirst()
            }
            if chain.count >= 4 && chain.first == chain.last { rings.append(chain) } else { lines.append(chain) }
        }
        return (rings, lines)
    }

    /// The tags worth keeping, or nil when none is (most nodes: only `created_by`, `highway`…).
    static func interestingTags(_ tags: UnsafePointer<readosm_tag>?, count: Int32, extra: String? = nil) -> [String: String]? {
        guard let tags else { return nil }
        var result: [String: String]?
        for tag in UnsafeBufferPointer(start: tags, count: Int(count)) {
            guard let keyPointer = tag.key, let valuePointer = tag.value else { continue }
            let key = String(cString: keyPointer)
            guard OSMTags.isInteresting(key: key) || key == extra else { continue }
            result = result ?? [:]
            result![key] = String(cString: valuePointer)
        }
        return result
    }
}
