import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// Turns a ``Place`` into a row of `places` and back.
///
/// Column order is ``Schema/selectColumns`` for reads and ``insertSQL`` for writes.
enum PlaceRowCodec {
    /// An upsert by id; ?11 is the pk a new row gets (``PlaceWriter`` picks it by the row's
    /// position, so rows near each other are stored together).
    static let insertSQL = """
        INSERT INTO places (pk, id, source, name, lat, lon, details, geom, country, continent, rank_key)
        VALUES (?11, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        ON CONFLICT (id) DO UPDATE SET source = excluded.source, name = excluded.name,
            lat = excluded.lat, lon = excluded.lon, details = excluded.details, geom = excluded.geom,
            country = excluded.country, continent = excluded.continent, rank_key = excluded.rank_key
        RETURNING pk
        """

    /// A plain insert, for bulk loads: no conflict handling or RETURNING to pay for on every row
    /// (the rowid is `sqlite3_last_insert_rowid`); a row whose id exists fails with a constraint
    /// error and goes through ``insertSQL`` instead.
    static let appendSQL = """
        INSERT INTO places (id, source, name, lat, lon, details, geom, country, continent, rank_key)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        """

    /// The size of a point's geometry blob.
    static let pointGeometrySize = 60

    /// Writes SpatiaLite's BLOB-Geometry of a POINT in SRID 4326, as `MakePoint(lon, lat, 4326)`
    /// makes it, into a buffer of ``pointGeometrySize`` bytes: start byte, little-endian mark,
    /// SRID, the MBR (min x, min y, max x, max y), MBR end, class 1 (POINT), x, y, end byte.
    static func writePointGeometry(into blob: UnsafeMutableRawBufferPointer, longitude: Double, latitude: Double) {
        blob[0] = 0x00
        blob[1] = 0x01
        blob.storeBytes(of: UInt32(4326).littleEndian, toByteOffset: 2, as: UInt32.self)
        let x = longitude.bitPattern.littleEndian, y = latitude.bitPattern.littleEndian
        blob.storeBytes(of: x, toByteOffset: 6, as: UInt64.self)  // MBR min x
        blob.storeBytes(of: y, toByteOffset: 14, as: UInt64.self)  // MBR min y
        blob.storeBytes(of: x, toByteOffset: 22, as: UInt64.self)  // MBR max x
        blob.storeBytes(of: y, toByteOffset: 30, as: UInt64.self)  // MBR max y
        blob.storeBytes(of: x, toByteOffset: 43, as: UInt64.self)
        blob.storeBytes(of: y, toByteOffset: 51, as: UInt64.self)
        blob[38] = 0x7C
        blob.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 39, as: UInt32.self)
        blob[59] = 0xFE
    }

    /// Binds every column of a row of an encoded batch to the insert statement, borrowing the
    /// batch's bytes (`base`) and the geometry buffer.
    static func bind(
        _ row: EncodedBatch.Row, bytes base: UnsafeBufferPointer<UInt8>,
        geometry: UnsafeMutableRawBufferPointer, to statement: SQLiteStatement
    ) {
        statement.reset()
        statement.bind(borrowedText: base.slice(row.id), at: 1)
        statement.bind(borrowedText: base.slice(row.source), at: 2)
        statement.bind(borrowedText: base.slice(row.name), at: 3)
        statement.bind(row.latitude, at: 4)
        statement.bind(row.longitude, at: 5)
        statement.bind(borrowedBlob: base.slice(row.details), at: 6)
        writePointGeometry(into: geometry, longitude: row.longitude, latitude: row.latitude)
        statement.bind(borrowedBlob: UnsafeRawBufferPointer(geometry), at: 7)
        if let country = row.country { statement.bind(borrowedText: base.slice(country), at: 8) } else { statement.bind(nil as String?, at: 8) }
        if let continent = row.continent { statement.bind(borrowedText: base.slice(continent), at: 9) } else { statement.bind(nil as String?, at: 9) }
        statement.bind(row.rankKey, at: 10)
    }

    /// Decodes the row the statement is on (columns as ``Schema/selectColumns``).
    static func decode(_ row: SQLiteStatement) -> Place {
        var builder = RowArena.Builder()
        let offset = builder.append(row, latitude: row.double(1), longitude: row.double(2))
        return builder.finish().place(at: offset)
    }

}
