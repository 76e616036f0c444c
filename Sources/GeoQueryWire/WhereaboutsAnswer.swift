import Discovery
import GeoCore
import PlaceModel
import PlaceQuery
import Regions

/// A city as `GET /v1/cities`, `GET /v1/where` and `geoquery where` answer it.
public enum CityJSON {
    /// `{"id", "name", "lat", "lon", "country_code", "country_name", "continent", "region",
    /// "population", "time_zone"}`, and `distance_m` when a distance is given. The country is the
    /// one the place was placed in at import (its region), else the one its source names; its
    /// name and continent come from `countries`. The time zone is the place's, else its
    /// `timezone` tag. (A city from OpenStreetMap names neither in its tags.)
    public static func write(_ place: Place, distance: Distance? = nil, countries: CountryTable, to json: inout JSONWriter) {
        let code = place.region?.countryCode ?? place.address?.countryCode?.uppercased()
        let country = countries[code]
        json.beginObject()
        json.key("id")
        json.string(place.id.rawValue)
        json.key("name")
        json.string(place.name)
        json.key("lat")
        json.double(place.coordinate.latitude)
        json.key("lon")
        json.double(place.coordinate.longitude)
        json.key("country_code")
        json.string(code)
        json.key("country_name")
        json.string(country?.name)
        json.key("continent")
        json.string(country?.continent ?? place.region?.continent?.rawValue)
        json.key("region")
        json.string(place.address?.region)
        json.key("population")
        if let population = place.tags["population"].flatMap({ Int($0) }) { json.int(population) } else { json.null() }
        json.key("time_zone")
        json.string(place.timeZone ?? place.tags["timezone"])
        if let distance {
            json.key("distance_m")
            json.meters(distance.meters)
        }
        json.endObject()
    }
}

/// The wire form of ``Discovery/Whereabouts`` (`GET /v1/where`, `geoquery where`).
public enum WhereaboutsAnswer {
    /// `{"query": {"kind": "where", "lat", "lon", "radius_m", "limit"}, "country_code",
    /// "country_name", "continent", "time_zone", "city", "cities"}`: `city` is the one the point is
    /// best described as near (null when none is in reach), `cities` those in reach nearest
    /// first, each with `distance_m`.
    public static func write(
        _ whereabouts: Whereabouts, radius: Distance, limit: Int, countries: CountryTable,
        to json: inout JSONWriter
    ) {
        json.beginObject()
        json.key("query")
        json.beginObject()
        json.key("kind")
        json.string("where")
        json.key("lat")
        json.double(whereabouts.coordinate.latitude)
        json.key("lon")
        json.double(whereabouts.coordinate.longitude)
        json.key("radius_m")
        json.meters(radius.meters)
        json.key("limit")
        json.int(limit)
        json.endObject()
        json.key("country_code")
        json.string(whereabouts.region?.countryCode)
        json.key("country_name")
        json.string(whereabouts.countryName)
        json.key("continent")
        json.string(whereabouts.region?.continent?.rawValue)
        json.key("time_zone")
        json.string(whereabouts.timeZone)
        json.key("city")
        if let city = whereabouts.city {
            CityJSON.write(city.place, distance: city.distance, countries: countries, to: &json)
        } else {
            json.null()
        }
        json.key("cities")
        json.beginArray()
        for match in whereabouts.cities { CityJSON.write(match.place, distance: match.distance, countries: countries, to: &json) }
        json.endArray()
        json.endObject()
    }
}
