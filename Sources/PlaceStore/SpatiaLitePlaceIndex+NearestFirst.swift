import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

extension SpatiaLitePlaceIndex {
    /// How far, at most, a point lies from the south-west corner of its R*Tree box, in metres.
    /// The module stores a point's coordinates as 32-bit floats rounded outwards, so its box is
    /// at most one float step wide: 1.5e-5° of longitude (1.7 m at the equator) and 7.6e-6° of
    /// latitude (0.85 m), under 2 m corner to corner. Three metres leave a margin.
    static let entrySlack = 3.0

    /// Whether a disc's nearest places can be found from the R*Tree's entries first: when no
    /// name or category index drives the scan (``scan(box:filter:_:)`` chooses those).
    static func findsNearestByEntries(_ filter: PlaceFilter) -> Bool {
        filter.categories.isEmpty && (filter.text.map { $0.trimmingCharacters(in: .whitespaces).isEmpty } ?? true)
    }

    /// The `count` nearest matches within `radius` of `center` in (distance, id) order: what
    /// ``nearest(_:count:maxDistance:filter:)`` answers without a name or category filter. Call
    /// with the lock held.
    ///
    /// Reads the R*Tree's entries alone first (no row): each entry's box gives a lower bound on
    /// the place's ellipsoidal distance (haversine to the box's corner, less ``entrySlack``,
    /// less the haversine's error band). Discs grow from ``firstProbeRadius`` until they hold
    /// at least `count` entries (or reach `radius`). Rows are then read in order of that
    /// bound, each decided exactly (distance, filter), and reading stops once `count` matches
    /// are in hand and the next bound lies beyond the `count`-th distance: no place not yet
    /// read can sort before it. When the filter leaves fewer than `count` in the disc, the disc
    /// grows by the density of the matches it saw and the rows are read again. Worst case (a
    /// filter that matches nothing): every entry and row of the disc, a few times over as it
    /// grows.
    ///
    /// `near`'s first pages scan discs instead (``near(_:radius:filter:limit:cursor:)``):
    /// measured on 100 000 gems, a page of 50 from a sparse disc read almost every row either
    /// way, and reading entries and then rows one by one cost about 10 % more than the join.
    func nearestByEntries(_ center: Coordinate, radius: Double, filter: PlaceFilter, count: Int) throws -> [PlaceMatch] {
        var probe = min(Self.firstProbeRadius, radius)
        while true {
            let candidates = try entryCandidates(center, radius: probe)
            if candidates.count < count && probe < radius {
                probe = min(radius, Self.nextEntryProbeRadius(probe, found: candidates.count, wanted: count))
                continue
            }
            var hits = HitCollector()
            try readNearest(candidates, center: center, radius: probe, filter: filter, needed: count, into: &hits)
            if hits.count >= count || probe >= radius {
                return hits.page(limit: count, fingerprint: { 0 }, withDistances: true).matches
            }
            probe = min(radius, Self.nextEntryProbeRadius(probe, found: hits.count, wanted: count))
        }
    }

    /// The next disc when reading entries: at least twice as wide. Entries cost little beside
    /// rows, so overshooting (at most 4× the area needed) is cheaper than the many small steps
    /// a cluster at the centre causes (it makes the density look higher than it is).
    static func nextEntryProbeRadius(_ radius: Double, found: Int, wanted: Int) -> Double {
        let factor = found == 0 ? 4 : min(4, max(2, (Double(wanted) / Double(found)).squareRoot() * 1.5))
        return radius * factor
    }

    /// The R*Tree entries within `radius` by their lower bound, nearest bound first. Only the
    /// box's south-west corner is read: asking the module for fewer columns is most of an
    /// entry's cost.
    func entryCandidates(_ center: Coordinate, radius r: Double) throws -> [(bound: Double, pk: Int64)] {
        let box = BoundingBox.covering(center: center, radius: Distance(uncheckedMeters: r))
        let entries = try hot.entriesInBox(self)
        defer { entries.reset() }
        var candidates: [(bound: Double, pk: Int64)] = []
        let bandFactor = 1 / (1 + Self.cheapDistanceBand)
        for part in box.nonWrappingParts {
            entries.rebind(box: part)
            while try entries.step() {
                let corner = Coordinate(uncheckedLatitude: entries.double(2), longitude: entries.double(1))
                let bound = max(0, (haversineDistance(center, corner) - Self.entrySlack - 1) * bandFactor)
                if bound <= r { candidates.append((bound, entries.int64(0))) }
            }
        }
        candidates.sort { $0.bound < $1.bound }
        return candidates
    }

    /// Reads the candidates' rows in order until the `needed` nearest matches within `radius`
    /// are certain, recording every match read.
    private func readNearest(
        _ candidates: [(bound: Double, pk: Int64)], center: Coordinate, radius r: Double,
        filter: PlaceFilter, needed: Int, into hits: inout HitCollector
    ) throws {
        var nearest = LargestOfSmallest(capacity: needed)
        let origin = Geodesic.Origin(center)
        let rowFilter = RowFilter(filter)
        let row = try hot.rowByPK(self)
        defer { row.reset() }
        for candidate in candidates {
            if let reach = nearest.largest, candidate.bound > reach { break }
            row.reset()
            row.bind(candidate.pk, at: 1)
            guard try row.step() else { continue }
            let latitude = row.double(1), longitude = row.double(2)
            let d = Geodesic.distance(from: origin, latitude: latitude, longitude: longitude)
            if d > r { continue }
            guard rowFilter.passes(row) else { continue }
            hits.add(row, latitude: latitude, longitude: longitude, distance: d)
            nearest.insert(d)
        }
    }
}

/// The `capacity` smallest values seen, as a max-heap: ``largest`` is the `capacity`-th
/// smallest once that many have been inserted, nil before.
struct LargestOfSmallest {
    private var heap: [Double] = []
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        heap.reserveCapacity(min(self.capacity, 4096))
    }

    var largest: Double? { heap.count == capacity ? heap[0] : nil }

    mutating func insert(_ value: Double) {
        if heap.count < capacity {
            heap.append(value)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[parent] < heap[child] else { break }
                heap.swapAt(parent, child)
                child = parent
            }
        } else if value < heap[0] {
            heap[0] = value
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < heap.count && heap[left] > heap[largest] { largest = left }
                if right < heap.count && heap[right] > heap[largest] { largest = right }
                guard largest != parent else { break }
                heap.swapAt(parent, largest)
                parent = largest
            }
        }
    }
}
