import PlaceModel

/// The order of ``PlaceIndex/ranked(filter:limit:cursor:)``: highest rating first (to the
/// hundredth of a star), then the most ratings (the place's popularity as its sources count
/// it), then id by UTF-8 bytes. Places without a rating come after every rated one.
///
/// Each store keeps the ``key(_:)`` of every place in a column with an index per region
/// (country and continent), so a page of a continent is a walk of that index from the cursor,
/// never a scan of the whole index.
public enum PlaceRank {
    /// The sort key, smallest first: `(500 − hundredths of a star) << 32 | (2³² − 1 − ratings)`;
    /// an unrated place has 501 hundredths "below" zero. Always in 0 ..< 2⁵³, so a ``PageCursor``
    /// carries it exactly as its distance.
    public static func key(_ rating: Rating?) -> Int64 {
        let maximumCount: Int64 = 0xFFFF_FFFF
        guard let rating else { return 501 << 32 | maximumCount }
        let hundredths = Int64((min(max(rating.value, 0), 5) * 100).rounded())
        let count = min(Int64(max(rating.count ?? 0, 0)), maximumCount)
        return (500 - hundredths) << 32 | (maximumCount - count)
    }

    /// The key of a place.
    public static func key(of place: Place) -> Int64 { key(place.rating) }

    /// Whether (key, id) sorts before (otherKey, otherID).
    public static func precedes(_ key: Int64, _ id: String, _ otherKey: Int64, _ otherID: String) -> Bool {
        if key != otherKey { return key < otherKey }
        return PlaceID.utf8Precedes(id, otherID)
    }

    /// Checks that `filter` names a region to rank in.
    /// - Throws: ``PlaceQueryError/invalidArgument(name:value:valid:)`` when it names none.
    public static func requireRegion(_ filter: PlaceFilter) throws {
        guard filter.countries.isEmpty && filter.continents.isEmpty else { return }
        throw PlaceQueryError.invalidArgument(
            name: "region", value: "(none)",
            valid: "a ranked query needs at least one country or continent")
    }

    /// The decoded cursor of a ranked query: the last place's key and id.
    public static func cursor(_ text: String?, filter: PlaceFilter) throws -> (key: Int64, id: String)? {
        guard let text else { return nil }
        let cursor = try PageCursor(decoding: text, expectedFingerprint: PageCursor.rankedFingerprint(filter: filter))
        guard cursor.distance < 0x1p53, cursor.distance == cursor.distance.rounded() else {
            throw PlaceQueryError.invalidCursor(text, reason: "it is damaged")
        }
        return (Int64(cursor.distance), cursor.id)
    }

    /// The cursor after a place with `key` and `id`.
    public static func encodedCursor(key: Int64, id: String, filter: PlaceFilter) -> String {
        PageCursor(distance: Double(key), id: id, queryFingerprint: PageCursor.rankedFingerprint(filter: filter)).encoded()
    }
}
