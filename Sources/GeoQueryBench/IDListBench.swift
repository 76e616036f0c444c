import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// Lists of places by id — a page of favourites, a moderation page, a route's stops — read as
/// the service now reads them (``PlaceIndex/places(_:)``, one read) beside the baseline of one
/// ``PlaceIndex/place(_:)`` per id, as the routes read them before, on the same index in the
/// same run.
enum IDListBench {
    /// Prints one row: `lists` lists of `size` ids each (a few of them unknown).
    static func run(_ index: any PlaceIndex, label: String, ids: [PlaceID], size: Int = 100, lists: Int = 200) async throws {
        var pick = SplitMix64(seed: 5)
        let listed: [[PlaceID]] = (0..<lists).map { n in
            (0..<size).map { k in k == 0 && n % 4 == 0 ? PlaceID(trustedRawValue: "t:no-such-place-\(n)") : ids[Int(pick.next() % UInt64(ids.count))]
            }
        }
        for list in listed.prefix(10) { _ = try await index.places(list) }  // warm the caches
        var oneRead: [Double] = [], perID: [Double] = []
        var same = true
        for list in listed {
            let t0 = now()
            let found = try await index.places(list)
            let t1 = now()
            var each: [PlaceID: Place] = [:]
            for id in list { if let place = try await index.place(id) { each[id] = place } }
            let t2 = now()
            oneRead.append(Double(t1 - t0))
            perID.append(Double(t2 - t1))
            same = same && Set(found.keys) == Set(each.keys)
        }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        print(
            "\(label), lists of \(size) ids (\(lists) lists): one read p50 \(micros(percentile(oneRead, 0.5))), mean \(micros(mean(oneRead))); "
                + "one place(_:) per id p50 \(micros(percentile(perID, 0.5))), mean \(micros(mean(perID))); "
                + String(format: "%.1f× faster", mean(perID) / mean(oneRead)) + (same ? "" : " — ANSWERS DIFFER"))
    }
}
