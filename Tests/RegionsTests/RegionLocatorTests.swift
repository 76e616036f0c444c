import Foundation
import GeoCore
import PlaceModel
import Testing

@testable import Regions

/// The shipped `geodata/` files, loaded once for the suite (half a second).
private let geodata = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("geodata").path
private let locator: RegionLocator = {
    do { return try RegionLocator(dataDirectory: geodata) } catch { fatalError("geodata/ does not load: \(error)") }
}()

private func point(_ latitude: Double, _ longitude: Double) -> Coordinate {
    Coordinate(uncheckedLatitude: latitude, longitude: longitude)
}

@Suite("Country, continent and time zone from the boundaries")
struct RegionLocatorTests {
    @Test(
        "Known places get their country and GeoNames' continent",
        arguments: [
            (48.8566, 2.3522, "FR", Continent.europe),  // Paris
            (4.9333, -52.3333, "GF", .southAmerica),  // Cayenne: drawn inside France, its own code
            (-20.8789, 55.4481, "RE", .africa),  // Saint-Denis, Réunion
            (12.15, -68.27, "BQ", .northAmerica),  // Kralendijk, Bonaire
            (78.22, 15.65, "SJ", .europe),  // Longyearbyen
            (25.0330, 121.5654, "TW", .asia),  // Taipei: ISO_A2 is CN-TW
            (42.6629, 21.1655, "XK", .europe),  // Pristina: only ISO_A2_EH
            (59.9139, 10.7522, "NO", .europe),  // Oslo: ISO_A2 is -99
            (35.1856, 33.3823, "CY", .europe),  // Nicosia: Natural Earth says Asia
            (43.1155, 131.8855, "RU", .europe),  // Vladivostok: all of Russia is EU in GeoNames
            (-18.1416, 178.4419, "FJ", .oceania),  // Suva, west of the antimeridian
            (-16.80, -179.95, "FJ", .oceania),  // Taveuni, east of it
            (65.58, -170.99, "RU", .europe),  // Lavrentiya, Chukotka: east of the antimeridian
            (-29.3167, 27.4833, "LS", .africa),  // Maseru: an enclave, a hole in South Africa
            (-29.1211, 26.2140, "ZA", .africa),  // Bloemfontein
            (43.7384, 7.4246, "MC", .europe),  // Monaco
            (41.9029, 12.4534, "VA", .europe),  // Vatican
            (-89.99, 0.0, "AQ", .antarctica),  // near the South Pole
            (-90.0, 45.0, "AQ", .antarctica),  // the South Pole itself
            (21.3069, -157.8583, "US", .northAmerica),  // Honolulu
        ] as [(Double, Double, String, Continent)])
    func knownPlaces(latitude: Double, longitude: Double, country: String, continent: Continent) {
        let region = locator.region(at: point(latitude, longitude))
        #expect(region?.countryCode == country, "at \(latitude), \(longitude)")
        #expect(region?.continent == continent, "at \(latitude), \(longitude)")
    }

    @Test("Open sea, the North Pole and land no polygon covers have no country")
    func noCountry() {
        #expect(locator.region(at: point(30, -40)) == nil)  // mid-Atlantic
        #expect(locator.region(at: point(90, 0)) == nil)  // North Pole
        #expect(locator.region(at: point(0, -160)) == nil)  // mid-Pacific
        let birTawil = locator.region(at: point(21.87, 33.75))  // claimed by neither Egypt nor Sudan
        #expect(birTawil?.countryCode == nil)
        #expect(birTawil?.continent == .africa)
    }

    @Test("A point just off a coast takes the nearest country within 25 km, not farther")
    func coastalReach() {
        // 5 km off Nice, and 60 km out into the Mediterranean south of it.
        #expect(locator.region(at: point(43.65, 7.28))?.countryCode == "FR")
        #expect(locator.region(at: point(43.15, 7.28)) == nil)
    }

