import Foundation
import GeoCore

/// Current conditions and a daily forecast for one point, in metric units whatever the
/// provider: °C, m/s, mm, percent.
public struct Weather: Sendable, Hashable {
    public var provider: ProviderName
    public var coordinate: Coordinate
    /// IANA time zone of the point, when the provider says.
    public var timeZone: String?
    public var current: CurrentWeather?
    /// One entry per local day, today first.
    public var daily: [DailyForecast]
    /// What must be shown with the data (Open-Meteo's CC BY 4.0 notice, …).
    public var attribution: String
    public var fetchedAt: Date

    /// The units every value is in.
    public static let units = WeatherUnits()
}

/// The units of ``Weather``'s values, stated so that answers say them.
public struct WeatherUnits: Sendable, Hashable {
    public let temperature = "°C"
    public let windSpeed = "m/s"
    public let precipitation = "mm"
    public let humidity = "%"
    public let windDirection = "°"
}

/// Conditions now.
public struct CurrentWeather: Sendable, Hashable {
    public var time: Date
    public var temperature: Double
    public var apparentTemperature: Double?
    public var humidity: Double?
    public var windSpeed: Double?
    public var windDirection: Double?
    public var precipitation: Double?
    public var condition: WeatherCondition
    /// The provider's own words, or the condition's description.
    public var text: String
}

/// One day's forecast.
public struct DailyForecast: Sendable, Hashable {
    /// The local date, `YYYY-MM-DD`.
    public var date: String
    public var minimumTemperature: Double
    public var maximumTemperature: Double
    /// Total for the day, when given.
    public var precipitation: Double?
    /// 0–100.
    public var precipitationProbability: Double?
    public var condition: WeatherCondition
    public var text: String
    public var sunrise: Date?
    public var sunset: Date?
}

/// One shared set of conditions, from WMO codes (Open-Meteo), OpenWeatherMap ids and Dark Sky
/// icons.
public enum WeatherCondition: String, Sendable, Hashable, CaseIterable, Codable {
    case clear, mainlyClear = "mainly_clear", partlyCloudy = "partly_cloudy", overcast, fog
    case drizzle, freezingDrizzle = "freezing_drizzle", rain, freezingRain = "freezing_rain", sleet
    case snow, snowGrains = "snow_grains", rainShowers = "rain_showers", snowShowers = "snow_showers"
    case thunderstorm, thunderstormWithHail = "thunderstorm_with_hail", wind, unknown

    /// English words for the condition.
    public var text: String {
        switch self {
        case .clear: "Clear sky"
        case .mainlyClear: "Mainly clear"
        case .partlyCloudy: "Partly cloudy"
        case .overcast: "Overcast"
        case .fog: "Fog"
        case .drizzle: "Drizzle"
        case .freezingDrizzle: "Freezing drizzle"
        case .rain: "Rain"
        case .freezingRain: "Freezing rain"
        case .sleet: "Sleet"
        case .snow: "Snow"
        case .snowGrains: "Snow grains"
        case .rainShowers: "Rain showers"
        case .snowShowers: "Snow showers"
        case .thunderstorm: "Thunderstorm"
        case .thunderstormWithHail: "Thunderstorm with hail"
        case .wind: "Windy"
        case .unknown: "Unknown"
        }
    }

    /// A WMO weather interpretation code (WW, as Open-Meteo sends) → condition and its words,
    /// with the intensity the code carries (providers.md §5.1).
    public static func wmo(_ code: Int) -> (WeatherCondition, String) {
        switch code {
        case 0: return (.clear, "Clear sky")
        case 1: return (.mainlyClear, "Mainly clear")
        case 2: return (.partlyCloudy, "Partly cloudy")
        case 3: return (.overcast, "Overcast")
        case 45: return (.fog, "Fog")
        case 48: return (.fog, "Depositing rime fog")
        case 51: return (.drizzle, "Light drizzle")
        case 53: return (.drizzle, "Moderate drizzle")
        case 55: return (.drizzle, "Dense drizzle")
        case 56: return (.freezingDrizzle, "Light freezing drizzle")
        case 57: return (.freezingDrizzle, "Dense freezing drizzle")
        case 61: return (.rain, "Slight rain")
        case 63: return (.rain, "Moderate rain")
        case 65: return (.rain, "Heavy rain")
        case 66: return (.freezingRain, "Light freezing rain")
        case 67: return (.freezingRain, "Heavy freezing rain")
        case 71: return (.snow, "Slight snowfall")
        case 73: return (.snow, "Moderate snowfall")
        case 75: return (.snow, "Heavy snowfall")
        case 77: return (.snowGrains, "Snow grains")
        case 80: return (.rainShowers, "Slight rain showers")
        case 81: return (.rainShowers, "Moderate rain showers")
        case 82: return (.rainShowers, "Violent rain showers")
        case 85: return (.snowShowers, "Slight snow showers")
        case 86: return (.snowShowers, "Heavy snow showers")
        case 95: return (.thunderstorm, "Thunderstorm")
        case 96: return (.thunderstormWithHail, "Thunderstorm with slight hail")
        case 99: return (.thunderstormWithHail, "Thunderstorm with heavy hail")
        default: return (.unknown, "Unknown weather code \(code)")
        }
    }

    /// An OpenWeatherMap condition id (2xx thunder … 800 clear, 80x clouds).
    public static func openWeatherMap(_ id: Int) -> WeatherCondition {
        switch id {
        case 200..<300: return .thunderstorm
        case 300..<400: return .drizzle
        case 511: return .freezingRain
        case 500..<520: return .rain
        case 520..<600: return .rainShowers
        case 611...613: return .sleet
        case 620..<630: return .snowShowers
        case 600..<700: return .snow
        case 701, 711, 721, 741: return .fog
        case 700..<800: return id == 771 || id == 781 ? .wind : .fog
        case 800: return .clear
        case 801: return .mainlyClear
        case 802: return .partlyCloudy
        case 803, 804: return .overcast
        default: return .unknown
        }
    }

    /// A Dark Sky / Pirate Weather `icon`.
    public static func darkSkyIcon(_ icon: String) -> WeatherCondition {
        switch icon {
        case "clear-day", "clear-night": return .clear
        case "partly-cloudy-day", "partly-cloudy-night": return .partlyCloudy
        case "cloudy": return .overcast
        case "fog", "haze", "smoke": return .fog
        case "rain", "drizzle", "showers": return .rain
        case "sleet", "mixed": return .sleet
        case "snow", "flurries": return .snow
        case "thunderstorm": return .thunderstorm
        case "hail": return .thunderstormWithHail
        case "wind", "breezy", "dangerous-wind": return .wind
        default: return .unknown
        }
    }
}

/// A source of weather for a point.
public protocol WeatherProvider: Sendable {
    var name: ProviderName { get }
    /// Current conditions and `days` daily forecasts (1–16, today first).
    /// - Throws: ``ProviderError``.
    func weather(at coordinate: Coordinate, days: Int) async throws -> Weather
}
