import Foundation
import GeoCore
import PlaceModel

/// Collects a query's matches during a scan and turns them into a sorted page.
///
/// Sorting happens on small keys (distance, id, position), never on whole places. A query
/// without a limit decodes each match while the scan is on its row; a query with a limit scans
/// only the key columns and fetches whole rows for the page it returns.
struct HitCollector {
    struct Key {
        var distance: Double
        var id: String
        var pk: Int64
        var slot: Int
    }

    let decodesDuringScan: Bool
    private var keys: [Key] = []
    private var places: [Place?] = []

    init(decodesDuringScan: Bool) {
        self.decodesDuringScan = decodesDuringScan
    }

    /// Records the row the statement is on.
    mutating func add(_ row: SQLiteStatement, distance: Double) throws {
        if decodesDuringScan {
            let place = try PlaceRowCodec.decode(row)
            keys.append(Key(distance: distance, id: place.id.rawValue, pk: row.int64(0), slot: places.count))
            places.append(place)
        } else {
            keys.append(Key(distance: distance, id: row.text(3) ?? "", pk: row.int64(0), slot: -1))
        }
    }

    /// The first `limit` hits in (distance, id) order and the cursor after them. Call with the
    /// index lock held.
    mutating func page(limit: Int?, fingerprint: () -> UInt64, withDistances: Bool,
                       index: SpatiaLitePlaceIndex) throws -> PlacePage {
        keys.sort { a, b in a.distance != b.distance ? a.distance < b.distance : PlaceID.utf8Precedes(a.id, b.id) }
        let kept = limit.map { min($0, keys.count) } ?? keys.count
        var matches: [PlaceMatch] = []
        matches.reserveCapacity(kept)
        let fetch = decodesDuringScan ? nil : try index.hot.rowByPK(index)
        for key in keys.prefix(kept) {
            let place: Place
            if let fetch {
                fetch.reset()
                fetch.bind(key.pk, at: 1)
                guard try fetch.step() else {
                    throw PlaceStoreError.corruptRow(id: key.id, reason: "row vanished during the query")
                }
                place = try PlaceRowCodec.decode(fetch)
            } else {
                place = places[key.slot].take()!
            }
            matches.append(PlaceMatch(place: place, distance: withDistances ? Distance(uncheckedMeters: key.distance) : nil))
        }
        fetch?.reset()
        var next: String?
        if kept < keys.count, let last = keys.prefix(kept).last {
            next = PageCursor(distance: last.distance, id: last.id, queryFingerprint: fingerprint()).encoded()
        }
        return PlacePage(matches: matches, nextCursor: next)
    }
}
