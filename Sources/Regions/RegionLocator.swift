import Foundation
import GeoCore
import PlaceModel

/// Decides the country, continent and time zone of a point, once per place at import.
///
/// - **Country**: the Natural Earth admin-0 polygon (1:10m) that holds the point. Its code is
///   `ISO_A2` when that is two letters, else `ISO_A2_EH` when that is, else none (six disputed
///   or military areas have none; Taiwan's `ISO_A2` is `CN-TW`, Kosovo's is `XK`). Overseas
///   parts drawn inside their mother country's polygon get their own ISO code, as GeoNames and
///   the providers give them: French Guiana `GF`, Guadeloupe `GP`, Martinique `MQ`, Réunion `RE`,
///   Mayotte `YT` (in France's), the Caribbean Netherlands `BQ`, Svalbard and Jan Mayen `SJ`,
///   Bouvet Island `BV` (in Norway's), Christmas Island `CX` and the Cocos Islands `CC`.
///   A point in no polygon — most often a coastal town or airport just off the 1:10m coast —
///   takes the polygon nearest within ``coastalReach`` (25 km, which covers 99 % of the cities
///   and airports that fall outside; farther out at sea, no country).
/// - **The source's own country** wins near a border: when a place's source names its country
///   (its address's country code) and the point lies in another country's polygon, or in none,
///   but within ``borderReach`` of the named country's, the place is in the named country.
///   1:10m borders are a few hundred metres coarse, and sources' points are sometimes off by
///   kilometres: the casino of Monte-Carlo falls in France's polygon, Luxembourg's airport in
///   the airports file 9 km into France, Konstanz (on the Rhine) in Switzerland's and Görlitz
///   (on the Neisse) in Poland's. A territory drawn as its own polygon keeps its code when the
///   source names its sovereign (Macau's parishes, which GeoNames files under CN, stay MO;
///   Åland stays AX). Farther than the reach, the polygon wins: a source's country is a claim,
///   the point is data.
/// - **Continent**: GeoNames' continent of that country code (`countries.csv`), one source for
///   every place; Natural Earth's own `CONTINENT` is used only for a polygon with no code.
///   So Cyprus is EU and Russia EU (as GeoNames has them), French Guiana SA.
/// - **Time zone**: the nearest GeoNames city's (`cities15000.csv`) in the same country, else
///   the nearest city's within 300 km.
///
/// Loading the shipped files takes about half a second; the value is immutable afterwards and
/// answers from any thread.
public struct RegionLocator: Sendable {
    /// How far off a coast a point still takes the nearest country: 25 km.
    public static let coastalReach = 25_000.0

    /// How far from the country its source names a place may lie and still be in it: 25 km.
    public static let borderReach = 25_000.0

    /// Territories drawn as polygons of their own within ``borderReach`` of their sovereign's,
    /// which sources sometimes file under the sovereign: the territory's code is the more exact.
    private static let territoriesBeside: [String: Set<String>] = ["CN": ["HK", "MO"], "FI": ["AX"]]

    private struct Part: Sendable {
        var countryCode: String?
        var continent: Continent?
    }

    private let grid: BoundaryGrid
    private let parts: [Part]
    private let timeZones: TimeZoneLocator?

    /// The files a data directory holds, as shipped in `geodata/`.
    public static let boundariesFile = "countries.geojson.gz"
    public static let countriesFile = "countries.csv"
    public static let citiesFile = "cities15000.csv"

    /// Loads `countries.geojson.gz`, `countries.csv` and (when present) `cities15000.csv` from
    /// `directory`.
    /// - Throws: ``RegionError`` when the boundaries or the country table cannot be read.
    public init(dataDirectory directory: String) throws {
        let cities = directory + "/" + RegionLocator.citiesFile
        try self.init(
            boundaries: directory + "/" + RegionLocator.boundariesFile,
            countries: directory + "/" + RegionLocator.countriesFile,
            cities: FileManager.default.fileExists(atPath: cities) ? cities : nil)
    }

    /// Loads a Natural Earth admin-0 GeoJSON (plain or gzip), GeoNames' country table and,
    /// optionally, GeoNames cities for time zones.
    public init(boundaries: String, countries: String, cities: String?) throws {
        guard FileManager.default.fileExists(atPath: countries) else {
            throw RegionError.unreadable(path: countries, reason: "it does not exist")
        }
        let table = try CountryTable(contentsOf: countries)
        let features = try BoundaryFile.features(at: boundaries)
        guard !features.isEmpty else { throw RegionError.malformed(path: boundaries, reason: "it has no features") }
        var polygons: [[[Double]]] = []
        var parts: [Part] = []
        for feature in features {
            let code = RegionLocator.countryCode(feature.properties)
            for polygon in feature.polygons {
                let partCode = code.map { RegionLocator.overseasCode(of: polygon, in: $0) ?? $0 }
                let continent =
                    partCode.flatMap { table[$0].flatMap { Continent(rawValue: $0.continent) } }
                    ?? feature.properties["CONTINENT"].flatMap(Continent.init(codeOrName:))
                polygons.append(polygon)
                parts.append(Part(countryCode: partCode, continent: continent))
            }
        }
        grid = BoundaryGrid(parts: polygons)
        self.parts = parts
        timeZones = try cities.map { try TimeZoneLocator(citiesFile: $0) }
    }

