import Foundation
import PlaceModel
import PlaceQuery

/// A ``PlaceFilter``'s category, rating, price and source conditions, prepared once per query
/// and checked on each candidate row's raw bytes without decoding it.
struct RowFilter {
    private let categories: [[UInt8]]
    private let sources: [[UInt8]]
    private let minimumRating: Double?
    private let priceLevels: ClosedRange<Int>?
    private let countries: [[UInt8]]
    private let continents: [[UInt8]]
    private let openAt: Date?
    /// The local minute of the week at ``openAt`` per time zone seen, worked out once per query.
    private let minutesByZone: ZoneMinutes?
    private let needsDetails: Bool
    /// The viewer's username, for private gems.
    private let viewer: [UInt8]?
    /// The viewer's friends, whose friends-only gems the viewer sees.
    private let viewerFriends: [[UInt8]]

    init(_ filter: PlaceFilter) {
        categories = filter.categories.map { Array($0.identifier.utf8) }
        sources = filter.sources.map { Array($0.utf8) }
        minimumRating = filter.minimumRating
        priceLevels = filter.priceLevels
        countries = filter.countries.map { Array($0.utf8) }
        continents = filter.continents.map { Array($0.rawValue.utf8) }
        openAt = filter.openAt
        minutesByZone = filter.openAt.map(ZoneMinutes.init)
        viewer = filter.viewer.map { Array($0.utf8) }
        viewerFriends = filter.viewer == nil ? [] : filter.viewerFriends.map { Array($0.utf8) }
        needsDetails =
            !categories.isEmpty || minimumRating != nil || priceLevels != nil || !sources.isEmpty
            || !countries.isEmpty || !continents.isEmpty || openAt != nil
    }

    /// Whether the row (columns as ``Schema/selectColumns``) passes every condition.
    @inline(__always)
    func passes(_ row: SQLiteStatement) -> Bool {
        let isGem = RowFilter.isGem(row.bytes(3))
        guard needsDetails || isGem else { return true }
        let fields = PlaceDetailsCodec.filterFields(row.nonEmptyBlob(5))
        // A `gem:` row without the gem part is an ordinary place that borrowed the namespace.
        if isGem, let listing = fields.gemListing, !RowFilter.gemListing(listing, isListedTo: viewer, friends: viewerFriends) { return false }
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
        if !countries.isEmpty {
            guard let country = fields.regionCountry, countries.contains(where: { $0.elementsEqual(country) }) else { return false }
        }
        if !continents.isEmpty {
            guard let continent = fields.continent, continents.contains(where: { $0.elementsEqual(continent) }) else { return false }
        }
        if let minutesByZone {
            guard let zone = fields.timeZone, let hours = fields.weeklyHours,
                let minute = minutesByZone.minute(inZone: zone)
            else { return false }
            guard RowFilter.weeklyRanges(hours, contain: minute) else { return false }
        }
        return true
    }

    /// Whether the id is a hidden gem's (`gem:…`).
    @inline(__always)
    static func isGem(_ id: UnsafeBufferPointer<UInt8>) -> Bool {
        id.count > 4 && id[0] == UInt8(ascii: "g") && id[1] == UInt8(ascii: "e") && id[2] == UInt8(ascii: "m")
            && id[3] == UInt8(ascii: ":")
    }

    /// ``HiddenGem/isListed(to:)`` on the stored listing field (visibility, NUL, owner); a
    /// damaged field is listed to no one.
    static func gemListing(_ listing: UnsafeBufferPointer<UInt8>?, isListedTo viewer: [UInt8]?, friends: [[UInt8]] = []) -> Bool {
        guard let listing, let nul = listing.firstIndex(of: 0) else { return false }
        let visibility = UnsafeBufferPointer(rebasing: listing[..<nul])
        if visibility.elementsEqual(Self.publicBytes) { return true }
        if visibility.elementsEqual(Self.unlistedBytes) { return false }
        guard let viewer else { return false }
        let owner = UnsafeBufferPointer(rebasing: listing[(nul + 1)...])
        if owner.elementsEqual(viewer) { return true }
        return visibility.elementsEqual(Self.friendsBytes) && friends.contains { owner.elementsEqual($0) }
    }

    // The visibilities as bytes, made once: comparing a row's bytes with a `String`'s UTF-8 view
    // walked the view element by element, 1 % of a gems request.
    private static let publicBytes = Array(HiddenGem.Visibility.public.rawValue.utf8)
    private static let unlistedBytes = Array(HiddenGem.Visibility.unlisted.rawValue.utf8)
    private static let friendsBytes = Array(HiddenGem.Visibility.friends.rawValue.utf8)

    /// Whether the packed weekly ranges (pairs of little-endian UInt16) hold `minute`.
    static func weeklyRanges(_ packed: UnsafeRawBufferPointer, contain minute: Int) -> Bool {
        var offset = 0
        while offset + 4 <= packed.count {
            let start = Int(UInt16(littleEndian: packed.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
            let end = Int(UInt16(littleEndian: packed.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)))
            if (start..<end).contains(minute) || (start..<end).contains(minute + OpeningHours.minutesPerWeek) { return true }
            offset += 4
        }
        return false
    }

    /// Local minutes of the week at one instant, per time zone name, computed on first use. A
    /// query runs on one thread, so the cache needs no lock.
    final class ZoneMinutes {
        private let instant: Date
        private var byZone: [[UInt8]: Int?] = [:]
        /// The zone of the previous row and its minute: places near each other share a zone, so
        /// most rows are answered by comparing bytes, without building a dictionary key.
        private var lastZone: [UInt8] = []
        private var lastMinute: Int?

        init(_ instant: Date) { self.instant = instant }

        func minute(inZone zone: UnsafeBufferPointer<UInt8>) -> Int? {
            if !lastZone.isEmpty, lastZone.elementsEqual(zone) { return lastMinute }
            let key = Array(zone)
            let minute: Int?
            if let known = byZone[key] {
                minute = known
            } else {
                minute = OpeningHours.minuteOfWeek(at: instant, timeZone: String(decoding: zone, as: UTF8.self))
                byZone[key] = minute
            }
            lastZone = key
            lastMinute = minute
            return minute
        }
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
                for i in 0..<wanted.count where list[start + i] != wanted[i] {
                    same = false
                    break
                }
                if same && (length == wanted.count || list[start + wanted.count] == UInt8(ascii: ".")) { return true }
            }
            start = end + 1
        }
        return false
    }
}
