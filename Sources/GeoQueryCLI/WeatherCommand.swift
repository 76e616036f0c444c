import ArgumentParser
import Foundation
import GeoCore
import GeoQueryWire
import Providers

/// `geoquery weather`: current conditions and a daily forecast at a point.
struct WeatherLookup: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        commandName: "weather",
        abstract: "Current weather and a daily forecast at a point (Open-Meteo by default, no key needed).",
        discussion: """
            Example: geoquery weather --lat 43.7384 --lon 7.4246 --days 3
            Units are always metric: °C, m/s, mm, %. openweathermap needs OPENWEATHERMAP_API_KEY \
            (One Call 3.0), pirateweather needs PIRATEWEATHER_API_KEY.
            Exit codes: 0 success, 64 bad options or a missing key, 69 the provider failed.
            """)

    @Option(parsing: .unconditional, help: "Latitude, -90 to 90.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude, -180 to 180.") var lon: Double
    @Option(help: "open-meteo, openweathermap or pirateweather.") var provider: String = "open-meteo"
    @Option(help: "Days of forecast, today first (1–16; OpenWeatherMap and Pirate Weather give up to 8).") var days: Int = 7
    @Option(help: "Output format: table or json (default: table on a terminal, else json).") var format: WeatherFormat?

    func check() throws {
        _ = try parseCoordinate(latitude: lat, longitude: lon)
        _ = try providerName()
        guard (1...16).contains(days) else { throw ValidationError("--days \(days) is invalid: it must be from 1 to 16") }
    }

    func providerName() throws -> ProviderName {
        guard let name = ProviderName(rawValue: provider.lowercased()), ProviderName.weather.contains(name) else {
            throw ValidationError("--provider \(provider) is unknown; use open-meteo, openweathermap or pirateweather")
        }
        return name
    }

    func run() async throws {
        let coordinate = try parseCoordinate(latitude: lat, longitude: lon)
        let settings = ProviderSettings()
        let adapter: any WeatherProvider =
            switch try providerName() {
            case .openWeatherMap: OpenWeatherMapAdapter(settings: settings)
            case .pirateWeather: PirateWeatherAdapter(settings: settings)
            default: OpenMeteoAdapter(settings: settings)
            }
        let weather: Weather
        do { weather = try await adapter.weather(at: coordinate, days: days) } catch { throw CLIFailure(error) }
        let resolved = format ?? (isatty(STDOUT_FILENO) != 0 ? .table : .json)
        Renderer.emit(resolved == .table ? weatherTable(weather) : WeatherAnswer.json(weather).rendered(pretty: true) + "\n")
    }
}

func weatherTable(_ weather: Weather) -> String {
    var out = "\(weather.provider.rawValue) at \(weather.coordinate)"
    if let zone = weather.timeZone { out += " (\(zone))" }
    out += "\n"
    if let current = weather.current {
        out += String(format: "now: %.1f °C, %@", current.temperature, current.text)
        if let wind = current.windSpeed { out += String(format: ", wind %.1f m/s", wind) }
        if let humidity = current.humidity { out += String(format: ", humidity %.0f %%", humidity) }
        out += "\n"
    }
    let rows = weather.daily.map { day in
        [
            day.date, String(format: "%.1f", day.minimumTemperature), String(format: "%.1f", day.maximumTemperature),
            day.precipitation.map { String(format: "%.1f", $0) } ?? "", day.precipitationProbability.map { String(format: "%.0f", $0) } ?? "",
            day.text,
        ]
    }
    out += TextTable(headers: ["date", "min °C", "max °C", "precip mm", "precip %", "conditions"], rows: rows, rightAligned: [1, 2, 3, 4]).rendered
    return out + weather.attribution + "\n"
}

/// The formats a forecast is written in (a forecast is no list of places: no GeoJSON or CSV).
enum WeatherFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json
}