    /// The country and continent at `coordinate`; nil out at sea (beyond ``coastalReach``) and
    /// in the few areas no polygon covers.
    ///
    /// - Parameter coordinate: the point.
    /// - Parameter claimedCountry: the country the place's source names (ISO alpha-2), if any:
    ///   it wins over the polygons within ``borderReach`` of that country.
    public func region(at coordinate: Coordinate, claimedCountry: String? = nil) -> PlaceRegion? {
        let (x, y) = (coordinate.longitude, coordinate.latitude)
        var part = grid.part(longitude: x, latitude: y)
        if let claimed = claimedCountry?.uppercased(), claimed.utf8.count == 2 {
            let found = part.flatMap { parts[$0].countryCode }
            let foundIsMoreExact = found.map { RegionLocator.territoriesBeside[claimed]?.contains($0) == true } ?? false
            if found != claimed, !foundIsMoreExact,
                let claimedPart = grid.nearestPart(
                    longitude: x, latitude: y, within: RegionLocator.borderReach,
                    where: { parts[$0].countryCode == claimed })
            {
                part = claimedPart
            }
        }
        guard let part = part ?? grid.nearestPart(longitude: x, latitude: y, within: RegionLocator.coastalReach) else { return nil }
        let found = parts[part]
        guard found.countryCode != nil || found.continent != nil else { return nil }
        return PlaceRegion(countryCode: found.countryCode, continent: found.continent)
    }

    /// The IANA time zone at `coordinate`, from the nearest city in `countryCode` (any country's
    /// within 300 km when none is given or it has no city); nil without cities loaded.
    public func timeZone(at coordinate: Coordinate, countryCode: String?) -> String? {
        timeZones?.timeZone(at: coordinate, countryCode: countryCode)
    }

    /// Sets the place's `Place.region` (its source's country, `Address.countryCode`, counts
    /// near a border) and, when the source gave none, its `Place.timeZone`.
    public func annotate(_ place: inout Place) {
        let region = self.region(at: place.coordinate, claimedCountry: place.address?.countryCode)
        if place.region != region { place.region = region }
        if place.timeZone == nil, let zone = timeZone(at: place.coordinate, countryCode: region?.countryCode) {
            place.timeZone = zone
        }
    }

    /// The rule of the boundaries' README: `ISO_A2` when it is two letters, else `ISO_A2_EH`.
    static func countryCode(_ properties: [String: String]) -> String? {
        func twoLetters(_ value: String?) -> String? {
            guard let value, value.utf8.count == 2, value.utf8.allSatisfy({ (65...90).contains($0) }) else { return nil }
            return value
        }
        return twoLetters(properties["ISO_A2"]) ?? twoLetters(properties["ISO_A2_EH"])
    }

    /// Overseas parts drawn inside another country's polygon, found by where the part lies:
    /// (country, lon range, lat range, code of the part).
    private static let overseasParts: [(country: String, longitudes: ClosedRange<Double>, latitudes: ClosedRange<Double>, code: String)] = [
        ("FR", -55 ... -51, 2...6.5, "GF"),
        ("FR", -62 ... -60.9, 15.8...16.6, "GP"),
        ("FR", -61.3 ... -60.7, 14.3...15, "MQ"),
        ("FR", 55...56, -21.5 ... -20.8, "RE"),
        ("FR", 44.9...45.4, -13.1 ... -12.5, "YT"),
        ("NL", -69 ... -62.8, 11.9...17.8, "BQ"),
        ("NO", 9...35, 74...81.5, "SJ"),
        ("NO", -10 ... -7, 70.5...71.5, "SJ"),
        ("NO", 3...4, -55 ... -54, "BV"),
        ("AU", 105.5...105.8, -10.6 ... -10.3, "CX"),
        ("AU", 96.7...97, -12.3 ... -11.8, "CC"),
    ]

    private static func overseasCode(of polygon: [[Double]], in country: String) -> String? {
        guard let ring = polygon.first, ring.count >= 2 else { return nil }
        // The middle of the exterior ring's bounding box decides.
        var west = Double.infinity, east = -Double.infinity, south = Double.infinity, north = -Double.infinity
        var i = 0
        while i + 1 < ring.count {
            west = min(west, ring[i])
            east = max(east, ring[i])
            south = min(south, ring[i + 1])
            north = max(north, ring[i + 1])
            i += 2
        }
        let x = (west + east) / 2, y = (south + north) / 2
        return overseasParts.first { $0.country == country && $0.longitudes.contains(x) && $0.latitudes.contains(y) }?.code
    }
}

/// Why country boundaries or tables could not be loaded.
public enum RegionError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case malformed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read region data \(path): \(reason)"
        case .malformed(let path, let reason): "region data \(path) is malformed: \(reason)"
        }
    }
}

extension RegionLocator: CustomStringConvertible {
    /// A short summary. Without it, describing a value that holds a locator (a log line, a
    /// ServiceGroup naming its services) would reflect over every boundary ring: megabytes of
    /// text and seconds of CPU.
    public var description: String { "RegionLocator(\(parts.count) boundary parts)" }
}
