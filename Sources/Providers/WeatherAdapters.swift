import Foundation
import GeoCore

/// Open-Meteo `/v1/forecast`: no key, WMO codes, columnar arrays in local time. The default
/// weather provider (providers.md §5.1). Data CC BY 4.0; the free API is for non-commercial use.
public struct OpenMeteoAdapter: WeatherProvider {
    public let name = ProviderName.openMeteo
    public static let attribution = "Weather data by Open-Meteo.com (CC BY 4.0)"
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    public func weather(at coordinate: Coordinate, days: Int) async throws -> Weather {
        let base = try settings.baseURL(.openMeteo, default: "https://api.open-meteo.com")
        let url = try endpoint(
            base, "/v1/forecast",
            query: [
                ("latitude", String(coordinate.latitude)), ("longitude", String(coordinate.longitude)),
                ("current", "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation,weather_code,wind_speed_10m,wind_direction_10m"),
                ("daily", "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,sunrise,sunset"),
                ("timezone", "auto"), ("forecast_days", String(min(16, max(1, days)))), ("wind_speed_unit", "ms"),
            ])
        let client = settings.client(.openMeteo, key: "")
        let (json, _) = try await client.json(ProviderRequest(url: url))
        let clock = LocalClock(utcOffsetSeconds: json["utc_offset_seconds"]?.intValue ?? 0)
        func localTime(_ text: String?) -> Date? { text.flatMap(clock.date) }
        var current: CurrentWeather?
        if let block = json["current"], let temperature = block["temperature_2m"]?.number {
            let (condition, text) = block["weather_code"]?.intValue.map(WeatherCondition.wmo) ?? (.unknown, "Unknown")
            current = CurrentWeather(
                time: localTime(block["time"]?.text) ?? settings.now(), temperature: temperature,
                apparentTemperature: block["apparent_temperature"]?.number,
                humidity: block["relative_humidity_2m"]?.number, windSpeed: block["wind_speed_10m"]?.number,
                windDirection: block["wind_direction_10m"]?.number, precipitation: block["precipitation"]?.number,
                condition: condition, text: text)
        }
        let daily = json["daily"]
        let dates = daily?["time"]?.elements.compactMap(\.text) ?? []
        func column(_ name: String) -> [JSONValue] { daily?[name]?.elements ?? [] }
        func value(_ name: String, _ index: Int) -> JSONValue? {
            let values = column(name)
            return index < values.count ? values[index] : nil
        }
        var forecast: [DailyForecast] = []
        for (index, date) in dates.enumerated() {
            guard let low = value("temperature_2m_min", index)?.number, let high = value("temperature_2m_max", index)?.number else { continue }
            let (condition, text) = value("weather_code", index)?.intValue.map(WeatherCondition.wmo) ?? (.unknown, "Unknown")
            forecast.append(
                DailyForecast(
                    date: date, minimumTemperature: low, maximumTemperature: high,
                    precipitation: value("precipitation_sum", index)?.number,
                    precipitationProbability: value("precipitation_probability_max", index)?.number,
                    condition: condition, text: text, sunrise: localTime(value("sunrise", index)?.text),
                    sunset: localTime(value("sunset", index)?.text)))
        }
        return try Weather.assembled(
            .openMeteo, at: coordinate, timeZone: json["timezone"]?.text, current: current, daily: forecast,
            days: days, attribution: Self.attribution, fetchedAt: settings.now())
    }
}

