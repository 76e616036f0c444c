import Foundation
import GeoCore
import PlaceModel
import Regions

/// How a random city is drawn.
public enum CityWeighting: String, Sendable, CaseIterable {
    /// Every city equally likely.
    case uniform
    /// Likelihood in proportion to population (a city of 2 million is a hundred times as likely
    /// as one of 20 000).
    case population
}

/// "Surprise me": one city drawn from a list, uniformly or by population, reproducibly from a
/// seed.
///
/// The same seed, list, weighting and previous city always give the same city. The draw maps
/// the seed through ``SplitMix64`` to a point in the cumulative weights (a binary search), so a
/// draw costs O(log n) once the weights are summed.
public struct RandomCityPicker: Sendable {
    /// The cities that may be drawn, in a fixed order (the order decides which city a seed gives).
    public let cities: [Place]
    public let weighting: CityWeighting
    /// Running sums of the weights: `cumulative[i]` is the sum of the weights of cities `0...i`.
    let cumulative: [Double]

    public init(cities: [Place], weighting: CityWeighting) {
        self.cities = cities
        self.weighting = weighting
        var sum = 0.0
        cumulative = cities.map { city in
            sum += Self.weight(of: city, weighting)
            return sum
        }
    }

    /// A city's weight: 1, or its population (at least 1, so a city without a known population
    /// can still be drawn).
    public static func weight(of city: Place, _ weighting: CityWeighting) -> Double {
        switch weighting {
        case .uniform: 1
        case .population: Double(max(1, population(of: city)))
        }
    }

    /// The population GeoNames gives (tag `population`), 0 when unknown.
    public static func population(of city: Place) -> Int { Int(city.tags["population"] ?? "") ?? 0 }

    /// The city `seed` draws, never `previous` (by id) when another city can be drawn; nil for
    /// an empty list.
    public func pick(seed: UInt64, avoiding previous: PlaceID? = nil) -> Place? {
        guard let total = cumulative.last, total > 0 else { return nil }
        var random = SplitMix64(seed: seed)
        var index = draw(&random, total: total)
        if let previous, cities[index].id == previous, cities.count > 1 {
            // Draw again from the same stream (still reproducible); a list of one heavy city and
            // feather-weight others could take long, so after 32 draws step to the next city.
            var tries = 0
            while cities[index].id == previous {
                tries += 1
                index = tries < 32 ? draw(&random, total: total) : (index + 1) % cities.count
            }
        }
        return cities[index]
    }

    func draw(_ random: inout SplitMix64, total: Double) -> Int {
        let target = random.unit() * total
        // The first running sum above the target.
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > target { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// How far a city reaches: the radius its suggestions and a `region=` city query use, from its
/// population when the data has no boundary: 2 km for a town of 10 000 or fewer, 4 km more per
/// tenfold population (6 km at 100 000, 10 km at a million, 14 km at ten million), at most 20 km.
public enum CityExtent {
    public static func radius(population: Int) -> Distance {
        let tenfolds = max(0, log10(Double(max(population, 1)) / 10_000))
        return Distance(uncheckedMeters: min(20_000, 2_000 + 4_000 * tenfolds))
    }
}

extension RandomCityPicker {
    /// The cities a draw may give: of `country` (ISO code) and on `continent` when given, with at
    /// least `minimumPopulation` people. The continent is the country's (GeoNames' country table),
    /// else the one the city's boundaries gave at import.
    public static func eligible(
        _ cities: [Place], continent: Continent?, country: String?, minimumPopulation: Int,
        countries: CountryTable
    ) -> [Place] {
        cities.filter { city in
            let code = city.address?.countryCode?.uppercased()
            if let country, code != country { return false }
            if let continent {
                let known = countries[code].flatMap { Continent(codeOrName: $0.continent) } ?? city.region?.continent
                if known != continent { return false }
            }
            return minimumPopulation <= 0 || population(of: city) >= minimumPopulation
        }
    }
}
