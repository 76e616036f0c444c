/// Decoding one `PrimitiveBlock` of an OSM PBF file (osmformat.proto), checked field by field.
extension OSMPBFReader {
    typealias Malformed = ProtobufReader.Malformed

    /// The block's string table: slices of the block, turned into `String`s on first use.
    struct StringTable {
        let slices: [UnsafeRawBufferPointer]
        private var cache: [String?]

        init(_ slices: [UnsafeRawBufferPointer]) {
            self.slices = slices
            cache = Array(repeating: nil, count: slices.count)
        }

        mutating func string(_ index: UInt64) throws(Malformed) -> String {
            guard index < UInt64(slices.count) else {
                throw Malformed(reason: "string index \(index) is outside the block's table of \(slices.count)")
            }
            let i = Int(index)
            if let known = cache[i] { return known }
            let text = String(decoding: slices[i], as: UTF8.self)
            cache[i] = text
            return text
        }
    }

    /// Decodes a block and hands the wanted elements to `sink`; false when the sink stopped.
    static func decodeBlock(
        _ bytes: UnsafeRawBufferPointer, kinds: OSMElementKinds,
        sink: any OSMElementSink
    ) throws(Malformed) -> Bool {
        var reader = ProtobufReader(bytes)
        var slices: [UnsafeRawBufferPointer] = []
        var groups: [UnsafeRawBufferPointer] = []
        var granularity: Int64 = 100, latitudeOffset: Int64 = 0, longitudeOffset: Int64 = 0
        while let (number, wire) = try reader.nextField() {
            switch (number, wire) {
            case (1, .lengthDelimited):
                var table = ProtobufReader(try reader.lengthDelimited())
                while let (field, type) = try table.nextField() {
                    if field == 1, type == .lengthDelimited { slices.append(try table.lengthDelimited()) } else { try table.skip(type) }
                }
            case (2, .lengthDelimited): groups.append(try reader.lengthDelimited())
            case (17, .varint): granularity = Int64(truncatingIfNeeded: try reader.varint())
            case (19, .varint): latitudeOffset = Int64(truncatingIfNeeded: try reader.varint())
            case (20, .varint): longitudeOffset = Int64(truncatingIfNeeded: try reader.varint())
            default: try reader.skip(wire)
            }
        }
        guard granularity > 0 else { throw Malformed(reason: "granularity \(granularity) is not positive") }
        var block = Block(
            strings: StringTable(slices), granularity: granularity,
            latitudeOffset: latitudeOffset, longitudeOffset: longitudeOffset, sink: sink)
        for group in groups {
            var groupReader = ProtobufReader(group)
            while let (number, wire) = try groupReader.nextField() {
                guard wire == .lengthDelimited else {
                    try groupReader.skip(wire)
                    continue
                }
                let message = try groupReader.lengthDelimited()
                let keepGoing: Bool
                switch number {
                case 1 where kinds.contains(.nodes): keepGoing = try block.node(message)
                case 2 where kinds.contains(.nodes): keepGoing = try block.denseNodes(message)
                case 3 where kinds.contains(.ways): keepGoing = try block.way(message)
                case 4 where kinds.contains(.relations): keepGoing = try block.relation(message)
                default: keepGoing = true
                }
                if !keepGoing { return false }
            }
        }
        return true
    }

    /// One block's context while its groups are decoded.
    struct Block {
        var strings: StringTable
        let granularity: Int64
        let latitudeOffset: Int64
        let longitudeOffset: Int64
        let sink: any OSMElementSink

        /// Degrees from the block's units (nanodegrees × granularity + offset); wrapping, so a
        /// hostile value gives a wrong coordinate (refused later), not a trap.
        func degrees(_ value: Int64, offset: Int64) -> Double {
            Double(offset &+ granularity &* value) * 1e-9
        }

        mutating func tags(keys: [UInt64], values: [UInt64]) throws(Malformed) -> [(String, String)] {
            guard keys.count == values.count else {
                throw Malformed(reason: "an element has \(keys.count) tag keys but \(values.count) values")
            }
            var result: [(String, String)] = []
            result.reserveCapacity(keys.count)
            for (key, value) in zip(keys, values) { result.append((try strings.string(key), try strings.string(value))) }
            return result
        }

        mutating func node(_ message: UnsafeRawBufferPointer) throws(Malformed) -> Bool {
            var reader = ProtobufReader(message)
            var id: Int64 = 0, latitude: Int64 = 0, longitude: Int64 = 0
            var keys: [UInt64] = [], values: [UInt64] = []
            while let (number, wire) = try reader.nextField() {
                switch number {
                case 1: id = try reader.signedVarint()
                case 2: try ProtobufReader.forEachPacked(wire, reader: &reader) { keys.append($0) }
                case 3: try ProtobufReader.forEachPacked(wire, reader: &reader) { values.append($0) }
                case 8: latitude = try reader.signedVarint()
                case 9: longitude = try reader.signedVarint()
                default: try reader.skip(wire)
                }
            }
            return sink.node(
                id: id, latitude: degrees(latitude, offset: latitudeOffset),
                longitude: degrees(longitude, offset: longitudeOffset), tags: try tags(keys: keys, values: values))
        }

