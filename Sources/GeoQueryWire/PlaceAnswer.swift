import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// What the query was, echoed in every answer (`query`).
public struct QueryDescription: Sendable {
    public var kind: String
    public var lat: Double?
    public var lon: Double?
    public var radiusMeters: Double?
    public var bbox: [Double]?
    public var id: String?
    public var filter: PlaceFilter
    public var limit: Int?
    /// The input line of a batch query.
    public var line: Int?
    /// Extra members a face adds after the standard ones (the server's `radius_capped`, say).
    public var extra: [(String, OrderedJSON)]

    public init(
        kind: String, lat: Double? = nil, lon: Double? = nil, radiusMeters: Double? = nil, bbox: [Double]? = nil,
        id: String? = nil, filter: PlaceFilter = .none, limit: Int? = nil, line: Int? = nil,
        extra: [(String, OrderedJSON)] = []
    ) {
        self.kind = kind
        self.lat = lat
        self.lon = lon
        self.radiusMeters = radiusMeters
        self.bbox = bbox
        self.id = id
        self.filter = filter
        self.limit = limit
        self.line = line
        self.extra = extra
    }

    /// Writes the `query` object.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.key("kind")
        json.string(kind)
        if let line {
            json.key("line")
            json.int(line)
        }
        json.member("id", id)
        if let lat {
            json.key("lat")
            json.double(lat)
        }
        if let lon {
            json.key("lon")
            json.double(lon)
        }
        if let radiusMeters {
            json.key("radius_m")
            json.double(radiusMeters)
        }
        if let bbox {
            json.key("bbox")
            json.beginArray()
            for value in bbox { json.double(value) }
            json.endArray()
        }
        if !filter.categories.isEmpty {
            json.key("categories")
            json.beginArray()
            for category in filter.categories { json.string(category.identifier) }
            json.endArray()
        }
        json.member("query", filter.text)
        if !filter.sources.isEmpty {
            json.key("sources")
            json.beginArray()
            for source in filter.sources { json.string(source) }
            json.endArray()
        }
        if let rating = filter.minimumRating {
            json.key("min_rating")
            json.double(rating)
        }
        if let prices = filter.priceLevels {
            json.key("price")
            json.beginArray()
            json.int(prices.lowerBound)
            json.int(prices.upperBound)
            json.endArray()
        }
        if !filter.countries.isEmpty {
            json.key("countries")
            json.beginArray()
            for country in filter.countries { json.string(country) }
            json.endArray()
        }
        if !filter.continents.isEmpty {
            json.key("continents")
            json.beginArray()
            for continent in filter.continents { json.string(continent.rawValue) }
            json.endArray()
        }
        if let openAt = filter.openAt {
            json.key("open_at")
            json.timestamp(openAt)
        }
        if kind != "place" {
            json.key("limit")
            if let limit { json.int(limit) } else { json.null() }
        }
        for (key, value) in extra {
            json.key(dynamic: key)
            value.write(to: &json)
        }
        json.endObject()
    }
}

/// The answer contract of every place query:
/// `{"query":{…},"count":N,"places":[…],"next_cursor":string|null}`, as JSON, as an RFC 7946
/// FeatureCollection, or as CSV. The CLI and the server write answers only through it.
public struct PlaceAnswer: Sendable {
    public var query: QueryDescription
    public var page: PlacePage

    public init(query: QueryDescription, page: PlacePage) {
        self.query = query
        self.page = page
    }

    /// About how many bytes the answer takes, to size a writer once (GeoJSON a little more).
    public var estimatedSize: Int { 512 + page.matches.count * 480 }

    /// The JSON answer.
    public func json(pretty: Bool = false) -> [UInt8] {
        var json = JSONWriter(pretty: pretty, capacity: estimatedSize)
        write(to: &json)
        return json.bytes
    }

    public func write(to json: inout JSONWriter) {
        writeEnvelope(to: &json) { match, json in PlaceJSON.write(match, to: &json, includeCoordinates: true) }
    }

    /// The JSON answer in which each place carries members of the caller's after its own (an
    /// owner's note on their gem, say); each place is written from its decoded form.
    public func write(to json: inout JSONWriter, addingToEach extra: (PlaceMatch, inout JSONWriter) -> Void) {
        writeEnvelope(to: &json) { match, json in
            PlaceJSON.write(match.place, distance: match.distance, to: &json, includeCoordinates: true) { extra(match, &$0) }
        }
    }

