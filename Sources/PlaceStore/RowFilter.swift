import PlaceModel
import PlaceQuery

/// A ``PlaceFilter``'s category, rating, price and source conditions, prepared once per query
/// and checked on each candidate row's raw bytes without decoding it.
struct RowFilter {
    private let categories: [[UInt8]]
    private let sources: [[UInt8]]
    private let minimumRating: Double?
    private let priceLevels: ClosedRange<Int>?
    private let needsDetails: Bool

    init(_ filter: PlaceFilter) {
        categories = filter.categories.map { Array($0.identifier.utf8) }
        sources = filter.sources.map { Array($0.utf8) }
        minimumRating = filter.minimumRating
        priceLevels = filter.priceLevels
        needsDetails = !categories.isEmpty || minimumRating != nil || priceLevels != nil || !sources.isEmpty
    }

    /// Whether the row (columns as ``Schema/selectColumns``) passes every condition.
    @inline(__always)
    func passes(_ row: SQLiteStatement) -> Bool {
        guard needsDetails else { return true }
        let fields = PlaceDetailsCodec.filterFields(row.nonEmptyBlob(5))
        if !sources.isEmpty {
            // The source is the id's namespace unless the details record overrides it.
            let source = fields.source ?? RowFilter.namespace(of: row.bytes(3))
            guard sources.contains(where: { $0.elementsEqual(source) }) else { return false }
        }
        if !categories.isEmpty {
            guard categories.contains(where: { RowFilter.list(fields.categories, hasCategoryWithin: $0) }) else { return false }
        }
        if let minimumRating, (fields.rating ?? -1) < minimumRating { return false }
        if let priceLevels {
            guard let level = fields.priceLevel, priceLevels.contains(level) else { return false }
        }
        return true
    }

    /// The bytes of `id` before its first `:`.
    static func namespace(of id: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let colon = id.firstIndex(of: UInt8(ascii: ":")) ?? id.count
        return UnsafeBufferPointer(rebasing: id[..<colon])
    }

    /// Whether the space-separated category list holds `wanted` or one of its children
    /// (`water.beach` is within `water`; `food.cafeteria` is not within `food.cafe`).
    static func list(_ list: UnsafeBufferPointer<UInt8>, hasCategoryWithin wanted: [UInt8]) -> Bool {
        var start = 0
        while start < list.count {
            var end = start
            while end < list.count && list[end] != 0x20 { end += 1 }
            let length = end - start
            if length >= wanted.count {
                var same = true
                for i in 0..<wanted.count where list[start + i] != wanted[i] { same = false; break }
                if same && (length == wanted.count || list[start + wanted.count] == UInt8(ascii: ".")) { return true }
            }
            start = end + 1
        }
        return false
    }
}
