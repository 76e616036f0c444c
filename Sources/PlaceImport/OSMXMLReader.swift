import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads OpenStreetMap XML (`<osm>` with `<node>`, `<way>`, `<relation>`) with Foundation's
/// streaming `XMLParser` (libxml2): malformed XML is an ``OSMFormatError`` with the line, and
/// elements with missing or unreadable attributes are reported as such rather than trusted.
/// A `<tag>` without `k` or `v` is skipped.
///
/// The file must be UTF-8, as OSM XML always is, and is checked for it first: Foundation's
/// parser traps (crashes the process) on some invalid UTF-8 in names and attributes, which
/// `make fuzz` found.
enum OSMXMLReader {
    /// Reads `path`; `checkedUTF8` skips the UTF-8 check when the caller made it already (the
    /// import reads a file up to three times).
    static func read(
        path: String, kinds: OSMElementKinds, sink: any OSMElementSink,
        checkedUTF8: Bool = false
    ) throws(OSMFormatError) {
        if !checkedUTF8 { try checkUTF8(path: path) }
        guard let stream = InputStream(fileAtPath: path) else { throw OSMFormatError(reason: "cannot open the file") }
        let parser = XMLParser(stream: stream)
        let delegate = Delegate(kinds: kinds, sink: sink)
        parser.delegate = delegate
        parser.shouldResolveExternalEntities = false
        let finished = parser.parse()
        if let failure = delegate.failure { throw failure }
        if delegate.stopped { return }
        guard finished else {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "malformed XML"
            throw OSMFormatError(reason: "malformed OSM XML at line \(parser.lineNumber), column \(parser.columnNumber): \(reason)")
        }
        guard delegate.sawRoot else { throw OSMFormatError(reason: "the XML has no <osm> root element") }
    }

    /// Refuses a file that is not valid UTF-8, naming the first bad byte's offset. Reads it in
    /// chunks (a sequence split across two chunks is carried over).
    static func checkUTF8(path: String) throws(OSMFormatError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw OSMFormatError(reason: "cannot open the file") }
        defer { try? handle.close() }
        var offset = 0
        var carried: [UInt8] = []
        while true {
            let chunk = [UInt8](handle.readData(ofLength: 1 << 20))
            let bytes = carried + chunk
            if bytes.isEmpty { return }
            let (validLength, bad) = validPrefix(bytes, final: chunk.isEmpty)
            if let bad { throw OSMFormatError(reason: "OSM XML must be UTF-8; byte \(offset + bad) is not (0x\(String(bytes[bad], radix: 16)))") }
            offset += validLength
            carried = Array(bytes[validLength...])
            if chunk.isEmpty { return }
        }
    }

    /// The length of the longest prefix of `bytes` made of whole valid UTF-8 sequences, and the
    /// offset of an invalid byte if one comes before the end (a sequence cut by the end of a
    /// chunk is not invalid unless `final`).
    static func validPrefix(_ bytes: [UInt8], final: Bool) -> (Int, Int?) {
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int, low: UInt8, high: UInt8
            switch lead {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            default: return (i, i)
            }
            if i + length > bytes.count {
                // Cut by the chunk's end: check what is there, carry it over.
                for k in 1..<(bytes.count - i) where !(k == 1 ? (low...high) : (0x80...0xBF)).contains(bytes[i + k]) {
                    return (i, i + k)
                }
                return final ? (i, i) : (i, nil)
            }
            if !(low...high).contains(bytes[i + 1]) { return (i, i + 1) }
            for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return (i, i + k) }
            i += length
        }
        return (i, nil)
    }

    /// Collects one element's children and hands the element over when it closes.
    private final class Delegate: NSObject, XMLParserDelegate {
        let kinds: OSMElementKinds
        let sink: any OSMElementSink
        var failure: OSMFormatError?
        var stopped = false
        var sawRoot = false

        private var current: (kind: Character, id: Int64, latitude: Double, longitude: Double)?
        private var tags: [(String, String)] = []
        private var refs: [Int64] = []
        private var members: [OSMMember] = []

        init(kinds: OSMElementKinds, sink: any OSMElementSink) {
            self.kinds = kinds
            self.sink = sink
        }

        private func fail(_ parser: XMLParser, _ reason: String) {
            failure = OSMFormatError(reason: "line \(parser.lineNumber): \(reason)")
            parser.abortParsing()
        }

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            switch name {
            case "osm": sawRoot = true
            case "node", "way", "relation":
                let kind: Character = name == "node" ? "n" : name == "way" ? "w" : "r"
                guard let text = attributes["id"], let id = Int64(text) else {
                    return fail(parser, "a <\(name)> has no numeric id (id=\"\(attributes["id"] ?? "")\")")
                }
                // A node without readable coordinates gets NaN, which the place check refuses.
                let latitude = kind == "n" ? attributes["lat"].flatMap(Double.init) ?? .nan : 0
                let longitude = kind == "n" ? attributes["lon"].flatMap(Double.init) ?? .nan : 0
                current = (kind, id, latitude, longitude)
                tags.removeAll(keepingCapacity: true)
                refs.removeAll(keepingCapacity: true)
                members.removeAll(keepingCapacity: true)
            case "tag":
                guard current != nil, let key = attributes["k"], let value = attributes["v"] else { return }
                tags.append((key, value))
            case "nd":
                guard current?.kind == "w" else { return }
                guard let text = attributes["ref"], let ref = Int64(text) else {
                    return fail(parser, "way \(current!.id) has an <nd> without a numeric ref")
                }
                refs.append(ref)
            case "member":
                guard current?.kind == "r" else { return }
                guard let text = attributes["ref"], let ref = Int64(text),
                    let type = ["node": Character("n"), "way": "w", "relation": "r"][attributes["type"] ?? ""]
                else {
                    return fail(parser, "relation \(current!.id) has a <member> without a type (node, way, relation) and a numeric ref")
                }
                members.append(OSMMember(type: type, id: ref, role: attributes["role"] ?? ""))
            default: break
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard let element = current, name == (element.kind == "n" ? "node" : element.kind == "w" ? "way" : "relation") else { return }
            current = nil
            let keepGoing: Bool
            switch element.kind {
            case "n" where kinds.contains(.nodes):
                keepGoing = sink.node(id: element.id, latitude: element.latitude, longitude: element.longitude, tags: tags)
            case "w" where kinds.contains(.ways): keepGoing = sink.way(id: element.id, refs: refs, tags: tags)
            case "r" where kinds.contains(.relations): keepGoing = sink.relation(id: element.id, members: members, tags: tags)
            default: keepGoing = true
            }
            if !keepGoing {
                stopped = true
                parser.abortParsing()
            }
        }
    }
}
