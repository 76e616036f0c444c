import Foundation
import GeoCore

/// Builds the spatial index of `places.geom` — SpatiaLite's R*Tree `idx_places_geom` — in one
/// pass, as a packed tree, instead of inserting a million points one by one.
///
/// SQLite's R*Tree module keeps a tree in three ordinary tables: `<name>_node` (one blob per
/// node), `<name>_rowid` (which leaf holds each row) and `<name>_parent` (each node's parent).
/// A node blob is a 2-byte depth (root only), a 2-byte cell count and cells of an 8-byte rowid
/// or child node number followed by the box as big-endian 32-bit floats (min x, max x, min y,
/// max y), rounded outwards as the module rounds them. The builder sorts the points along a
/// Hilbert curve, packs them into full leaves, packs those into parents up to one root (node
/// 1), and writes the three tables. The result is an ordinary R*Tree: SQLite's `rtreecheck()`
/// and SpatiaLite's `CheckSpatialIndex()` accept it, later inserts and deletes maintain it, and
/// queries through it are as fast as through a tree built row by row (its leaves are fuller
/// and spatially tighter).
enum PackedRTree {
    /// One cell: a row (leaf) or a child node (inner), with its box.
    struct Cell {
        var id: Int64
        var minX: Float, maxX: Float, minY: Float, maxY: Float
    }

    /// Fills the empty R*Tree `table` from every row of `places`.
    /// - Returns: how many rows the tree holds.
    /// - Throws: when the tree is not empty or SQLite fails.
    @discardableResult
    static func build(_ connection: SQLiteConnection, table: String = "idx_places_geom") throws -> Int {
        guard try connection.scalarInt("SELECT count(*) FROM \"\(table)_rowid\"") == 0 else {
            throw PlaceStoreError.invalidArgument("the spatial index \(table) is not empty; a packed build needs an empty tree")
        }
        guard let nodeSize = try connection.scalarInt("SELECT length(data) FROM \"\(table)_node\" WHERE nodeno = 1"),
            nodeSize >= 4 + 24 * 3
        else {
            throw PlaceStoreError.invalidArgument("the spatial index \(table) has no root node")
        }
        let capacity = Int(nodeSize - 4) / 24

        // Every point, in Hilbert order.
        var keyed: [(key: UInt32, cell: Cell)] = []
        keyed.reserveCapacity(Int(try connection.scalarInt("SELECT count(*) FROM places") ?? 0))
        let rows = try connection.prepare("SELECT pk, lat, lon FROM places")
        while try rows.step() {
            let latitude = rows.double(1), longitude = rows.double(2)
            keyed.append(
                (
                    HilbertCurve.index(latitude: latitude, longitude: longitude),
                    Cell(
                        id: rows.int64(0), minX: roundDown(longitude), maxX: roundUp(longitude),
                        minY: roundDown(latitude), maxY: roundUp(latitude))
                ))
        }
        keyed.sort { $0.key != $1.key ? $0.key < $1.key : $0.cell.id < $1.cell.id }
        var level = keyed.map(\.cell)
        keyed = []

        // Pack level by level; node numbers from 2, the root becomes node 1.
        var nodes: [(number: Int64, cells: [Cell], isLeaf: Bool)] = []
        var parents: [(node: Int64, parent: Int64)] = []
        var nextNumber: Int64 = 2
        var isLeafLevel = true
        var depth = 0
        while level.count > capacity {
            let groups = (level.count + capacity - 1) / capacity
            var upper: [Cell] = []
            upper.reserveCapacity(groups)
            var start = 0
            for group in 0..<groups {
                // Spread the cells evenly, so no node is left nearly empty.
                let end = start + (level.count - start) / (groups - group)
                let cells = Array(level[start..<end])
                let number = nextNumber
                nextNumber += 1
                nodes.append((number, cells, isLeafLevel))
                upper.append(bounding(cells, id: number))
                start = end
            }
            // The children of the nodes just made are the cells of the level below them.
            if !isLeafLevel {
                for node in nodes.suffix(groups) { for child in node.cells { parents.append((child.id, node.number)) } }
            }
            level = upper
            isLeafLevel = false
            depth += 1
        }
        nodes.append((1, level, isLeafLevel))
        if !isLeafLevel { for child in level { parents.append((child.id, 1)) } }

        try connection.execute("DELETE FROM \"\(table)_node\"")
        let insertNode = try connection.prepare("INSERT INTO \"\(table)_node\" (nodeno, data) VALUES (?1, ?2)")
        let insertRows = try connection.prepare(
            "INSERT INTO \"\(table)_rowid\" (rowid, nodeno) SELECT key + ?2, value FROM json_each(?1)")
        let insertParent = try connection.prepare("INSERT INTO \"\(table)_parent\" (nodeno, parentnode) VALUES (?1, ?2)")
        var blob = [UInt8](repeating: 0, count: Int(nodeSize))
        var leafOfRow: [(row: Int64, node: Int64)] = []
        for node in nodes {
            encode(node.cells, depth: node.number == 1 ? depth : 0, into: &blob)
            insertNode.reset()
            insertNode.bind(node.number, at: 1)
            insertNode.bind(blob: blob, at: 2)
            try insertNode.run()
            if node.isLeaf { for cell in node.cells { leafOfRow.append((cell.id, node.number)) } }
        }
        // In rowid order, so each insert appends to the table instead of landing on a random
        // page; one statement per run of consecutive rowids (after a bulk load, one in all), the
        // leaf numbers handed over as one JSON array.
        leafOfRow.sort { $0.row < $1.row }
        var runStart = 0
        while runStart < leafOfRow.count {
            var runEnd = runStart + 1
            while runEnd < leafOfRow.count && leafOfRow[runEnd].row == leafOfRow[runEnd - 1].row + 1 { runEnd += 1 }
            try JSONIntegers.withArray(leafOfRow[runStart..<runEnd].map(\.node)) {
                insertRows.reset()
                insertRows.bind(borrowedText: $0, at: 1)
                insertRows.bind(leafOfRow[runStart].row, at: 2)
                try insertRows.run()
                insertRows.reset()
            }
            runStart = runEnd
        }
        for link in parents {
            insertParent.reset()
            insertParent.bind(link.node, at: 1)
            insertParent.bind(link.parent, at: 2)
            try insertParent.run()
        }
        return leafOfRow.count
    }

