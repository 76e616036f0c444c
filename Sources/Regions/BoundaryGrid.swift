import Foundation

/// Point-in-polygon over many polygons at once, in constant time per point for most points.
///
/// The globe is cut into cells of ``cellSize`` degrees. Each cell lists the polygon edges whose
/// bounding box touches it, and knows which polygon part holds its centre (found once, when the
/// grid is built, by walking each row of centres from west of -180° eastwards and flipping at
/// every edge crossed). A point is then in the part its cell's centre is in, flipped by every
/// edge crossed on the way from the centre to the point (along the point's latitude, then the
/// centre's longitude): only the edges of one cell are looked at, and a cell far from any border
/// has none. The crossing rules are the ray-casting ones (an edge counts when its end points
/// lie on either side of the half-open line), so a point is in a polygon exactly when a ray
/// cast from it would say so; points exactly on a border go to one side or the other.
///
/// Parts are the polygons of a MultiPolygon; holes are rings of their part, so a point in a hole
/// is in no part (and an enclave, Lesotho in South Africa, is its own part).
struct BoundaryGrid: Sendable {
    struct Edge: Sendable {
        var x1, y1, x2, y2: Double
        var part: Int32
    }

    static let cellSize = 0.25
    static let columns = 1440
    static let rows = 720

    private let edges: [Edge]
    /// `cellStart[c] ..< cellStart[c + 1]` index ``cellEdges`` for cell `c` (row-major).
    private let cellStart: [Int32]
    private let cellEdges: [Int32]
    /// The part holding each cell's centre, or -1.
    private let centreOwner: [Int32]
    let partCount: Int

    /// Builds the grid over `parts`, each a list of rings (flat `[x0, y0, x1, y1, …]`, closed:
    /// the last position repeats the first).
    init(parts: [[[Double]]]) {
        var edges: [Edge] = []
        for (part, rings) in parts.enumerated() {
            for ring in rings {
                var i = 0
                while i + 3 < ring.count {
                    let edge = Edge(x1: ring[i], y1: ring[i + 1], x2: ring[i + 2], y2: ring[i + 3], part: Int32(part))
                    if edge.x1 != edge.x2 || edge.y1 != edge.y2 { edges.append(edge) }
                    i += 2
                }
            }
        }
        self.edges = edges
        partCount = parts.count

        // Two passes: count the edges per cell, then fill.
        let cellCount = BoundaryGrid.columns * BoundaryGrid.rows
        var counts = [Int32](repeating: 0, count: cellCount + 1)
        func forEachCell(of edge: Edge, _ body: (Int) -> Void) {
            let (c0, c1) = (BoundaryGrid.column(min(edge.x1, edge.x2)), BoundaryGrid.column(max(edge.x1, edge.x2)))
            let (r0, r1) = (BoundaryGrid.row(min(edge.y1, edge.y2)), BoundaryGrid.row(max(edge.y1, edge.y2)))
            for row in r0...r1 { for column in c0...c1 { body(row * BoundaryGrid.columns + column) } }
        }
        for edge in edges { forEachCell(of: edge) { counts[$0 + 1] += 1 } }
        for cell in 0..<cellCount { counts[cell + 1] += counts[cell] }
        var next = counts
        var cellEdges = [Int32](repeating: 0, count: Int(counts[cellCount]))
        for (offset, edge) in edges.enumerated() {
            forEachCell(of: edge) { cell in
                cellEdges[Int(next[cell])] = Int32(offset)
                next[cell] += 1
            }
        }
        cellStart = counts
        self.cellEdges = cellEdges

        // Walk each row of centres eastwards from outside every polygon.
        var owners = [Int32](repeating: -1, count: cellCount)
        var inside: [Int32] = []
        for row in 0..<BoundaryGrid.rows {
            inside.removeAll(keepingCapacity: true)
            let y = BoundaryGrid.centreLatitude(row)
            var previousX = -Double.infinity
            for column in 0..<BoundaryGrid.columns {
                let x = BoundaryGrid.centreLongitude(column)
                let west = BoundaryGrid.westEdge(column)
                // Crossings in (previousX, x]: the previous cell's past its centre, this one's up to its centre.
                if column > 0 {
                    let cell = row * BoundaryGrid.columns + column - 1
                    for slot in Int(counts[cell])..<Int(counts[cell + 1]) {
                        let edge = edges[Int(cellEdges[slot])]
                        if let crossing = BoundaryGrid.eastwardCrossing(edge, y: y), crossing > previousX, crossing < west {
                            BoundaryGrid.toggle(edge.part, in: &inside)
                        }
                    }
                }
                let cell = row * BoundaryGrid.columns + column
                for slot in Int(counts[cell])..<Int(counts[cell + 1]) {
                    let edge = edges[Int(cellEdges[slot])]
                    if let crossing = BoundaryGrid.eastwardCrossing(edge, y: y), crossing >= west, crossing <= x {
                        BoundaryGrid.toggle(edge.part, in: &inside)
                    }
                }
                owners[cell] = inside.first ?? -1
                previousX = x
            }
        }
        centreOwner = owners
    }

