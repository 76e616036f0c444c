import GeoCore
import PlaceModel
import PlaceQuery

/// Cities held in memory for "the nearest cities within a radius" without asking the index,
/// with the index's answer: every city whose ellipsoidal distance is at most the radius,
/// nearest first, then by id.
///
/// The cities are sorted by latitude. A lookup reads the latitude band of the box that covers
/// the circle (``GeoCore/BoundingBox/covering(center:radius:)``, antimeridian and pole aware),
/// keeps the cities inside the box, and decides by ``GeoCore/Geodesic/distance(from:latitude:longitude:)``.
/// A 50 km radius reads a band of about a degree: some hundred cities of 34 000, where the
/// index, on a table of a million places clustered around those cities, reads every place in
/// the circle to find its cities.
public struct NearbyCities: Sendable {
    private let cities: [Place]
    private let latitudes: [Double]

    /// `cities` in any order.
    public init(_ cities: [Place]) {
        let sorted = cities.sorted { $0.coordinate.latitude < $1.coordinate.latitude }
        self.cities = sorted
        latitudes = sorted.map(\.coordinate.latitude)
    }

    /// How many cities it holds.
    public var count: Int { cities.count }

    /// The `count` cities nearest to `center` within `radius` (inclusive), nearest first, then
    /// by id, each with its distance.
    public func nearest(_ center: Coordinate, count: Int, within radius: Distance) -> [PlaceMatch] {
        guard count > 0 else { return [] }
        let box = BoundingBox.covering(center: center, radius: radius)
        let origin = Geodesic.Origin(center)
        // The first city at or north of the box's south edge.
        var low = 0, high = latitudes.count
        while low < high {
            let middle = (low + high) / 2
            if latitudes[middle] < box.south { low = middle + 1 } else { high = middle }
        }
        var found: [(distance: Double, place: Place)] = []
        var index = low
        while index < latitudes.count, latitudes[index] <= box.north {
            let place = cities[index]
            index += 1
            guard box.contains(place.coordinate) else { continue }
            let distance = Geodesic.distance(from: origin, latitude: place.coordinate.latitude, longitude: place.coordinate.longitude)
            if distance <= radius.meters { found.append((distance, place)) }
        }
        found.sort { ($0.distance, $0.place.id.rawValue) < ($1.distance, $1.place.id.rawValue) }
        return found.prefix(count).map { PlaceMatch(place: $0.place, distance: Distance(uncheckedMeters: $0.distance)) }
    }
}
