// The README's library snippet, between the two `// snippet` lines, compiled as written
// (`DocsTests` holds the README to it and runs it on the shipped index).
// snippet
import GeoQuery

/// The airports within 20 miles of the Eiffel Tower, nearest first, with their distances.
func airportsNearTheEiffelTower(index path: String = "geodata/places.sqlite") throws -> [String] {
    let index = try SpatiaLitePlaceIndex(path: path)
    let page = try index.near(
        try Coordinate(latitude: 48.8584, longitude: 2.2945), radius: try Distance(parsing: "20mi"),
        filter: PlaceFilter(categories: [try Category("transport.airport")]), limit: 5)
    return page.matches.map { "\($0.name), \(Int($0.distance?.meters ?? 0)) m" }
}
// snippet

enum GettingStarted {
    /// The snippet's function on the index in `folder/geodata/places.sqlite`.
    static func nearestAirports(in folder: String) throws -> [String] {
        try airportsNearTheEiffelTower(index: folder + "/geodata/places.sqlite")
    }
}
