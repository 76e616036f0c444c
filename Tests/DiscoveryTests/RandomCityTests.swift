import Foundation
import GeoCore
import PlaceModel
import Regions
import Testing

@testable import Discovery

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The shipped GeoNames cities (geodata/cities15000.csv) as places, and the country table.
enum ShippedCities {
    static let countries = try! CountryTable(contentsOf: repositoryRoot.appendingPathComponent("geodata/countries.csv").path)
    static let all: [Place] = {
        let text = try! String(contentsOf: repositoryRoot.appendingPathComponent("geodata/cities15000.csv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line -> Place? in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            // Names with commas are quoted; the tests need only the plain ones.
            guard fields.count == 8, let lat = Double(fields[2]), let lon = Double(fields[3]),
                let point = try? Coordinate(latitude: lat, longitude: lon)
            else { return nil }
            return Place(
                id: PlaceID(trustedRawValue: "geonames:" + fields[0]), name: fields[1], coordinate: point, categories: [.city],
                address: Address(countryCode: fields[4]), tags: ["population": fields[6]], timeZone: fields[7])
        }
    }()
}

@Suite struct RandomCityTests {
    /// Pearson's χ² of observed counts against expected ones.
    static func chiSquared(_ observed: [Int], _ expected: [Double]) -> Double {
        zip(observed, expected).reduce(0) { $0 + (Double($1.0) - $1.1) * (Double($1.0) - $1.1) / $1.1 }
    }

    @Test func uniformDrawsPassChiSquared() {
        let cities = Array(ShippedCities.all.prefix(40))
        let picker = RandomCityPicker(cities: cities, weighting: .uniform)
        var counts = [PlaceID: Int]()
        let draws = 40_000
        for seed in 0..<UInt64(draws) { counts[picker.pick(seed: seed)!.id, default: 0] += 1 }
        let statistic = Self.chiSquared(cities.map { counts[$0.id] ?? 0 }, Array(repeating: Double(draws) / 40, count: 40))
        // 39 degrees of freedom: P(χ² > 72.05) = 0.001.
        #expect(statistic < 72.05, "χ² = \(statistic)")
    }

    @Test func populationDrawsPassChiSquared() {
        // 30 cities with very different populations.
        let cities = Array(
            ShippedCities.all.sorted { $0.id.rawValue < $1.id.rawValue }.enumerated().filter { $0.offset % 997 == 0 }.map(\.element).prefix(30))
        let populations = cities.map { Double(RandomCityPicker.population(of: $0)) }
        let total = populations.reduce(0, +)
        #expect(populations.max()! / populations.min()! > 10, "the sample spans an order of magnitude")
        let picker = RandomCityPicker(cities: cities, weighting: .population)
        var counts = [PlaceID: Int]()
        let draws = 60_000
        for seed in 0..<UInt64(draws) { counts[picker.pick(seed: seed &* 0x9E37_79B9 &+ 17)!.id, default: 0] += 1 }
        let statistic = Self.chiSquared(cities.map { counts[$0.id] ?? 0 }, populations.map { Double(draws) * $0 / total })
        // 29 degrees of freedom: P(χ² > 58.30) = 0.001.
        #expect(statistic < 58.30, "χ² = \(statistic)")
        // And the uniform draw over the same cities is far from population weighting.
        let uniform = RandomCityPicker(cities: cities, weighting: .uniform)
        var flat = [PlaceID: Int]()
        for seed in 0..<UInt64(draws) { flat[uniform.pick(seed: seed)!.id, default: 0] += 1 }
        #expect(Self.chiSquared(cities.map { flat[$0.id] ?? 0 }, populations.map { Double(draws) * $0 / total }) > 1_000)
    }

    @Test func aSeedAlwaysGivesTheSameCityAndNeverThePreviousOne() {
        let picker = RandomCityPicker(cities: ShippedCities.all, weighting: .population)
        for seed in [0, 1, 42, UInt64.max] as [UInt64] {
            let first = picker.pick(seed: seed)!
            #expect(picker.pick(seed: seed) == first)
            let other = picker.pick(seed: seed, avoiding: first.id)!
            #expect(other.id != first.id)
            #expect(picker.pick(seed: seed, avoiding: first.id) == other, "reproducible with the previous city too")
        }
        let one = RandomCityPicker(cities: [ShippedCities.all[0]], weighting: .uniform)
        #expect(one.pick(seed: 3, avoiding: ShippedCities.all[0].id) == ShippedCities.all[0], "a list of one has nothing else to give")
        #expect(RandomCityPicker(cities: [], weighting: .uniform).pick(seed: 1) == nil)
    }

    @Test func continentAndCountryFiltersHoldForEveryCity() {
        let table = ShippedCities.countries
        for continent in Continent.allCases {
            let kept = RandomCityPicker.eligible(ShippedCities.all, continent: continent, country: nil, minimumPopulation: 0, countries: table)
            let brute = ShippedCities.all.filter { table[$0.address?.countryCode]?.continent == continent.rawValue }
            #expect(kept.map(\.id) == brute.map(\.id), "\(continent)")
            if continent != .antarctica { #expect(!kept.isEmpty) }
        }
        let french = RandomCityPicker.eligible(ShippedCities.all, continent: .europe, country: "FR", minimumPopulation: 100_000, countries: table)
        #expect(!french.isEmpty && french.allSatisfy { $0.address?.countryCode == "FR" && RandomCityPicker.population(of: $0) >= 100_000 })
        #expect(RandomCityPicker.eligible(ShippedCities.all, continent: .asia, country: "FR", minimumPopulation: 0, countries: table).isEmpty)
    }

    @Test func cityExtentGrowsWithPopulation() {
        #expect(CityExtent.radius(population: 5_000).meters == 2_000)
        #expect(abs(CityExtent.radius(population: 1_000_000).meters - 10_000) < 1e-6)
        #expect(CityExtent.radius(population: 1_000_000_000).meters == 20_000)
    }
}

@Suite struct RegionQueryTests {
    let table = ShippedCities.countries

    @Test func countriesContinentsAndCities() throws {
        #expect(try RegionQuery(parsing: "fr", countries: table) == .country(code: "FR", name: "France"))
        #expect(try RegionQuery(parsing: "France", countries: table) == .country(code: "FR", name: "France"))
        #expect(try RegionQuery(parsing: "EU", countries: table) == .continent(.europe))
        #expect(try RegionQuery(parsing: "north america", countries: table) == .continent(.northAmerica))
        #expect(try RegionQuery(parsing: "Paris", countries: table) == .city(name: "Paris"))
        #expect(try RegionQuery(parsing: "continent:SA", countries: table) == .continent(.southAmerica))
        #expect(try RegionQuery(parsing: "country:SA", countries: table) == .country(code: "SA", name: "Saudi Arabia"))
        #expect(try RegionQuery(parsing: "city:Georgia", countries: table) == .city(name: "Georgia"))
    }

    @Test func ambiguousAndBadRegionsSayWhatToWrite() {
        #expect(
            throws: RegionQuery.Failure(
                description: "region 'SA' is both a continent (South America) and a country (Saudi Arabia); write continent:SA or country:SA")
        ) {
            try RegionQuery(parsing: "SA", countries: table)
        }
        #expect(throws: RegionQuery.Failure.self) { try RegionQuery(parsing: " ", countries: table) }
        #expect(throws: RegionQuery.Failure.self) { try RegionQuery(parsing: "country:Atlantis", countries: table) }
        #expect(throws: RegionQuery.Failure.self) { try RegionQuery(parsing: "planet:Mars", countries: table) }
    }
}