    /// The part holding the point, or nil.
    func part(longitude x: Double, latitude y: Double) -> Int? {
        let column = BoundaryGrid.column(x), row = BoundaryGrid.row(y)
        let cell = row * BoundaryGrid.columns + column
        let owner = centreOwner[cell]
        let range = Int(cellStart[cell])..<Int(cellStart[cell + 1])
        if range.isEmpty { return owner >= 0 ? Int(owner) : nil }
        var inside: [Int32] = owner >= 0 ? [owner] : []
        let centreX = BoundaryGrid.centreLongitude(column), centreY = BoundaryGrid.centreLatitude(row)
        let (lowX, highX) = (min(x, centreX), max(x, centreX))
        let (lowY, highY) = (min(y, centreY), max(y, centreY))
        for slot in range {
            let edge = edges[Int(cellEdges[slot])]
            // From the point along its latitude to the centre's longitude (an eastward ray's rule)…
            if let crossing = BoundaryGrid.eastwardCrossing(edge, y: y), crossing > lowX, crossing <= highX {
                BoundaryGrid.toggle(edge.part, in: &inside)
            }
            // …then along the centre's longitude to the centre (a northward ray's rule).
            if let crossing = BoundaryGrid.northwardCrossing(edge, x: centreX), crossing > lowY, crossing <= highY {
                BoundaryGrid.toggle(edge.part, in: &inside)
            }
        }
        return inside.first.map(Int.init)
    }

    /// The part with an edge nearest the point within `maxDistance` metres, among the parts
    /// `accepted` takes (every part by default), or nil. Distances are measured on a local flat
    /// projection around the point (within 0.5 % for tens of kilometres).
    func nearestPart(
        longitude x: Double, latitude y: Double, within maxDistance: Double,
        where accepted: (Int) -> Bool = { _ in true }
    ) -> Int? {
        guard abs(y) < 89 else { return nil }
        let metresPerDegree = 111_320.0
        let scale = cos(y * .pi / 180)
        let spanY = maxDistance / metresPerDegree, spanX = min(180, spanY / max(scale, 0.01))
        let rowRange = BoundaryGrid.row(max(-90, y - spanY))...BoundaryGrid.row(min(90, y + spanY))
        let columnSpan = Int((spanX / BoundaryGrid.cellSize).rounded(.up)) + 1
        let centreColumn = BoundaryGrid.column(x)
        var best: (distance: Double, part: Int32)? = nil
        for row in rowRange {
            for step in -columnSpan...columnSpan {
                let column = ((centreColumn + step) % BoundaryGrid.columns + BoundaryGrid.columns) % BoundaryGrid.columns
                let cell = row * BoundaryGrid.columns + column
                for slot in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
                    let edge = edges[Int(cellEdges[slot])]
                    guard accepted(Int(edge.part)) else { continue }
                    let distance = BoundaryGrid.flatDistance(x: x, y: y, scale: scale, to: edge) * metresPerDegree
                    if distance <= maxDistance, distance < (best?.distance ?? .infinity) { best = (distance, edge.part) }
                }
                if columnSpan * 2 + 1 >= BoundaryGrid.columns && step == columnSpan { break }
            }
        }
        return best.map { Int($0.part) }
    }

    // MARK: Geometry

    static func column(_ x: Double) -> Int { min(columns - 1, max(0, Int(((x + 180) / cellSize).rounded(.down)))) }
    static func row(_ y: Double) -> Int { min(rows - 1, max(0, Int(((y + 90) / cellSize).rounded(.down)))) }
    static func westEdge(_ column: Int) -> Double { -180 + Double(column) * cellSize }
    // The centres are nudged off the round grid so that a horizontal or vertical border drawn on
    // a round degree never passes exactly through one.
    static func centreLongitude(_ column: Int) -> Double { -180 + (Double(column) + 0.5) * cellSize + 1.37e-7 }
    static func centreLatitude(_ row: Int) -> Double { -90 + (Double(row) + 0.5) * cellSize + 1.13e-7 }

    /// Where the edge crosses latitude `y`, when its ends lie on either side (`y1 > y` differs
    /// from `y2 > y`).
    @inline(__always)
    static func eastwardCrossing(_ edge: Edge, y: Double) -> Double? {
        guard (edge.y1 > y) != (edge.y2 > y) else { return nil }
        return edge.x1 + (y - edge.y1) * (edge.x2 - edge.x1) / (edge.y2 - edge.y1)
    }

    /// Where the edge crosses longitude `x`, when its ends lie on either side.
    @inline(__always)
    static func northwardCrossing(_ edge: Edge, x: Double) -> Double? {
        guard (edge.x1 > x) != (edge.x2 > x) else { return nil }
        return edge.y1 + (x - edge.x1) * (edge.y2 - edge.y1) / (edge.x2 - edge.x1)
    }

    @inline(__always)
    static func toggle(_ part: Int32, in set: inout [Int32]) {
        if let index = set.firstIndex(of: part) { set.remove(at: index) } else { set.append(part) }
    }

    /// Distance in degrees of latitude from the point to the edge, longitudes scaled by `scale`
    /// and the edge moved by 360° when that brings it nearer (across the antimeridian).
    static func flatDistance(x: Double, y: Double, scale: Double, to edge: Edge) -> Double {
        func near(_ value: Double) -> Double {
            value - x > 180 ? value - 360 : (x - value > 180 ? value + 360 : value)
        }
        let ax = (near(edge.x1) - x) * scale, ay = edge.y1 - y
        let bx = (near(edge.x2) - x) * scale, by = edge.y2 - y
        let dx = bx - ax, dy = by - ay
        let lengthSquared = dx * dx + dy * dy
        let t = lengthSquared > 0 ? max(0, min(1, -(ax * dx + ay * dy) / lengthSquared)) : 0
        let px = ax + t * dx, py = ay + t * dy
        return (px * px + py * py).squareRoot()
    }
}