/// OpenWeatherMap One Call 3.0 (`/data/3.0/onecall`, `units=metric`): current and 8 daily
/// forecasts in one call. Needs `OPENWEATHERMAP_API_KEY` (providers.md §5.2).
public struct OpenWeatherMapAdapter: WeatherProvider {
    public let name = ProviderName.openWeatherMap
    public static let attribution = "Weather data by OpenWeather (openweathermap.org)"
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    public func weather(at coordinate: Coordinate, days: Int) async throws -> Weather {
        let key = try settings.environment.key(for: .openWeatherMap)
        let base = try settings.baseURL(.openWeatherMap, default: "https://api.openweathermap.org")
        let url = try endpoint(
            base, "/data/3.0/onecall",
            query: [
                ("lat", String(coordinate.latitude)), ("lon", String(coordinate.longitude)),
                ("exclude", "minutely,hourly,alerts"), ("units", "metric"), ("appid", key),
            ])
        let (json, _) = try await settings.client(.openWeatherMap, key: key).json(ProviderRequest(url: url))
        let clock = LocalClock(utcOffsetSeconds: json["timezone_offset"]?.intValue ?? 0)
        func condition(_ block: JSONValue?) -> (WeatherCondition, String) {
            let first = block?["weather"]?.elements.first
            let condition = first?["id"]?.intValue.map(WeatherCondition.openWeatherMap) ?? .unknown
            return (condition, first?["description"]?.text.map(capitalisedFirst) ?? condition.text)
        }
        var current: CurrentWeather?
        if let block = json["current"], let temperature = block["temp"]?.number {
            let (kind, text) = condition(block)
            current = CurrentWeather(
                time: block["dt"]?.number.map(Date.init(timeIntervalSince1970:)) ?? settings.now(),
                temperature: temperature, apparentTemperature: block["feels_like"]?.number,
                humidity: block["humidity"]?.number, windSpeed: block["wind_speed"]?.number,
                windDirection: block["wind_deg"]?.number,
                precipitation: block["rain"]?["1h"]?.number ?? block["snow"]?["1h"]?.number,
                condition: kind, text: text)
        }
        let daily: [DailyForecast] = (json["daily"]?.elements ?? []).compactMap { day in
            guard let time = day["dt"]?.number, let low = day["temp"]?["min"]?.number, let high = day["temp"]?["max"]?.number else { return nil }
            let (kind, text) = condition(day)
            let rain = day["rain"]?.number, snow = day["snow"]?.number
            return DailyForecast(
                date: clock.calendarDate(time), minimumTemperature: low,
                maximumTemperature: high, precipitation: rain == nil && snow == nil ? nil : (rain ?? 0) + (snow ?? 0),
                precipitationProbability: day["pop"]?.number.map { $0 * 100 }, condition: kind, text: text,
                sunrise: day["sunrise"]?.number.map(Date.init(timeIntervalSince1970:)),
                sunset: day["sunset"]?.number.map(Date.init(timeIntervalSince1970:)))
        }
        return try Weather.assembled(
            .openWeatherMap, at: coordinate, timeZone: json["timezone"]?.text, current: current, daily: daily,
            days: days, attribution: Self.attribution, fetchedAt: settings.now())
    }
}

