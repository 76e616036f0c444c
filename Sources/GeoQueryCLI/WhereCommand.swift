import ArgumentParser
import Discovery
import Foundation
import GeoCore
import GeoQueryWire
import PlaceQuery
import Regions

/// `geoquery where --lat … --lon …`: the country, time zone and cities around a point.
struct Where: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        abstract: "Where a point is: its country, continent and time zone, the city it is near, and the cities around it.")

    @Option(parsing: .unconditional, help: "Latitude, -90 to 90.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude, -180 to 180.") var lon: Double
    @Option(parsing: .unconditional, help: "How far to look for cities, at most 500km (default 50km).") var radius: String = "50km"
    @Option(help: "How many cities to list, 1 to 50.") var limit: Int = 5
    @Option(
        name: .customLong("data-dir"),
        help: "Folder with countries.geojson.gz, countries.csv and cities15000.csv (GEOQUERY_DATA_DIR; default geodata).")
    var dataDirectory: String?
    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func check() throws {
        _ = try parseCoordinate(latitude: lat, longitude: lon)
        let distance = try parseDistance(radius, option: "--radius")
        guard distance.meters <= Whereabouts.maximumRadius.meters else {
            throw ValidationError("--radius '\(radius)' is invalid: give at most 500km")
        }
        guard (1...Whereabouts.maximumCityCount).contains(limit) else {
            throw ValidationError("--limit \(limit) is invalid: it must be from 1 to \(Whereabouts.maximumCityCount)")
        }
    }

    func run() async throws {
        let center = try parseCoordinate(latitude: lat, longitude: lon)
        let distance = try parseDistance(radius, option: "--radius")
        let directory = resolvedDataDirectory(dataDirectory)
        let (regions, countries) = try reportingFailures {
            (try RegionLocator(dataDirectory: directory), try CountryTable(contentsOf: directory + "/" + RegionLocator.countriesFile))
        }
        let index = try await index.open()
        let whereabouts = try await reportingFailures {
            try await Whereabouts.find(at: center, within: distance, cityCount: limit, regions: regions, countries: countries) {
                try await index.nearest($0, count: $1, maxDistance: $2, filter: $3)
            }
        }
        switch output.resolved {
        case .json, .geojson:
            var json = JSONWriter(pretty: true, capacity: 4_096)
            WhereaboutsAnswer.write(whereabouts, radius: distance, limit: limit, countries: countries, to: &json)
            Renderer.emit(json.text + "\n")
        case .csv:
            let header = "id,name,lat,lon,country_code,population,timezone,distance_m,best\n"
            Renderer.emit(
                header
                    + whereabouts.cities.map { match in
                        let place = match.place
                        return [
                            place.id.rawValue, PlaceAnswer.csvField(place.name), String(place.coordinate.latitude),
                            String(place.coordinate.longitude),
                            place.address?.countryCode ?? "", place.tags["population"] ?? "", place.tags["timezone"] ?? "",
                            String(format: "%.3f", match.distance?.meters ?? 0), match.place.id == whereabouts.city?.place.id ? "true" : "false",
                        ]
                        .joined(separator: ",")
                    }.joined(separator: "\n") + (whereabouts.cities.isEmpty ? "" : "\n"))
        case .table:
            Renderer.emit(Self.summary(whereabouts) + "\n")
            guard !whereabouts.cities.isEmpty else { return }
            let rows = whereabouts.cities.map { match in
                [
                    match.place.name, match.place.address?.countryCode ?? "", match.place.tags["population"] ?? "",
                    Self.kilometres(match),
                ]
            }
            Renderer.emit(TextTable(headers: ["city", "country", "population", "distance"], rows: rows, rightAligned: [2, 3]).rendered)
        }
    }

    /// `4.0 km`: a city's distance for people.
    static func kilometres(_ match: PlaceMatch) -> String {
        String(format: "%.1f km", (match.distance?.meters ?? 0) / 1000)
    }

    /// `Near Paris (4.3 km) · France (FR), Europe · Europe/Paris`; at sea, what is known.
    static func summary(_ whereabouts: Whereabouts) -> String {
        var parts: [String] = []
        if let city = whereabouts.city {
            parts.append("Near \(city.place.name) (\(kilometres(city)))")
        } else {
            parts.append("No city in reach")
        }
        if let code = whereabouts.region?.countryCode {
            parts.append("\(whereabouts.countryName ?? code) (\(code))" + (whereabouts.region?.continent.map { ", \($0.name)" } ?? ""))
        } else if let continent = whereabouts.region?.continent {
            parts.append(continent.name)
        } else {
            parts.append("in no country")
        }
        if let zone = whereabouts.timeZone { parts.append(zone) }
        return parts.joined(separator: " · ")
    }
}
