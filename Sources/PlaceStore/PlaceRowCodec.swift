import Foundation
import GeoCore
import PlaceModel

/// Turns a ``Place`` into a row of `places` and back.
///
/// Column order is ``Schema/selectColumns`` for reads and ``insertSQL`` for writes.
enum PlaceRowCodec {
    static let insertSQL = """
        INSERT INTO places (id, source, name, lat, lon, details, geom)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT (id) DO UPDATE SET source = excluded.source, name = excluded.name,
            lat = excluded.lat, lon = excluded.lon, details = excluded.details, geom = excluded.geom
        RETURNING pk
        """

    /// A plain insert, for bulk loads: no conflict handling or RETURNING to pay for on every row
    /// (the rowid is `sqlite3_last_insert_rowid`); a row whose id exists fails with a constraint
    /// error and goes through ``insertSQL`` instead.
    static let appendSQL = """
        INSERT INTO places (id, source, name, lat, lon, details, geom) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        """

    /// SpatiaLite's BLOB-Geometry of a POINT in SRID 4326, as `MakePoint(lon, lat, 4326)` makes
    /// it: start byte, little-endian mark, SRID, the MBR (min x, min y, max x, max y), MBR end,
    /// class 1 (POINT), x, y, end byte — 60 bytes.
    static func pointGeometry(longitude: Double, latitude: Double) -> [UInt8] {
        var blob = [UInt8](repeating: 0, count: 60)
        blob[1] = 0x01
        func put32(_ value: UInt32, at offset: Int) {
            for byte in 0..<4 { blob[offset + byte] = UInt8(truncatingIfNeeded: value >> UInt32(8 * byte)) }
        }
        func put64(_ value: Double, at offset: Int) {
            let bits = value.bitPattern
            for byte in 0..<8 { blob[offset + byte] = UInt8(truncatingIfNeeded: bits >> UInt64(8 * byte)) }
        }
        put32(4326, at: 2)
        put64(longitude, at: 6)
        put64(latitude, at: 14)
        put64(longitude, at: 22)
        put64(latitude, at: 30)
        blob[38] = 0x7C
        put32(1, at: 39)
        put64(longitude, at: 43)
        put64(latitude, at: 51)
        blob[59] = 0xFE
        return blob
    }

    /// Binds every column of an encoded place to the insert statement.
    static func bind(_ encoded: EncodedPlace, to statement: SQLiteStatement) {
        let place = encoded.place
        statement.reset()
        statement.bind(place.id.rawValue, at: 1)
        statement.bind(place.provenance.source, at: 2)
        statement.bind(place.name, at: 3)
        statement.bind(place.coordinate.latitude, at: 4)
        statement.bind(place.coordinate.longitude, at: 5)
        statement.bind(blob: encoded.details, at: 6)
        statement.bind(blob: encoded.geometry, at: 7)
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