    private func writeEnvelope(to json: inout JSONWriter, places writePlace: (PlaceMatch, inout JSONWriter) -> Void) {
        json.beginObject()
        json.key("query")
        query.write(to: &json)
        json.key("count")
        json.int(page.matches.count)
        json.key("places")
        json.beginArray()
        for match in page.matches { writePlace(match, &json) }
        json.endArray()
        json.key("next_cursor")
        json.string(page.nextCursor)
        json.endObject()
    }

    /// RFC 7946 FeatureCollection with the JSON answer's place properties (longitude first);
    /// `query` and `next_cursor` ride along as foreign members (§6.1).
    public func geoJSON(pretty: Bool = false) -> [UInt8] {
        var json = JSONWriter(pretty: pretty, capacity: estimatedSize)
        writeGeoJSON(to: &json)
        return json.bytes
    }

    /// ``geoJSON(pretty:)`` into a writer the caller owns (a server copies its bytes once, into
    /// the response).
    public func writeGeoJSON(to json: inout JSONWriter) {
        json.beginObject()
        json.key("type")
        json.string("FeatureCollection")
        json.key("features")
        json.beginArray()
        for match in page.matches {
            let coordinate = match.coordinate
            json.pointFeature(id: match.id.rawValue, longitude: coordinate.longitude, latitude: coordinate.latitude) { json in
                PlaceJSON.write(match, to: &json, includeCoordinates: false)
            }
        }
        json.endArray()
        json.key("query")
        query.write(to: &json)
        json.key("next_cursor")
        json.string(page.nextCursor)
        json.endObject()
    }

    /// CSV: `id,name,lat,lon,distance_m,categories,source`, categories space-separated.
    public func csv() -> String {
        var out = "id,name,lat,lon,distance_m,categories,source\n"
        for match in page.matches {
            let place = match.place
            let distance = match.distance.map { String(($0.meters * 1000).rounded() / 1000) } ?? ""
            out +=
                [
                    place.id.rawValue, place.name, String(place.coordinate.latitude), String(place.coordinate.longitude),
                    distance, place.categories.map(\.identifier).joined(separator: " "), place.provenance.source,
                ]
                .map(Self.csvField).joined(separator: ",") + "\n"
        }
        return out
    }

    /// RFC 4180 quoting where a field needs it.
    public static func csvField(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
}

/// One place of an answer: `id, name, lat, lon, distance_m, categories, source` always
/// (`distance_m` is null without a centre), then only the fields the place has.
public enum PlaceJSON {
    public static func write(_ match: PlaceMatch, to json: inout JSONWriter, includeCoordinates: Bool) {
        // A stored row is written without decoding its place (the same bytes, about half the cost).
        let written = match.withStoredRow { row in
            StoredRowJSON.write(row, distance: match.distance, to: &json, includeCoordinates: includeCoordinates)
        }
        if written == true { return }
        write(match.place, distance: match.distance, to: &json, includeCoordinates: includeCoordinates)
    }