    @Test(
        "The source's country wins within 25 km of it; a territory keeps its code; farther, the polygon wins",
        arguments: [
            (43.747060, 7.438126, nil, "FR"),  // Monte Carlo Sporting Club: the 1:10m Monaco is coarse…
            (43.747060, 7.438126, "MC", "MC"),  // …so OpenStreetMap's addr:country decides
            (49.3724, 6.1216, nil, "FR"),  // Luxembourg-Findel as the airports file has it, 9 km into France
            (49.3724, 6.1216, "LU", "LU"),
            (49.3724, 6.1216, "lu", "LU"),  // the code in any case
            (51.0525, 2.391, "BE", "BE"),  // Koksijde Air Base, as filed
            (48.997778, -114.474722, "US", "US"),  // Moose City Airport, 250 m south of the 49th parallel
            (43.3565, -1.79061, "ES", "ES"),  // Hondarribia's airport, on the Bidasoa
            (47.66033, 9.17582, nil, "CH"),  // Konstanz, as GeoNames has it: the Rhine drawn coarsely
            (47.66033, 9.17582, "DE", "DE"),
            (51.15518, 14.98853, "DE", "DE"),  // Görlitz, on the Neisse
            (22.20769, 113.54831, "CN", "MO"),  // a Macau parish GeoNames files under CN: Macau's own code
            (60.1222, 19.8982, "FI", "AX"),  // Mariehamn's airport: Åland
            (18.453333, -66.366944, "US", "PR"),  // Puerto Rico, far from any US polygon
            (48.8566, 2.3522, "US", "FR"),  // Paris filed under the US: far beyond the reach
            (48.8566, 2.3522, "Q", "FR"),  // not a country code
            (30.0, -40.0, "PT", nil),  // mid-Atlantic: no claim makes it land
        ] as [(Double, Double, String?, String?)])
    func claimedCountry(latitude: Double, longitude: Double, claimed: String?, country: String?) {
        #expect(
            locator.region(at: point(latitude, longitude), claimedCountry: claimed)?.countryCode == country,
            "at \(latitude), \(longitude) filed under \(claimed ?? "nothing")")
    }

    @Test("Importing sets the region from the source's country near a border, and the time zone from it")
    func annotateUsesTheAddress() {
        var casino = Place(
            id: PlaceID(trustedRawValue: "osm:w159175442"), name: "Monte Carlo Sporting Club",
            coordinate: point(43.747060, 7.438126), address: Address(countryCode: "MC"))
        locator.annotate(&casino)
        #expect(casino.region?.countryCode == "MC" && casino.region?.continent == .europe)
        #expect(casino.timeZone == "Europe/Monaco")
    }

    @Test("Time zones: the nearest city's in the same country")
    func timeZones() {
        #expect(locator.timeZone(at: point(48.85, 2.35), countryCode: "FR") == "Europe/Paris")
        #expect(locator.timeZone(at: point(40.71, -74.0), countryCode: "US") == "America/New_York")
        #expect(locator.timeZone(at: point(34.05, -118.24), countryCode: "US") == "America/Los_Angeles")
        #expect(locator.timeZone(at: point(19.7, -155.1), countryCode: "US") == "Pacific/Honolulu")
        #expect(locator.timeZone(at: point(30, -40), countryCode: nil) == nil)  // nothing within 300 km
        var place = Place(id: try! PlaceID("osm:1"), name: "Café", coordinate: point(52.52, 13.40))
        locator.annotate(&place)
        #expect(place.region == PlaceRegion(countryCode: "DE", continent: .europe))
        #expect(place.timeZone == "Europe/Berlin")
        var withZone = Place(id: try! PlaceID("osm:2"), name: "Kept", coordinate: point(52.52, 13.40), timeZone: "Etc/UTC")
        locator.annotate(&withZone)
        #expect(withZone.timeZone == "Etc/UTC")  // the source's zone is kept
    }

    @Test("The time zone is the zone of the nearest city (haversine, over every city), in the country when it has cities")
    func timeZoneIsTheNearestCitys() throws {
        let text = try String(contentsOfFile: geodata + "/cities15000.csv", encoding: .utf8)
        var cities: [(point: Coordinate, country: String, zone: String)] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 8, let latitude = Double(fields[fields.count - 6]), let longitude = Double(fields[fields.count - 5]),
                !fields[fields.count - 1].isEmpty
            else { continue }
            cities.append((point(latitude, longitude), String(fields[fields.count - 4]), String(fields[fields.count - 1])))
        }
        var random = SplitMix64(seed: 0x7A0E)
        var checked = 0
        for _ in 0..<400 {
            // Near a random city (so in a country with cities), up to 3° away.
            let near = cities[Int(random.next() % UInt64(cities.count))]
            let probe = point(
                max(-89.9, min(89.9, near.point.latitude + Double(random.next() % 600) / 100 - 3)),
                (near.point.longitude + Double(random.next() % 600) / 100 - 3 + 540).truncatingRemainder(dividingBy: 360) - 180)
            let inCountry = cities.filter { $0.country == near.country }
            let distances = inCountry.map { haversineDistance(probe, $0.point) }
            let nearest = distances.min()!
            // Two cities at (almost) the same distance may be told apart either way.
            guard distances.filter({ $0 <= nearest + 1 }).count == 1 else { continue }
            let expected = inCountry[distances.firstIndex(of: nearest)!].zone
            #expect(locator.timeZone(at: probe, countryCode: near.country) == expected, "\(probe) in \(near.country)")
            checked += 1
        }
        #expect(checked > 300)
    }

    @Test("GeoNames cities agree with the boundaries for ≥ 98 % (the README measured 98.1 % before the coastal reach)")
    func citiesAgree() throws {
        let text = try String(contentsOfFile: geodata + "/cities15000.csv", encoding: .utf8)
        var same = 0, sameWhenFiled = 0, total = 0
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 8, let latitude = Double(fields[fields.count - 6]),
                let longitude = Double(fields[fields.count - 5])
            else { continue }
            total += 1
            let country = String(fields[fields.count - 4])
            if locator.region(at: point(latitude, longitude))?.countryCode == country { same += 1 }
            if locator.region(at: point(latitude, longitude), claimedCountry: country)?.countryCode == country { sameWhenFiled += 1 }
        }
        #expect(total > 30_000)
        #expect(Double(same) / Double(total) >= 0.98, "\(same) of \(total)")
        // With each city's own country given, as an import gives it: all but a few dozen, which lie
        // farther than 25 km from the polygon of the country they are filed under, or in a
        // territory of it (Macau, Åland).
        #expect(Double(sameWhenFiled) / Double(total) >= 0.998, "\(sameWhenFiled) of \(total)")
    }

    @Test("The grid answers as a plain ray cast over every polygon would, near borders and far from them")
    func gridIsRayCasting() throws {
        let features = try BoundaryFile.features(at: geodata + "/" + RegionLocator.boundariesFile)
        let parts = features.flatMap(\.polygons)
        let grid = BoundaryGrid(parts: parts)
        func rayCast(_ x: Double, _ y: Double) -> [Int] {
            parts.indices.filter { part in
                var inside = false
                for ring in parts[part] {
                    var i = 0
                    while i + 3 < ring.count {
                        let (x1, y1, x2, y2) = (ring[i], ring[i + 1], ring[i + 2], ring[i + 3])
                        if (y1 > y) != (y2 > y), x < x1 + (y - y1) * (x2 - x1) / (y2 - y1) { inside.toggle() }
                        i += 2
                    }
                }
                return inside
            }
        }
        var random = SplitMix64(seed: 19)
        var points: [(Double, Double)] = (0..<150).map { _ in
            (random.unit() * 360 - 180, random.unit() * 180 - 90)
        }
        // Points a few metres from a vertex of a random border.
        for _ in 0..<150 {
            let ring = parts[Int(random.next() % UInt64(parts.count))][0]
            let vertex = Int(random.next() % UInt64(ring.count / 2)) * 2
            points.append(
                (
                    max(-180, min(180, ring[vertex] + (random.unit() - 0.5) * 1e-3)),
                    max(-90, min(90, ring[vertex + 1] + (random.unit() - 0.5) * 1e-3))
                ))
        }
        var disagreements: [String] = []
        for (x, y) in points {
            let expected = rayCast(x, y)
            let found = grid.part(longitude: x, latitude: y)
            if found.map({ [$0] }) ?? [] != expected { disagreements.append("\(y), \(x): grid \(String(describing: found)), ray \(expected)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    @Test("A missing or malformed file is an error that names it")
    func badFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("regions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: RegionError.self) { try RegionLocator(dataDirectory: directory.path) }
        try FileManager.default.copyItem(atPath: geodata + "/countries.csv", toPath: directory.path + "/countries.csv")
        try Data("{\"type\":\"FeatureCollection\",\"features\":[{\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}]}".utf8)
            .write(to: directory.appendingPathComponent(RegionLocator.boundariesFile))
        do {
            _ = try RegionLocator(dataDirectory: directory.path)
            Issue.record("a Point feature was accepted")
        } catch let error as RegionError {
            #expect(error.description.contains(RegionLocator.boundariesFile))
            #expect(error.description.contains("Point"))
        }
    }
}