    static func bounding(_ cells: [Cell], id: Int64) -> Cell {
        var box = Cell(id: id, minX: .infinity, maxX: -.infinity, minY: .infinity, maxY: -.infinity)
        for cell in cells {
            box.minX = min(box.minX, cell.minX)
            box.maxX = max(box.maxX, cell.maxX)
            box.minY = min(box.minY, cell.minY)
            box.maxY = max(box.maxY, cell.maxY)
        }
        return box
    }

    /// Writes a node: depth and cell count as 16-bit big-endian, then each cell.
    static func encode(_ cells: [Cell], depth: Int, into blob: inout [UInt8]) {
        for index in blob.indices { blob[index] = 0 }
        blob[0] = UInt8(truncatingIfNeeded: depth >> 8)
        blob[1] = UInt8(truncatingIfNeeded: depth)
        blob[2] = UInt8(truncatingIfNeeded: cells.count >> 8)
        blob[3] = UInt8(truncatingIfNeeded: cells.count)
        var offset = 4
        func put(_ value: UInt64, bytes: Int) {
            for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
                blob[offset] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
                offset += 1
            }
        }
        for cell in cells {
            put(UInt64(bitPattern: cell.id), bytes: 8)
            put(UInt64(cell.minX.bitPattern), bytes: 4)
            put(UInt64(cell.maxX.bitPattern), bytes: 4)
            put(UInt64(cell.minY.bitPattern), bytes: 4)
            put(UInt64(cell.maxY.bitPattern), bytes: 4)
        }
    }

    /// The largest float at or below `value`, as SQLite's R*Tree rounds a box's lower edges.
    static func roundDown(_ value: Double) -> Float {
        var rounded = Float(value)
        if Double(rounded) > value { rounded = Float(value * (value < 0 ? 1 + 1 / 8388608.0 : 1 - 1 / 8388608.0)) }
        return rounded
    }

    /// The smallest float at or above `value`, as SQLite's R*Tree rounds a box's upper edges.
    static func roundUp(_ value: Double) -> Float {
        var rounded = Float(value)
        if Double(rounded) < value { rounded = Float(value * (value < 0 ? 1 - 1 / 8388608.0 : 1 + 1 / 8388608.0)) }
        return rounded
    }
}
