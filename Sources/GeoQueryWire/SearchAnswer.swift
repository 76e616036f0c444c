import Foundation
import GeoCore
import PlaceModel
import Providers

/// The answer of a federated search: the `near` contract plus, per place, `sources`,
/// `field_sources`, `open_now`, `business_status`, `provider_urls`, and per source
/// `"providers":{"yelp":{"status":"ok","count":20,…}}`.
public struct SearchAnswer: Sendable {
    public var query: QueryDescription
    public var answer: FederatedAnswer

    public init(query: QueryDescription, answer: FederatedAnswer) {
        self.query = query
        self.answer = answer
    }

    public func json(pretty: Bool = false) -> [UInt8] {
        var json = JSONWriter(pretty: pretty)
        json.beginObject()
        json.key("query")
        query.write(to: &json)
        json.key("count")
        json.int(answer.places.count)
        json.key("places")
        json.beginArray()
        for merged in answer.places { Self.write(merged, to: &json, includeCoordinates: true) }
        json.endArray()
        json.key("next_cursor")
        json.null()
        json.key("providers")
        Self.providers(answer.statuses).write(to: &json)
        json.endObject()
        return json.bytes
    }

    public func geoJSON(pretty: Bool = false) -> [UInt8] {
        var json = JSONWriter(pretty: pretty)
        json.beginObject()
        json.key("type")
        json.string("FeatureCollection")
        json.key("features")
        json.beginArray()
        for merged in answer.places {
            let coordinate = merged.place.coordinate
            json.pointFeature(id: merged.place.id.rawValue, longitude: coordinate.longitude, latitude: coordinate.latitude) { json in
                Self.write(merged, to: &json, includeCoordinates: false)
            }
        }
        json.endArray()
        json.key("query")
        query.write(to: &json)
        json.key("providers")
        Self.providers(answer.statuses).write(to: &json)
        json.endObject()
        return json.bytes
    }

    static func write(_ merged: MergedPlace, to json: inout JSONWriter, includeCoordinates: Bool) {
        PlaceJSON.write(merged.place, distance: merged.distance, to: &json, includeCoordinates: includeCoordinates) { json in
            json.key("sources")
            json.beginArray()
            for id in merged.sourceIDs { json.string(id.rawValue) }
            json.endArray()
            json.key("field_sources")
            json.beginObject()
            for key in merged.fieldSources.keys.sorted() {
                json.key(dynamic: key)
                json.string(merged.fieldSources[key]?.rawValue)
            }
            json.endObject()
            json.key("open_now")
            if let open = merged.isOpenNow { json.bool(open) } else { json.null() }
            json.key("business_status")
            json.string(merged.businessStatus.rawValue)
            json.member("time_zone", merged.timeZone)
            if !merged.providerURLs.isEmpty {
                json.key("provider_urls")
                json.beginObject()
                for provider in merged.providerURLs.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                    json.key(dynamic: provider.rawValue)
                    json.string(merged.providerURLs[provider])
                }
                json.endObject()
            }
        }
    }

    /// Each source's status: `status`, `count`, `radius_clamped_to_m`, `requests`, `cached`,
    /// `seconds`, `error`.
    public static func providers(_ statuses: [ProviderStatus]) -> OrderedJSON {
        .object(
            statuses.map { status in
                var members: [(String, OrderedJSON)] = [("status", .string(status.state.rawValue)), ("count", .int(status.count))]
                if let clamped = status.clampedRadius { members.append(("radius_clamped_to_m", .double(clamped.meters))) }
                members.append(("requests", .int(status.requests)))
                if status.servedFromCache { members.append(("cached", .bool(true))) }
                members.append(("seconds", .double((status.seconds * 1000).rounded() / 1000)))
                if let error = status.error { members.append(("error", .string(error.description))) }
                return (status.provider.rawValue, .object(members))
            })
    }
}

/// The weather answer: provider, position, time zone, units, `current`, `daily`, attribution.
public enum WeatherAnswer {
    private static func number(_ value: Double?) -> OrderedJSON { value.map { .double(($0 * 100).rounded() / 100) } ?? .null }

    public static func json(_ weather: Weather) -> OrderedJSON {
        let units = Weather.units
        var members: [(String, OrderedJSON)] = [
            ("provider", .string(weather.provider.rawValue)),
            ("lat", .double(weather.coordinate.latitude)), ("lon", .double(weather.coordinate.longitude)),
            ("time_zone", .optional(weather.timeZone)),
            (
                "units",
                .object([
                    ("temperature", .string(units.temperature)), ("wind_speed", .string(units.windSpeed)),
                    ("wind_direction", .string(units.windDirection)), ("precipitation", .string(units.precipitation)),
                    ("humidity", .string(units.humidity)), ("precipitation_probability", .string("%")),
                ])
            ),
        ]
        if let current = weather.current {
            members.append(
                (
                    "current",
                    .object([
                        ("time", .string(Timestamp.iso8601(current.time))), ("temperature", number(current.temperature)),
                        ("apparent_temperature", number(current.apparentTemperature)), ("humidity", number(current.humidity)),
                        ("wind_speed", number(current.windSpeed)), ("wind_direction", number(current.windDirection)),
                        ("precipitation", number(current.precipitation)), ("condition", .string(current.condition.rawValue)),
                        ("text", .string(current.text)),
                    ])
                ))
        } else {
            members.append(("current", .null))
        }
        members.append(
            (
                "daily",
                .array(
                    weather.daily.map { day in
                        .object([
                            ("date", .string(day.date)), ("min", number(day.minimumTemperature)), ("max", number(day.maximumTemperature)),
                            ("precipitation", number(day.precipitation)), ("precipitation_probability", number(day.precipitationProbability)),
                            ("condition", .string(day.condition.rawValue)), ("text", .string(day.text)),
                            ("sunrise", day.sunrise.map { .string(Timestamp.iso8601($0)) } ?? .null),
                            ("sunset", day.sunset.map { .string(Timestamp.iso8601($0)) } ?? .null),
                        ])
                    })
            ))
        members.append(("attribution", .string(weather.attribution)))
        return .object(members)
    }
}
