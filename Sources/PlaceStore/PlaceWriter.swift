import Foundation
import GeoCore
import PlaceModel

/// Writes inside one transaction of ``SpatiaLitePlaceIndex/write(_:)``. Valid only inside that
/// closure.
///
/// A transaction whose first upsert finds the index empty is a bulk load: the spatial index and
/// name index triggers are switched off while rows go in, and both indexes are built in one pass
/// before the commit (about twice as fast as row by row). It is all one transaction, so a failure
/// or a kill still leaves the previous contents, triggers included.
public final class PlaceWriter {
    let index: SpatiaLitePlaceIndex
    private var decidedBulk = false
    private(set) var isBulkLoad = false
    /// The highest pk written so far: a new row's rowid is always above it, so a returned pk at
    /// or below it means the upsert updated a row, whose old categories must go.
    private var highestPK: Int64 = 0
    /// The source of the snapshot under way (``beginSnapshot(source:)``).
    var snapshotSource: String?

    init(index: SpatiaLitePlaceIndex) { self.index = index }

    /// Enters bulk mode if this is the first write to an empty index and the batch is large.
    private func considerBulkLoad(batchSize: Int) throws {
        guard !decidedBulk else { return }
        decidedBulk = true
        guard batchSize >= 1000, try index.connection.scalarInt("SELECT count(*) FROM (SELECT 1 FROM places LIMIT 1)") == 0 else {
            return
        }
        try index.connection.execute("SELECT DisableSpatialIndex('places', 'geom')")
        for trigger in Schema.ftsTriggerNames { try index.connection.execute("DROP TRIGGER \(trigger)") }
        isBulkLoad = true
    }

    /// Builds what a bulk load deferred. Called by ``SpatiaLitePlaceIndex/write(_:)`` before COMMIT.
    func finish() throws {
        guard isBulkLoad else { return }
        try index.connection.execute("""
            DROP TABLE idx_places_geom;
            SELECT CreateSpatialIndex('places', 'geom');
            INSERT INTO places_fts (places_fts) VALUES ('rebuild');
            \(Schema.ftsTriggers)
            """)
        guard try index.connection.scalarInt("SELECT spatial_index_enabled FROM geometry_columns WHERE f_table_name = 'places'") == 1 else {
            throw PlaceStoreError.sqlite(code: 0, message: "the spatial index could not be rebuilt", sql: nil)
        }
        isBulkLoad = false
    }

    /// Inserts or replaces places by id. The batch is written in Hilbert-curve order so that
    /// places near each other share database pages (about 1.5× faster queries).
    /// - Returns: how many places were written.
    @discardableResult
    public func upsert(_ places: [Place]) throws -> Int {
        let ordered = places
            .map { (HilbertCurve.index(latitude: $0.coordinate.latitude, longitude: $0.coordinate.longitude), $0) }
            .sorted { $0.0 < $1.0 }
        try considerBulkLoad(batchSize: places.count)
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
            if !isBulkLoad || pk <= highestPK {  // a fresh row in a bulk load has nothing to clear
                clearCategories.reset()
                clearCategories.bind(pk, at: 1)
                try clearCategories.run()
            }
            highestPK = max(highestPK, pk)
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
