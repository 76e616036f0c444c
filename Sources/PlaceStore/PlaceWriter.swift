import Foundation
import GeoCore
import PlaceModel

/// Writes inside one transaction of ``SpatiaLitePlaceIndex/write(_:)``. Valid only inside that
/// closure.
public struct PlaceWriter {
    let index: SpatiaLitePlaceIndex

    /// Inserts or replaces places by id. The batch is written in Hilbert-curve order so that
    /// places near each other share database pages (about 1.5× faster queries).
    /// - Returns: how many places were written.
    @discardableResult
    public func upsert(_ places: [Place]) throws -> Int {
        let ordered = places
            .map { (HilbertCurve.index(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude), $0) }
            .sorted { $0.0 < $1.0 }
        let insert = try index.statement(PlaceRowCodec.insertSQL)
        let clearCategories = try index.statement("DELETE FROM place_categories WHERE pk = ?1")
        let addCategory = try index.statement("INSERT OR IGNORE INTO place_categories (category, pk) VALUES (?1, ?2)")
        for (_, place) in ordered {
            try PlaceRowCodec.bind(place, to: insert)
            guard try insert.step() else {
                throw PlaceStoreError.sqlite(code: 0, message: "upsert returned no row", sql: PlaceRowCodec.insertSQL)
            }
            let pk = insert.int64(0)
            try insert.run()
            clearCategories.reset()
            clearCategories.bind(pk, at: 1)
            try clearCategories.run()
            for category in place.categories {
                addCategory.reset()
                addCategory.bind(category.identifier, at: 1)
                addCategory.bind(pk, at: 2)
                try addCategory.run()
            }
        }
        insert.reset()
        return ordered.count
    }

    /// Deletes places by id. - Returns: how many existed.
    @discardableResult
    public func delete(_ ids: [PlaceID]) throws -> Int {
        let statement = try index.statement("DELETE FROM places WHERE id = ?1")
        var deleted = 0
        for id in ids {
            statement.reset()
            statement.bind(id.rawValue, at: 1)
            try statement.run()
            deleted += index.connection.changes
        }
        return deleted
    }

    /// Records a fact about the index (for example the time a source was last imported).
    public func setMetadata(_ value: String, forKey key: String) throws {
        let statement = try index.statement("INSERT OR REPLACE INTO geoquery_meta (key, value) VALUES (?1, ?2)")
        statement.reset()
        statement.bind(key, at: 1)
        statement.bind(value, at: 2)
        try statement.run()
    }
}
