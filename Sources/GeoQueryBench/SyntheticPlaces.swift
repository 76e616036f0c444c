import Foundation
import GeoCore
import PlaceModel
import Regions

/// A city from the shipped GeoNames table.
struct City {
    var latitude: Double
    var longitude: Double
    var population: Double
    /// The city's country and its continent (GeoNames' table): the places around it get them.
    var region: PlaceRegion?
}

enum SyntheticPlaces {
    static let categories = [
        "food.restaurant", "food.cafe", "drink.bar", "lodging.hotel", "culture.museum",
        "historic.castle", "landmark", "nature.park", "water.beach", "activity",
        "shopping", "transport.station", "religious", "service",
    ]

    /// Reads `geonameid,name,lat,lon,country_code,admin1,population,timezone`.
    static func loadCities(_ path: String) throws -> [City] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let countries = try CountryTable(contentsOf: (path as NSString).deletingLastPathComponent + "/countries.csv")
        var cities: [City] = []
        for line in text.split(separator: "\n").dropFirst() {
            // Names may be quoted and contain commas; the numeric columns are found from the end.
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 8, let population = Double(fields[fields.count - 2]),
                let latitude = Double(fields[fields.count - 6]), let longitude = Double(fields[fields.count - 5])
            else { continue }
            let code = String(fields[fields.count - 4]).uppercased()
            let region = countries[code].map { PlaceRegion(countryCode: code, continent: Continent(rawValue: $0.continent)) }
            cities.append(City(latitude: latitude, longitude: longitude, population: max(population, 1000), region: region))
        }
        return cities
    }

    /// `count` places clustered around cities, each city chosen with probability proportional
    /// to its population raised to `weightExponent`; the spread grows with the city (about 3 km
    /// for 100 000 people). The default exponent 0.5 (`make bench`) gives about 3 places within
    /// 1 km and about 600 within 20 miles of a query at a random place — the density of the
    /// reference measurements in the foundation issue (~3 and ~500). Exponent 1 piles a
    /// megacity's share into one cluster (~1 100 within 20 miles).
    static func generate(count: Int, cities: [City], seed: UInt64, weightExponent: Double = 1) -> [Place] {
        var random = SplitMix64(seed: seed)
        var cumulative: [Double] = []
        cumulative.reserveCapacity(cities.count)
        var total = 0.0
        for city in cities {
            total += pow(city.population, weightExponent)
            cumulative.append(total)
        }
        var places: [Place] = []
        places.reserveCapacity(count)
        for index in 0..<count {
            let target = random.unit() * total
            var low = 0, high = cumulative.count - 1
            while low < high {
                let mid = (low + high) / 2
                if cumulative[mid] < target { low = mid + 1 } else { high = mid }
            }
            let city = cities[low]
            let spread = 3000 * (city.population / 100_000).squareRoot().clamped(to: 0.3...6)
            // Box–Muller radial distance, uniform bearing.
            let distance = spread * (-2 * log(max(random.unit(), 1e-12))).squareRoot()
            let bearing = random.unit() * 2 * Double.pi
            let dLat = distance * cos(bearing) / 111_320
            let dLon = distance * sin(bearing) / (111_320 * max(cos(city.latitude * Double.pi / 180), 0.01))
            let latitude = (city.latitude + dLat).clamped(to: -90...90)
            let longitude = Coordinate.normalizedLongitude(city.longitude + dLon)
            let coordinate = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
            let category = try! Category(categories[Int(random.next() % UInt64(categories.count))])
            // A payload like an imported place's: country, a few tags, an import time.
            var place = Place(
                id: try! PlaceID(source: "bench", localID: String(index)), name: "Place \(index)",
                coordinate: coordinate, categories: [category], address: Address(countryCode: "FR"),
                provenance: Provenance(
                    source: "bench", sourceID: String(index),
                    importedAt: Date(timeIntervalSince1970: 1_795_000_000)),
                tags: ["population": String(Int(city.population)), "timezone": "Europe/Paris"])
            place.region = city.region
            if random.next() % 2 == 0 {
                place.rating = try! Rating(
                    sourceValue: Double(random.next() % 50) / 10, scale: 5,
                    count: Int(random.next() % 500))
            }
            places.append(place)
        }
        return places
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