/// Pirate Weather (Dark Sky–compatible) `/forecast/{key}/{lat},{lon}?units=si`. Needs
/// `PIRATEWEATHER_API_KEY` (providers.md §5.3). The key sits in the path, so it is redacted
/// from every message like any other.
public struct PirateWeatherAdapter: WeatherProvider {
    public let name = ProviderName.pirateWeather
    public static let attribution = "Weather data by Pirate Weather (pirateweather.net)"
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    public func weather(at coordinate: Coordinate, days: Int) async throws -> Weather {
        let key = try settings.environment.key(for: .pirateWeather)
        let base = try settings.baseURL(.pirateWeather, default: "https://api.pirateweather.net")
        let encodedKey = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        let url = try endpoint(
            base, "/forecast/\(encodedKey)/\(coordinate.latitude),\(coordinate.longitude)",
            query: [("units", "si"), ("exclude", "minutely,hourly,alerts")])
        let (json, _) = try await settings.client(.pirateWeather, key: key).json(ProviderRequest(url: url))
        let clock = LocalClock(utcOffsetSeconds: Int((json["offset"]?.number ?? 0) * 3600))
        var current: CurrentWeather?
        if let block = json["currently"], let temperature = block["temperature"]?.number {
            let condition = block["icon"]?.text.map(WeatherCondition.darkSkyIcon) ?? .unknown
            current = CurrentWeather(
                time: block["time"]?.number.map(Date.init(timeIntervalSince1970:)) ?? settings.now(),
                temperature: temperature, apparentTemperature: block["apparentTemperature"]?.number,
                humidity: block["humidity"]?.number.map { $0 * 100 }, windSpeed: block["windSpeed"]?.number,
                windDirection: block["windBearing"]?.number, precipitation: block["precipIntensity"]?.number,
                condition: condition, text: block["summary"]?.text ?? condition.text)
        }
        let daily: [DailyForecast] = (json["daily"]?["data"]?.elements ?? []).compactMap { day in
            guard let time = day["time"]?.number,
                let low = day["temperatureMin"]?.number ?? day["temperatureLow"]?.number,
                let high = day["temperatureMax"]?.number ?? day["temperatureHigh"]?.number
            else { return nil }
            let condition = day["icon"]?.text.map(WeatherCondition.darkSkyIcon) ?? .unknown
            // SI answers give the day's accumulation in centimetres.
            return DailyForecast(
                date: clock.calendarDate(time), minimumTemperature: low,
                maximumTemperature: high, precipitation: day["precipAccumulation"]?.number.map { $0 * 10 },
                precipitationProbability: day["precipProbability"]?.number.map { $0 * 100 },
                condition: condition, text: day["summary"]?.text ?? condition.text,
                sunrise: day["sunriseTime"]?.number.map(Date.init(timeIntervalSince1970:)),
                sunset: day["sunsetTime"]?.number.map(Date.init(timeIntervalSince1970:)))
        }
        return try Weather.assembled(
            .pirateWeather, at: coordinate, timeZone: json["timezone"]?.text, current: current, daily: daily,
            days: days, attribution: Self.attribution, fetchedAt: settings.now())
    }
}

extension Weather {
    /// The answer of a weather adapter: the first `days` forecasts; an answer with neither
    /// current conditions nor a forecast is not the provider's documented JSON.
    static func assembled(
        _ provider: ProviderName, at coordinate: Coordinate, timeZone: String?, current: CurrentWeather?,
        daily: [DailyForecast], days: Int, attribution: String, fetchedAt: Date
    ) throws -> Weather {
        if current == nil && daily.isEmpty {
            throw ProviderError.malformedResponse(provider: provider, reason: "neither current conditions nor a daily forecast in the answer")
        }
        return Weather(
            provider: provider, coordinate: coordinate, timeZone: timeZone, current: current,
            daily: Array(daily.prefix(days)), attribution: attribution, fetchedAt: fetchedAt)
    }
}

/// Local times of one answer, at the place's UTC offset: one calendar for every time in it.
struct LocalClock {
    private let calendar: Calendar

    init(utcOffsetSeconds: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: utcOffsetSeconds) ?? TimeZone(secondsFromGMT: 0)!
        self.calendar = calendar
    }

    /// A local ISO time without offset: `2026-11-22T14:15`, `2026-11-22T14:15:30` or `2026-11-22`.
    func date(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).map { Int($0) }
        guard [3, 5, 6].contains(parts.count), parts.allSatisfy({ $0 != nil }) else { return nil }
        let values = parts.map { $0! } + [0, 0, 0]
        guard (1...12).contains(values[1]), (1...31).contains(values[2]), (0...23).contains(values[3]),
            (0...59).contains(values[4]), (0...60).contains(values[5])
        else { return nil }
        return calendar.date(
            from: DateComponents(
                year: values[0], month: values[1], day: values[2],
                hour: values[3], minute: values[4], second: values[5]))
    }

    /// The local calendar date, `YYYY-MM-DD`, of a Unix time.
    func calendarDate(_ unixTime: Double) -> String {
        let day = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: unixTime))
        return String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
    }
}

/// `scattered clouds` → `Scattered clouds`.
func capitalisedFirst(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
