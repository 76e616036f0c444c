import GeoCore
import PlaceModel
import PlaceQuery
import Regions

/// Where a point is, in words a person reads ("near Paris, France"): the country and continent
/// it lies in, its time zone, the cities around it, and the one it is best described as near.
///
/// A reverse lookup for a travel app's "you are here", a gem's caption or a photo's place,
/// from what GeoQuery ships: the country from the Natural Earth boundaries
/// (``RegionLocator/region(at:)``, which reaches 25 km off a coast), the time zone from the
/// nearest GeoNames city, and the cities from the index (category `city`).
public struct Whereabouts: Sendable {
    /// The point asked about.
    public var coordinate: Coordinate
    /// The country (ISO 3166 alpha-2) and continent it lies in; nil out at sea.
    public var region: PlaceRegion?
    /// The country's name (GeoNames' `countries.csv`), when it has a country.
    public var countryName: String?
    /// The IANA time zone there; nil without city data, or far from any city.
    public var timeZone: String?
    /// The cities within the radius asked, nearest first, each with its distance.
    public var cities: [PlaceMatch]
    /// The city the point is best described as near (see ``bestCity(among:)``); nil with no
    /// city in reach.
    public var city: PlaceMatch?

    public init(
        coordinate: Coordinate, region: PlaceRegion?, countryName: String?, timeZone: String?,
        cities: [PlaceMatch], city: PlaceMatch?
    ) {
        self.coordinate = coordinate
        self.region = region
        self.countryName = countryName
        self.timeZone = timeZone
        self.cities = cities
        self.city = city
    }

    /// Of `candidates`, the city whose distance is smallest against the square root of its
    /// population (at least 1 000): a point 4 km from the centre of Paris is near Paris, not
    /// near the district 1.4 km away; at equal population, the nearer.
    public static func bestCity(among candidates: [PlaceMatch]) -> PlaceMatch? {
        func reach(_ match: PlaceMatch) -> Double {
            let population = Double(max(1_000, Int(match.place.tags["population"] ?? "") ?? 0))
            return (match.distance?.meters ?? 0) / population.squareRoot()
        }
        return candidates.min { reach($0) < reach($1) }
    }

    /// How many of the nearest cities are weighed for ``city``, whatever the number listed.
    public static let candidateCount = 50

    /// The largest radius asked for cities (and so the farthest a point may be from its city).
    public static let maximumRadius = Distance(uncheckedMeters: 500_000)
    /// The most cities an answer lists.
    public static let maximumCityCount = 50

    /// Looks up where `coordinate` is: the region and time zone from `regions` (none without
    /// it), the country's name from `countries`, and the `cityCount` cities of `index` nearest
    /// to it within `radius`.
    /// - Throws: ``WhereaboutsError`` for a radius or count out of range; the index's errors.
    public static func find(
        at coordinate: Coordinate, within radius: Distance, cityCount: Int, index: any PlaceIndex,
        regions: RegionLocator?, countries: CountryTable
    ) async throws -> Whereabouts {
        try await find(at: coordinate, within: radius, cityCount: cityCount, regions: regions, countries: countries) {
            try await index.nearest($0, count: $1, maxDistance: $2, filter: $3)
        }
    }

    /// ``find(at:within:cityCount:index:regions:countries:)`` for an index that is not a
    /// ``PlaceQuery/PlaceIndex`` value: `nearest` answers as ``PlaceQuery/PlaceIndex/nearest(_:count:maxDistance:filter:)``.
    public static func find(
        at coordinate: Coordinate, within radius: Distance, cityCount: Int,
        regions: RegionLocator?, countries: CountryTable,
        nearest: (Coordinate, Int, Distance, PlaceFilter) async throws -> [PlaceMatch]
    ) async throws -> Whereabouts {
        guard radius.meters <= maximumRadius.meters else { throw WhereaboutsError.radiusTooLarge(radius) }
        guard (1...maximumCityCount).contains(cityCount) else { throw WhereaboutsError.cityCountOutOfRange(cityCount) }
        let region = regions?.region(at: coordinate)
        let candidates = try await nearest(coordinate, max(cityCount, candidateCount), radius, PlaceFilter(categories: [.city]))
        return Whereabouts(
            coordinate: coordinate, region: region, countryName: countries[region?.countryCode]?.name,
            timeZone: regions?.timeZone(at: coordinate, countryCode: region?.countryCode),
            cities: Array(candidates.prefix(cityCount)), city: bestCity(among: candidates))
    }
}

/// Why a whereabouts lookup was refused.
public enum WhereaboutsError: ClassifiedError, Sendable, Hashable {
    case radiusTooLarge(Distance)
    case cityCountOutOfRange(Int)

    public var description: String {
        switch self {
        case .radiusTooLarge(let radius):
            "radius \(Self.kilometres(radius)) is too large for a city lookup: give at most 500 km (a point farther from every city is near none)"
        case .cityCountOutOfRange(let count):
            "the number of cities \(count) is invalid: give 1 to \(Whereabouts.maximumCityCount)"
        }
    }

    /// `600 km`, `12.5 km`, `2.208e+50 km` (whatever was asked: a radius may be any finite size).
    static func kilometres(_ distance: Distance) -> String {
        let kilometres = distance.meters / 1000
        if kilometres < 1e9, kilometres == kilometres.rounded() { return "\(Int(kilometres)) km" }
        return "\(kilometres) km"
    }
}

extension WhereaboutsError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        .invalidInput
    }
}