        mutating func denseNodes(_ message: UnsafeRawBufferPointer) throws(Malformed) -> Bool {
            var reader = ProtobufReader(message)
            var ids: [Int64] = [], latitudes: [Int64] = [], longitudes: [Int64] = []
            var keysValues: [UInt64] = []
            while let (number, wire) = try reader.nextField() {
                switch number {
                case 1: try ProtobufReader.forEachPacked(wire, reader: &reader) { ids.append(ProtobufReader.zigzag($0)) }
                case 8: try ProtobufReader.forEachPacked(wire, reader: &reader) { latitudes.append(ProtobufReader.zigzag($0)) }
                case 9: try ProtobufReader.forEachPacked(wire, reader: &reader) { longitudes.append(ProtobufReader.zigzag($0)) }
                case 10: try ProtobufReader.forEachPacked(wire, reader: &reader) { keysValues.append($0) }
                default: try reader.skip(wire)
                }
            }
            guard ids.count == latitudes.count, ids.count == longitudes.count else {
                throw Malformed(reason: "dense nodes give \(ids.count) ids, \(latitudes.count) latitudes and \(longitudes.count) longitudes")
            }
            var id: Int64 = 0, latitude: Int64 = 0, longitude: Int64 = 0
            var position = 0
            for index in ids.indices {
                id = id &+ ids[index]
                latitude = latitude &+ latitudes[index]
                longitude = longitude &+ longitudes[index]
                var tags: [(String, String)] = []
                if !keysValues.isEmpty {
                    // Each node's tags are key, value pairs ended by a 0.
                    while true {
                        guard position < keysValues.count else {
                            throw Malformed(reason: "dense node \(id)'s tags run past the end of keys_vals")
                        }
                        let key = keysValues[position]
                        position += 1
                        if key == 0 { break }
                        guard position < keysValues.count else { throw Malformed(reason: "dense node \(id) has a tag key without a value") }
                        tags.append((try strings.string(key), try strings.string(keysValues[position])))
                        position += 1
                    }
                }
                guard
                    sink.node(
                        id: id, latitude: degrees(latitude, offset: latitudeOffset),
                        longitude: degrees(longitude, offset: longitudeOffset), tags: tags)
                else { return false }
            }
            return true
        }

        mutating func way(_ message: UnsafeRawBufferPointer) throws(Malformed) -> Bool {
            var reader = ProtobufReader(message)
            var id: Int64 = 0
            var keys: [UInt64] = [], values: [UInt64] = [], refs: [Int64] = []
            while let (number, wire) = try reader.nextField() {
                switch number {
                case 1: id = Int64(truncatingIfNeeded: try reader.varint())
                case 2: try ProtobufReader.forEachPacked(wire, reader: &reader) { keys.append($0) }
                case 3: try ProtobufReader.forEachPacked(wire, reader: &reader) { values.append($0) }
                case 8:
                    var ref: Int64 = 0
                    try ProtobufReader.forEachPacked(wire, reader: &reader) { delta in
                        ref = ref &+ ProtobufReader.zigzag(delta)
                        refs.append(ref)
                    }
                default: try reader.skip(wire)
                }
            }
            return sink.way(id: id, refs: refs, tags: try tags(keys: keys, values: values))
        }

        mutating func relation(_ message: UnsafeRawBufferPointer) throws(Malformed) -> Bool {
            var reader = ProtobufReader(message)
            var id: Int64 = 0
            var keys: [UInt64] = [], values: [UInt64] = [], roles: [UInt64] = [], memberIDs: [Int64] = [], types: [UInt64] = []
            while let (number, wire) = try reader.nextField() {
                switch number {
                case 1: id = Int64(truncatingIfNeeded: try reader.varint())
                case 2: try ProtobufReader.forEachPacked(wire, reader: &reader) { keys.append($0) }
                case 3: try ProtobufReader.forEachPacked(wire, reader: &reader) { values.append($0) }
                case 8: try ProtobufReader.forEachPacked(wire, reader: &reader) { roles.append($0) }
                case 9:
                    var member: Int64 = 0
                    try ProtobufReader.forEachPacked(wire, reader: &reader) { delta in
                        member = member &+ ProtobufReader.zigzag(delta)
                        memberIDs.append(member)
                    }
                case 10: try ProtobufReader.forEachPacked(wire, reader: &reader) { types.append($0) }
                default: try reader.skip(wire)
                }
            }
            guard roles.count == memberIDs.count, types.count == memberIDs.count else {
                throw Malformed(reason: "relation \(id) gives \(memberIDs.count) members, \(roles.count) roles and \(types.count) types")
            }
            var members: [OSMMember] = []
            members.reserveCapacity(memberIDs.count)
            for index in memberIDs.indices {
                let type: Character
                switch types[index] {
                case 0: type = "n"
                case 1: type = "w"
                case 2: type = "r"
                default: throw Malformed(reason: "relation \(id) has a member of unknown type \(types[index])")
                }
                members.append(OSMMember(type: type, id: memberIDs[index], role: try strings.string(roles[index])))
            }
            return sink.relation(id: id, members: members, tags: try tags(keys: keys, values: values))
        }
    }
}
