import Foundation
import GeoCore

/// The time zone of a point: the zone of the nearest GeoNames city, in the point's country when
/// it is known. Cities sit in 1° cells; a search looks at rings of cells around the point until
/// no nearer city can be left (a few cells for almost every point on land).
struct TimeZoneLocator: Sendable {
    private struct City: Sendable {
        /// The city's direction from the centre of the sphere: the nearest city to a point is
        /// the one whose direction is closest to the point's (largest dot product), which needs
        /// no trigonometry per city.
        var x: Double
        var y: Double
        var z: Double
        var country: UInt16
        var zone: Int32

        init(latitude: Double, longitude: Double, country: UInt16, zone: Int32) {
            (x, y, z) = City.direction(latitude: latitude, longitude: longitude)
            self.country = country
            self.zone = zone
        }

        static func direction(latitude: Double, longitude: Double) -> (Double, Double, Double) {
            let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
            let cosPhi = cos(phi)
            return (cosPhi * cos(lambda), cosPhi * sin(lambda), sin(phi))
        }
    }

    private let cities: [City]
    private let zones: [String]
    /// City indices per 1° cell, row-major from (-90, -180).
    private let cells: [[Int32]]
    /// A country's zone when all its cities share one.
    private let onlyZone: [UInt16: Int32]
    /// Countries with at least one city (a search for another would look far for nothing).
    private let countriesWithCities: Set<UInt16>
    /// How far a city of another country may be: 300 km.
    static let otherCountryReach = 300_000.0

    init(citiesFile path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RegionError.unreadable(path: path, reason: "it is missing or not UTF-8")
        }
        var cities: [City] = []
        var cellOfCity: [Int] = []
        var zoneIndex: [String: Int32] = [:]
        var zones: [String] = []
        var countryZones: [UInt16: Set<Int32>] = [:]
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        guard let header = lines.popFirst(), header.hasPrefix("geonameid,name,lat,lon,country_code") else {
            throw RegionError.malformed(path: path, reason: "its header is not geonameid,name,lat,lon,country_code,admin1,population,timezone")
        }
        for line in lines {
            // Names may be quoted and hold commas: the last six fields never do.
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 8 else { continue }
            let tail = fields.suffix(6).map(String.init)
            guard let latitude = Double(tail[0]), let longitude = Double(tail[1]),
                let country = TimeZoneLocator.key(tail[2]), !tail[5].isEmpty,
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { continue }
            let zone: Int32
            if let known = zoneIndex[tail[5]] {
                zone = known
            } else {
                zone = Int32(zones.count)
                zones.append(tail[5])
                zoneIndex[tail[5]] = zone
            }
            cities.append(City(latitude: latitude, longitude: longitude, country: country, zone: zone))
            cellOfCity.append(TimeZoneLocator.cell(row: TimeZoneLocator.row(latitude), column: TimeZoneLocator.column(longitude)))
            countryZones[country, default: []].insert(zone)
        }
        guard !cities.isEmpty else { throw RegionError.malformed(path: path, reason: "it has no cities with a time zone") }
        var cells = [[Int32]](repeating: [], count: 360 * 180)
        for (index, cell) in cellOfCity.enumerated() { cells[cell].append(Int32(index)) }
        self.cities = cities
        self.zones = zones
        self.cells = cells
        onlyZone = countryZones.compactMapValues { $0.count == 1 ? $0.first : nil }
        countriesWithCities = Set(countryZones.keys)
    }

    func timeZone(at coordinate: Coordinate, countryCode: String?) -> String? {
        let country = countryCode.flatMap(TimeZoneLocator.key)
        if let country, let zone = onlyZone[country] { return zones[Int(zone)] }
        if let country, countriesWithCities.contains(country), let zone = nearest(coordinate, country: country, maxRings: 60) {
            return zones[Int(zone)]
        }
        return nearest(coordinate, country: nil, maxRings: 4).map { zones[Int($0)] }
    }

    private func nearest(_ point: Coordinate, country: UInt16?, maxRings: Int) -> Int32? {
        let row = TimeZoneLocator.row(point.latitude), column = TimeZoneLocator.column(point.longitude)
        let (px, py, pz) = City.direction(latitude: point.latitude, longitude: point.longitude)
        // The best city so far by the dot product of directions (larger is nearer).
        var best: (dot: Double, zone: Int32)? = nil
        /// The great-circle distance (as `haversineDistance` gives it) for a dot product.
        func distance(_ dot: Double) -> Double {
            let chord = max(0, 2 - 2 * dot).squareRoot()
            return 2 * WGS84.meanRadius * asin(min(1, chord / 2))
        }
        for ring in 0...maxRings {
            for r in max(0, row - ring)...min(179, row + ring) {
                // The ring's cells: whole rows at its top and bottom, two cells on the rows between.
                let onEdgeRow = r == row - ring || r == row + ring
                let step = onEdgeRow || ring == 0 ? 1 : 2 * ring
                for c in stride(from: column - ring, through: column + ring, by: step) {
                    for index in cells[TimeZoneLocator.cell(row: r, column: (c % 360 + 360) % 360)] {
                        let city = cities[Int(index)]
                        if let country, city.country != country { continue }
                        let dot = px * city.x + py * city.y + pz * city.z
                        if dot > (best?.dot ?? -.infinity) { best = (dot, city.zone) }
                    }
                }
            }
            if let best {
                let bestDistance = distance(best.dot)
                if country == nil, bestDistance > TimeZoneLocator.otherCountryReach { return nil }
                // Every city in a farther ring is at least `ring` cells away in latitude or in
                // (shrinking) longitude.
                let latitude = min(89.9, abs(point.latitude) + Double(ring) + 1)
                if bestDistance <= Double(ring) * 111_000 * cos(latitude * .pi / 180) { return best.zone }
            }
        }
        if let best, country == nil, distance(best.dot) > TimeZoneLocator.otherCountryReach { return nil }
        return best?.zone
    }

    private static func key(_ code: String) -> UInt16? {
        let bytes = Array(code.utf8)
        guard bytes.count == 2, bytes.allSatisfy({ (65...90).contains($0) }) else { return nil }
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }
    private static func row(_ latitude: Double) -> Int { min(179, max(0, Int((latitude + 90).rounded(.down)))) }
    private static func column(_ longitude: Double) -> Int { min(359, max(0, Int((longitude + 180).rounded(.down)))) }
    private static func cell(row: Int, column: Int) -> Int { row * 360 + column }
}
