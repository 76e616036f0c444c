import Foundation
import GeoCore
import PlaceModel

/// Turns a ``Place`` into a row of `places` and back.
///
/// Column order is ``Schema/selectColumns`` for reads and ``insertSQL`` for writes.
enum PlaceRowCodec {
    static let insertSQL = """
        INSERT INTO places (id, source, name, lat, lon, details, geom)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, MakePoint(?5, ?4, 4326))
        ON CONFLICT (id) DO UPDATE SET source = excluded.source, name = excluded.name,
            lat = excluded.lat, lon = excluded.lon, details = excluded.details, geom = excluded.geom
        RETURNING pk
        """

    /// Binds every column of `place` to the insert statement.
    static func bind(_ place: Place, to statement: SQLiteStatement) throws {
        statement.reset()
        statement.bind(place.id.rawValue, at: 1)
        statement.bind(place.provenance.source, at: 2)
        statement.bind(place.name, at: 3)
        statement.bind(place.coordinate.latitude, at: 4)
        statement.bind(place.coordinate.longitude, at: 5)
        statement.bind(blob: try PlaceDetailsCodec.encode(place), at: 6)
    }

    /// Sets the fields a details record carries.
    static func apply(_ details: PlaceDetailsCodec.Fields, to place: inout Place) {
        place.categories = details.categories
        if let rating = details.rating {
            place.rating = try? Rating(normalizedValue: rating, count: details.ratingCount.map { Int($0) },
                                       originalScale: details.ratingScale ?? 5)
        }
        if let level = details.priceLevel { place.priceLevel = try? PriceLevel(level) }
        let address = Address(street: details.street, locality: details.locality, region: details.region,
                              postcode: details.postcode, countryCode: details.countryCode, formatted: details.formatted)
        if !address.isEmpty { place.address = address }
        place.phone = details.phone
        place.website = details.website
        if details.hoursText != nil || !details.hoursPeriods.isEmpty {
            place.openingHours = OpeningHours(text: details.hoursText, periods: details.hoursPeriods)
        }
        place.photos = details.photos
        place.tags = details.tags
        if let owner = details.gemOwner {
            place.gem = HiddenGem(owner: owner, visibility: HiddenGem.Visibility(rawValue: details.gemVisibility ?? "") ?? .private)
        }
        place.provenance.fetchedAt = details.fetchedAt.map(Date.init(timeIntervalSince1970:))
        place.provenance.importedAt = details.importedAt.map(Date.init(timeIntervalSince1970:))
    }

    /// Decodes the row the statement is on (columns as ``Schema/selectColumns``).
    static func decode(_ row: SQLiteStatement) -> Place {
        var builder = RowArena.Builder()
        let offset = builder.append(row, latitude: row.double(1), longitude: row.double(2))
        return builder.finish().place(at: offset)
    }

    /// Splits the space-separated category column. Stored values were validated on the way in.
    static func categories(_ bytes: UnsafeBufferPointer<UInt8>) -> [Category] {
        guard bytes.count > 0 else { return [] }
        if !bytes.contains(0x20) {
            return [Category(trustedIdentifier: String(decoding: bytes, as: UTF8.self))]
        }
        return bytes.split(separator: 0x20).map {
            Category(trustedIdentifier: String(decoding: UnsafeBufferPointer(rebasing: $0), as: UTF8.self))
        }
    }
}
