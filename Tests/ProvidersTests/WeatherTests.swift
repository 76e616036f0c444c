import Foundation
import GeoCore
import ProviderTestSupport
import Testing

@testable import Providers

@Suite(.ownThreads) struct WeatherTests {
    let monaco = Coordinate(uncheckedLatitude: 43.7384, longitude: 7.4246)

    @Test func openMeteoNeedsNoKeyAndReadsColumns() async throws {
        try await withServer([.recorded("openmeteo_forecast.json")]) { server in
            let weather = try await OpenMeteoAdapter(settings: settings(server, .openMeteo)).weather(at: monaco, days: 2)
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/v1/forecast")
            #expect(sent.query["latitude"] == "43.7384" && sent.query["longitude"] == "7.4246")
            #expect(sent.query["timezone"] == "auto" && sent.query["forecast_days"] == "2" && sent.query["wind_speed_unit"] == "ms")
            #expect(sent.query["current"]?.contains("weather_code") == true && sent.query["daily"]?.contains("temperature_2m_min") == true)
            #expect(sent.headers["authorization"] == nil && sent.query["apikey"] == nil)

            #expect(weather.provider == .openMeteo && weather.timeZone == "Europe/Monaco")
            let current = try #require(weather.current)
            #expect(current.temperature == 15.3 && current.apparentTemperature == 13.9 && current.humidity == 62)
            #expect(current.windSpeed == 3.4 && current.windDirection == 250)
            #expect(current.condition == .partlyCloudy && current.text == "Partly cloudy")
            // 14:15 local at UTC+1 is 13:15 UTC.
            #expect(current.time == ISO8601DateFormatter().date(from: "2026-11-22T13:15:00Z"))
            #expect(weather.daily.map(\.date) == ["2026-11-22", "2026-11-23"], "asked for 2 days")
            #expect(weather.daily[1].condition == .rain && weather.daily[1].text == "Moderate rain")
            #expect(weather.daily[1].minimumTemperature == 9.8 && weather.daily[1].maximumTemperature == 13.4)
            #expect(weather.daily[1].precipitation == 12.6 && weather.daily[1].precipitationProbability == 90)
            #expect(weather.daily[0].sunrise == ISO8601DateFormatter().date(from: "2026-11-22T06:34:00Z"))
            #expect(weather.attribution.contains("Open-Meteo"))
        }
    }

    @Test func openMeteoErrorsCarryItsReason() async throws {
        try await withServer([.recorded("openmeteo_error_400.json", status: 400)]) { server in
            await #expect(
                throws: ProviderError.rejected(
                    provider: .openMeteo, status: 400, code: nil,
                    message: "Latitude must be in range of -90 to 90°. Given: 91.0.")
            ) {
                try await OpenMeteoAdapter(settings: settings(server, .openMeteo)).weather(at: monaco, days: 1)
            }
        }
    }

    @Test func openWeatherMapOneCall() async throws {
        try await withServer([.recorded("openweathermap_onecall.json")]) { server in
            let weather = try await OpenWeatherMapAdapter(settings: settings(server, .openWeatherMap)).weather(at: monaco, days: 7)
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/data/3.0/onecall" && sent.query["units"] == "metric" && sent.query["appid"] == "test-key-0123456789")
            #expect(sent.query["exclude"] == "minutely,hourly,alerts")
            let current = try #require(weather.current)
            #expect(current.condition == .partlyCloudy && current.text == "Scattered clouds" && current.temperature == 15.3)
            #expect(current.time == Date(timeIntervalSince1970: 1_795_356_900))
            #expect(weather.daily.count == 2)
            #expect(weather.daily[1].condition == .rain && weather.daily[1].precipitation == 12.6)
            #expect(weather.daily[1].precipitationProbability == 90)
            #expect(weather.daily[0].date == "2026-11-22" && weather.daily[1].date == "2026-11-23")
        }
    }

    @Test func openWeatherMapRejectionIsTypedAndKeyFree() async throws {
        try await withServer([.recorded("openweathermap_error_401.json", status: 401)]) { server in
            do {
                _ = try await OpenWeatherMapAdapter(settings: settings(server, .openWeatherMap)).weather(at: monaco, days: 1)
                Issue.record("accepted")
            } catch let error as ProviderError {
                guard case .rejected(.openWeatherMap, 401, "401", let message) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(message.hasPrefix("Invalid API key"))
                #expect(!error.description.contains("test-key-0123456789"))
            }
        }
    }

    @Test func pirateWeatherPutsTheKeyInThePathAndConvertsUnits() async throws {
        try await withServer([.recorded("pirateweather_forecast.json")]) { server in
            let weather = try await PirateWeatherAdapter(settings: settings(server, .pirateWeather)).weather(at: monaco, days: 8)
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/forecast/test-key-0123456789/43.7384,7.4246")
            #expect(sent.query["units"] == "si")
            let current = try #require(weather.current)
            #expect(current.humidity == 62, "0–1 becomes percent")
            #expect(current.condition == .partlyCloudy && current.text == "Partly Cloudy")
            #expect(weather.daily.count == 2)
            #expect(abs((weather.daily[1].precipitation ?? 0) - 12.6) < 1e-9, "SI accumulation is in cm")
            #expect(weather.daily[1].precipitationProbability == 90 && weather.daily[1].condition == .rain)
            #expect(weather.daily[1].date == "2026-11-23")
        }
    }

    @Test func pirateWeatherFailuresNeverShowThePathKey() async throws {
        let key = "pw-secret-777"
        try await withServer([.json(#"{"message":"Forbidden"}"#, status: 403)]) { server in
            do {
                _ = try await PirateWeatherAdapter(settings: settings(server, .pirateWeather, key: key)).weather(at: monaco, days: 1)
                Issue.record("accepted")
            } catch let error as ProviderError {
                #expect(!error.description.contains(key))
                #expect(error.description.contains("Forbidden"))
            }
        }
    }

    @Test func conditionTables() {
        #expect(WeatherCondition.wmo(0).0 == .clear)
        #expect(WeatherCondition.wmo(45).0 == .fog && WeatherCondition.wmo(48).1 == "Depositing rime fog")
        #expect(WeatherCondition.wmo(57).0 == .freezingDrizzle && WeatherCondition.wmo(67).0 == .freezingRain)
        #expect(WeatherCondition.wmo(77).0 == .snowGrains && WeatherCondition.wmo(86).0 == .snowShowers)
        #expect(WeatherCondition.wmo(99).0 == .thunderstormWithHail && WeatherCondition.wmo(42).0 == .unknown)
        #expect(WeatherCondition.openWeatherMap(211) == .thunderstorm && WeatherCondition.openWeatherMap(511) == .freezingRain)
        #expect(WeatherCondition.openWeatherMap(521) == .rainShowers && WeatherCondition.openWeatherMap(612) == .sleet)
        #expect(WeatherCondition.openWeatherMap(741) == .fog && WeatherCondition.openWeatherMap(804) == .overcast)
        #expect(WeatherCondition.darkSkyIcon("clear-night") == .clear && WeatherCondition.darkSkyIcon("sleet") == .sleet)
        #expect(WeatherCondition.darkSkyIcon("tornado") == .unknown)
    }
}
