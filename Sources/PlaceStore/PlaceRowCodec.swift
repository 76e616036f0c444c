import Foundation
import GeoCore
import PlaceModel

/// Turns a ``Place`` into the columns of `places` and back.
///
/// Column order is ``Schema/selectColumns`` for reads and ``insertSQL`` for writes.
enum PlaceRowCodec {
    static let insertSQL = """
        INSERT INTO places (id, source, source_id, name, lat, lon, categories, rating, rating_count,
            rating_scale, price_level, phone, website, street, locality, region, postcode,
            country_code, formatted_address, hours_text, hours_periods, photos, tags, gem_owner,
            gem_visibility, fetched_at, imported_at, geom)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
            ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, MakePoint(?6, ?5, 4326))
        ON CONFLICT (id) DO UPDATE SET source = excluded.source, source_id = excluded.source_id,
            name = excluded.name, lat = excluded.lat, lon = excluded.lon,
            categories = excluded.categories, rating = excluded.rating,
            rating_count = excluded.rating_count, rating_scale = excluded.rating_scale,
            price_level = excluded.price_level, phone = excluded.phone, website = excluded.website,
            street = excluded.street, locality = excluded.locality, region = excluded.region,
            postcode = excluded.postcode, country_code = excluded.country_code,
            formatted_address = excluded.formatted_address, hours_text = excluded.hours_text,
            hours_periods = excluded.hours_periods, photos = excluded.photos, tags = excluded.tags,
            gem_owner = excluded.gem_owner, gem_visibility = excluded.gem_visibility,
            fetched_at = excluded.fetched_at, imported_at = excluded.imported_at,
            geom = excluded.geom
        RETURNING pk
        """

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// Binds every column of `place` to the insert statement.
    static func bind(_ place: Place, to statement: SQLiteStatement) throws {
        statement.reset()
        statement.bind(place.id.rawValue, at: 1)
        statement.bind(place.provenance.source, at: 2)
        statement.bind(place.provenance.sourceID, at: 3)
        statement.bind(place.name, at: 4)
        statement.bind(place.coordinate.latitude, at: 5)
        statement.bind(place.coordinate.longitude, at: 6)
        statement.bind(place.categories.map(\.identifier).joined(separator: " "), at: 7)
        statement.bindOptional(place.rating?.value, at: 8)
        statement.bindOptional(place.rating?.count, at: 9)
        statement.bindOptional(place.rating?.originalScale, at: 10)
        statement.bindOptional(place.priceLevel?.level, at: 11)
        statement.bind(place.phone, at: 12)
        statement.bind(place.website, at: 13)
        let address = place.address
        statement.bind(address?.street, at: 14)
        statement.bind(address?.locality, at: 15)
        statement.bind(address?.region, at: 16)
        statement.bind(address?.postcode, at: 17)
        statement.bind(address?.countryCode, at: 18)
        statement.bind(address?.formatted, at: 19)
        statement.bind(place.openingHours?.text, at: 20)
        if let periods = place.openingHours?.periods, !periods.isEmpty {
            statement.bind(String(decoding: try encoder.encode(periods), as: UTF8.self), at: 21)
        } else {
            statement.bind(nil as String?, at: 21)
        }
        if place.photos.isEmpty {
            statement.bind(nil as String?, at: 22)
        } else {
            statement.bind(String(decoding: try encoder.encode(place.photos), as: UTF8.self), at: 22)
        }
        statement.bind(place.tags.isEmpty ? nil : FlatJSON.encode(place.tags), at: 23)
        statement.bind(place.gem?.owner, at: 24)
        statement.bind(place.gem?.visibility.rawValue, at: 25)
        statement.bindOptional(place.provenance.fetchedAt?.timeIntervalSince1970, at: 26)
        statement.bindOptional(place.provenance.importedAt?.timeIntervalSince1970, at: 27)
    }

    private static let decoder = JSONDecoder()

    /// Decodes the row the statement is on (columns as ``Schema/selectColumns``).
    static func decode(_ row: SQLiteStatement) throws -> Place {
        let idText = row.text(3) ?? ""
        guard let id = try? PlaceID(idText) else { throw PlaceStoreError.corruptRow(id: idText, reason: "bad id") }
        let coordinate = Coordinate(uncheckedLatitude: row.double(1), longitude: row.double(2))
        var place = Place(id: id, name: row.text(4) ?? "", coordinate: coordinate,
                          provenance: Provenance(source: row.text(5) ?? id.source,
                                                 sourceID: row.text(25) ?? id.localID))
        place.categories = categories(row.bytes(6))
        if !row.isNull(7) {
            place.rating = try? Rating(normalizedValue: row.double(7),
                                       count: row.isNull(8) ? nil : Int(row.int64(8)),
                                       originalScale: row.isNull(9) ? 5 : row.double(9))
        }
        if !row.isNull(10) { place.priceLevel = try? PriceLevel(Int(row.int64(10))) }
        place.phone = row.text(11)
        place.website = row.text(12)
        let address = Address(street: row.text(13), locality: row.text(14), region: row.text(15),
                              postcode: row.text(16), countryCode: row.text(17), formatted: row.text(18))
        if !address.isEmpty { place.address = address }
        let hoursText = row.text(19)
        var periods: [OpeningHours.Period] = []
        if !row.isNull(20) {
            periods = (try? decoder.decode([OpeningHours.Period].self, from: Data(row.bytes(20)))) ?? []
        }
        if hoursText != nil || !periods.isEmpty { place.openingHours = OpeningHours(text: hoursText, periods: periods) }
        if !row.isNull(21) {
            place.photos = (try? decoder.decode([PhotoReference].self, from: Data(row.bytes(21)))) ?? []
        }
        if !row.isNull(22) {
            guard let tags = FlatJSON.decodeLenient(row.bytes(22)) else {
                throw PlaceStoreError.corruptRow(id: idText, reason: "tags are not a JSON object")
            }
            place.tags = tags
        }
        if let owner = row.text(23) {
            place.gem = HiddenGem(owner: owner, visibility: HiddenGem.Visibility(rawValue: row.text(24) ?? "") ?? .private)
        }
        if !row.isNull(26) { place.provenance.fetchedAt = Date(timeIntervalSince1970: row.double(26)) }
        if !row.isNull(27) { place.provenance.importedAt = Date(timeIntervalSince1970: row.double(27)) }
        return place
    }

    /// Splits the space-separated category column. Stored values were validated on the way in.
    static func categories(_ bytes: UnsafeBufferPointer<UInt8>) -> [Category] {
        guard bytes.count > 0 else { return [] }
        return bytes.split(separator: 0x20).compactMap {
            try? Category(String(decoding: UnsafeBufferPointer(rebasing: $0), as: UTF8.self))
        }
    }
}
