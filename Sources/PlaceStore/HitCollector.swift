import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// Collects a query's matches during a scan and turns them into a sorted page.
///
/// Each match's row is copied into one ``RowArena`` buffer; sorting moves only (distance,
/// offset) keys and compares ids with `memcmp` inside the buffer. Nothing is decoded here: a
/// ``PlaceMatch`` decodes its place when asked.
struct HitCollector: ~Copyable {
    private var rows = RowArena.Builder()
    private var keys: [(distance: Double, offset: Int)]

    init() {
        keys = []
        keys.reserveCapacity(256)
    }

    /// How many hits are recorded.
    var count: Int { keys.count }

    /// Records the row the statement is on (columns as ``Schema/selectColumns``).
    @inline(__always)
    mutating func add(_ row: SQLiteStatement, latitude: Double, longitude: Double, distance: Double) {
        keys.append((distance, rows.append(row, latitude: latitude, longitude: longitude)))
    }

    /// The first `limit` hits in (distance, id) order and the cursor after them.
    consuming func page(limit: Int?, fingerprint: () -> UInt64, withDistances: Bool) -> PlacePage {
        let arena = rows.finish()
        var keys = self.keys
        arena.withBytes { buffer in
            keys.sort { a, b in
                a.distance != b.distance ? a.distance < b.distance : RowArena.idPrecedes(buffer, a.offset, b.offset)
            }
        }
        let kept = limit.map { min($0, keys.count) } ?? keys.count
        let matches = keys.prefix(kept).map { key in
            PlaceMatch(storage: arena, offset: key.offset, distance: withDistances ? Distance(uncheckedMeters: key.distance) : nil)
        }
        var next: String?
        if kept < keys.count, let last = keys.prefix(kept).last {
            next = PageCursor(
                distance: last.distance, id: arena.text(.id, at: last.offset) ?? "",
                queryFingerprint: fingerprint()
            ).encoded()
        }
        return PlacePage(matches: matches, nextCursor: next)
    }
}