    public static func write(
        _ place: Place, distance: Distance?, to json: inout JSONWriter, includeCoordinates: Bool,
        extra: (inout JSONWriter) -> Void = { _ in }
    ) {
        json.beginObject()
        json.key("id")
        json.string(place.id.rawValue)
        json.key("name")
        json.string(place.name)
        if includeCoordinates {
            json.key("lat")
            json.double(place.coordinate.latitude)
            json.key("lon")
            json.double(place.coordinate.longitude)
        }
        json.key("distance_m")
        if let distance { json.meters(distance.meters) } else { json.null() }
        json.key("categories")
        json.beginArray()
        for category in place.categories { json.string(category.identifier) }
        json.endArray()
        json.key("source")
        json.string(place.provenance.source)
        if let address = place.address {
            json.key("address")
            json.beginObject()
            json.member("street", address.street)
            json.member("locality", address.locality)
            json.member("region", address.region)
            json.member("postcode", address.postcode)
            json.member("country_code", address.countryCode)
            json.member("formatted", address.formatted)
            json.endObject()
        }
        if let rating = place.rating {
            json.key("rating")
            json.beginObject()
            json.key("value")
            json.double(rating.value)
            if let count = rating.count {
                json.key("count")
                json.int(count)
            }
            json.key("scale")
            json.double(rating.originalScale)
            json.endObject()
        }
        if let level = place.priceLevel {
            json.key("price_level")
            json.int(level.level)
        }
        if let region = place.region {
            json.member("country_code", region.countryCode)
            json.member("continent", region.continent?.rawValue)
        }
        json.member("time_zone", place.timeZone)
        json.member("phone", place.phone)
        json.member("website", place.website)
        if let hours = place.openingHours {
            json.key("opening_hours")
            json.beginObject()
            json.member("text", hours.text)
            json.key("periods")
            json.beginArray()
            for period in hours.periods {
                json.beginObject()
                json.key("open_day")
                json.int(period.openDay)
                json.key("open_minute")
                json.int(period.openMinute)
                json.key("close_day")
                json.int(period.closeDay)
                json.key("close_minute")
                json.int(period.closeMinute)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        if !place.photos.isEmpty {
            json.key("photos")
            json.beginArray()
            for photo in place.photos {
                json.beginObject()
                // A photo people uploaded (`photo:<id>`) is named by its id, as everywhere.
                if let reference = photo.reference, reference.hasPrefix("photo:") {
                    json.member("id", String(reference.dropFirst(6)))
                }
                json.member("url", photo.url.map(PublicURL.absolute))
                json.member("reference", photo.reference)
                if let width = photo.width {
                    json.key("width")
                    json.int(width)
                }
                if let height = photo.height {
                    json.key("height")
                    json.int(height)
                }
                json.member("attribution", photo.attribution)
                json.endObject()
            }
            json.endArray()
        }
        if !place.tags.isEmpty {
            json.key("tags")
            json.beginObject()
            for (key, value) in place.tags.sorted(by: { $0.key < $1.key }) {
                json.key(dynamic: key)
                json.string(value)
            }
            json.endObject()
        }
        if let gem = place.gem {
            json.key("gem")
            json.beginObject()
            json.key("owner")
            json.string(gem.owner)
            json.key("visibility")
            json.string(gem.visibility.rawValue)
            json.member("description", gem.description)
            if let created = gem.createdAt {
                json.key("created_at")
                json.timestamp(created)
            }
            if let updated = gem.updatedAt {
                json.key("updated_at")
                json.timestamp(updated)
            }
            json.endObject()
        }
        if let importedAt = place.provenance.importedAt {
            json.key("imported_at")
            json.timestamp(importedAt)
        }
        if let fetchedAt = place.provenance.fetchedAt {
            json.key("fetched_at")
            json.timestamp(fetchedAt)
        }
        extra(&json)
        json.endObject()
    }
}

/// ISO 8601 UTC timestamps (`2026-11-22T04:11:06Z`, whole seconds), written by arithmetic:
/// `ISO8601DateFormatter` costs microseconds per call, more than finding a place.
public enum Timestamp {
    /// `date` as `YYYY-MM-DDThh:mm:ssZ` in UTC, the fraction of a second dropped.
    public static func iso8601(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        guard let bytes = utf8(seconds: seconds) else { return wideYear(seconds) }
        return withUnsafeBytes(of: bytes) { String(decoding: $0, as: UTF8.self) }
    }

    /// The 20 bytes of ``iso8601(_:)`` for `seconds` since 1970, or nil for a year outside
    /// 0…9999 (written with more or fewer digits by ``iso8601(_:)``).
    @inline(__always)
    static func utf8(seconds: Int64) -> ISO8601Bytes? {
        let (year, month, day, secondOfDay) = civil(seconds)
        guard year >= 0 && year < 10_000 else { return nil }
        let digit = { (value: Int64) in UInt8(truncatingIfNeeded: value) &+ 48 }
        let hour = secondOfDay / 3600, minute = secondOfDay / 60 % 60, second = secondOfDay % 60
        return (
            digit(year / 1000), digit(year / 100 % 10), digit(year / 10 % 10), digit(year % 10), 45,
            digit(month / 10), digit(month % 10), 45, digit(day / 10), digit(day % 10), 84,
            digit(hour / 10), digit(hour % 10), 58, digit(minute / 10), digit(minute % 10), 58,
            digit(second / 10), digit(second % 10), 90
        )
    }

    /// The 20 ASCII bytes of a timestamp, kept on the stack.
    typealias ISO8601Bytes = (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
    )

    /// Days since 1970 to the civil date (Howard Hinnant's algorithm), and the second of the day.
    @inline(__always)
    static func civil(_ seconds: Int64) -> (year: Int64, month: Int64, day: Int64, secondOfDay: Int64) {
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day, secondOfDay)
    }

    /// A year before 0 or after 9999, as text.
    private static func wideYear(_ seconds: Int64) -> String {
        let (year, month, day, secondOfDay) = civil(seconds)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
        let yearText = year >= 0 && year < 10_000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}
