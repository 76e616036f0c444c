import Foundation
import GeoCore
import PlaceQuery
import PlaceStore

/// `GeoQueryBench --probe`: repeats one query shape so a profiler sees only it.
func probe(index: SpatiaLitePlaceIndex, centres: [Coordinate], limit: Int?, meters: Double) throws {
    var total = 0
    for _ in 0..<(meters < 2000 ? 100 : 5) {
        for centre in centres {
            total += try index.near(centre, radius: Distance(uncheckedMeters: meters), limit: limit).matches.count
        }
    }
    print("probe total", total)
}
