import PlaceModel
import PlaceQuery

/// The index's schema and its migrations.
///
/// The schema version is SQLite's `PRAGMA user_version`. Each migration moves a file from
/// version `n - 1` to `n` inside the transaction that opens it for writing; a file newer than
/// ``currentVersion`` is refused rather than misread.
///
/// Layout (version 1):
/// - `places`: one row per place. `pk` is the rowid the spatial index points at; `id` is the
///   `source:localId` text. Id, source, name and coordinates are columns (the unique key, the
///   per-source index, the text index's content, the exact position); every other field is in
///   `details`, one compact record (``PlaceDetailsCodec``). A query reads six columns a row; the
///   source is the id's namespace unless `details` says otherwise.
///   `geom` is a SpatiaLite POINT (SRID 4326) with the R*Tree `idx_places_geom`, so QGIS,
///   ogr2ogr and `spatialite` read the file as a layer.
/// - `place_categories(category, pk)`: a covering index, so a category filter is a range probe
///   (`transport` matches `transport` and `transport.*`), never a scan.
/// - `places_fts`: FTS5 over names (external content, kept in sync by triggers; diacritics
///   folded, so `Sao` finds `São`).
///
/// Version 2 recreates `places_fts` with `columnsize=0`: names are only matched, never ranked,
/// so the per-row token counts FTS5 keeps for ranking (a million rows of `places_fts_docsize`,
/// half the cost of indexing the names) are not stored.
///
/// Version 3 adds `country`, `continent` and `rank_key` (``PlaceRank/key(_:)``) columns, filled
/// from each row's details, with an index per region column on (region, rank_key, id): a ranked
/// page of a country or continent walks its index from the cursor instead of scanning.
enum Schema {
    static let currentVersion = 3

    /// The rank indexes of version 3 (partial: a place in no country is in no country's range).
    static let rankIndexes = """
        CREATE INDEX places_country_rank ON places (country, rank_key, id) WHERE country IS NOT NULL;
        CREATE INDEX places_continent_rank ON places (continent, rank_key, id) WHERE continent IS NOT NULL;
        """

    /// The name index's definition (version 2).
    static let ftsTable = """
        CREATE VIRTUAL TABLE places_fts USING fts5(
            name, content = 'places', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2', columnsize = 0
        );
        """

    /// The columns a query reads, in the order ``PlaceRowCodec`` decodes them.
    static let selectColumns = "p.pk, p.lat, p.lon, p.id, p.name, p.details"

    /// Keep the name index in step with the table. Dropped during a bulk load and recreated after
    /// the index is rebuilt in one pass (``PlaceWriter``).
    static let ftsTriggerNames = ["places_fts_after_insert", "places_fts_after_delete", "places_fts_after_rename"]
    static let ftsTriggers = """
        CREATE TRIGGER places_fts_after_insert AFTER INSERT ON places BEGIN
            INSERT INTO places_fts (rowid, name) VALUES (new.pk, new.name);
        END;
        CREATE TRIGGER places_fts_after_delete AFTER DELETE ON places BEGIN
            INSERT INTO places_fts (places_fts, rowid, name) VALUES ('delete', old.pk, old.name);
        END;
        CREATE TRIGGER places_fts_after_rename AFTER UPDATE OF name ON places BEGIN
            INSERT INTO places_fts (places_fts, rowid, name) VALUES ('delete', old.pk, old.name);
            INSERT INTO places_fts (rowid, name) VALUES (new.pk, new.name);
        END;
        """

    static let migrations: [Int: String] = [
        1: """
        CREATE TABLE places (
            pk INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            source TEXT NOT NULL,
            name TEXT NOT NULL,
            lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
            lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
            details BLOB
        );
        SELECT AddGeometryColumn('places', 'geom', 4326, 'POINT', 'XY', 1);
        SELECT CreateSpatialIndex('places', 'geom');
        CREATE INDEX places_source ON places (source);
        CREATE TABLE place_categories (
            category TEXT NOT NULL,
            pk INTEGER NOT NULL,
            PRIMARY KEY (category, pk)
        ) WITHOUT ROWID;
        CREATE INDEX place_categories_pk ON place_categories (pk);
        CREATE VIRTUAL TABLE places_fts USING fts5(
            name, content = 'places', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
        );
        \(ftsTriggers)
        CREATE TRIGGER places_after_delete AFTER DELETE ON places BEGIN
            DELETE FROM place_categories WHERE pk = old.pk;
        END;
        CREATE TABLE geoquery_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
        2: """
        DROP TABLE places_fts;
        \(ftsTable)
        INSERT INTO places_fts (places_fts) VALUES ('rebuild');
        """,
        3: """
        ALTER TABLE places ADD COLUMN country TEXT;
        ALTER TABLE places ADD COLUMN continent TEXT;
        ALTER TABLE places ADD COLUMN rank_key INTEGER;
        """,
    ]

    /// Brings a writable connection to ``currentVersion``.
    static func migrate(_ connection: SQLiteConnection) throws {
        let version = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
        if version > currentVersion {
            throw PlaceStoreError.schemaTooNew(found: version, supported: currentVersion)
        }
        if version == currentVersion { return }
        if version == 0 {
            let hasPlaces =
                try connection.scalarInt(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'places'") ?? 0
            if hasPlaces > 0 { throw PlaceStoreError.notAnIndex(path: connection.path) }
        }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let hasMetadata =
                try connection.scalarInt(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'spatial_ref_sys'") ?? 0
            if hasMetadata == 0 {
                // 'WGS84' writes only the SRIDs needed (~6 ms) rather than the whole EPSG table.
                try connection.execute("SELECT InitSpatialMetadata(0, 'WGS84')")
            }
            for next in (version + 1)...currentVersion {
                guard let sql = migrations[next] else { continue }
                try connection.execute(sql)
                if next == 3 {
                    try fillRegionsAndRanks(connection)
                    try connection.execute(rankIndexes)
                }
                try connection.execute("PRAGMA user_version = \(next)")
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Fills version 3's columns from each row's details, ten thousand rows at a time.
    static func fillRegionsAndRanks(_ connection: SQLiteConnection) throws {
        let read = try connection.prepare("SELECT \(selectColumns) FROM places p WHERE p.pk > ?1 ORDER BY p.pk LIMIT 10000")
        let write = try connection.prepare("UPDATE places SET country = ?1, continent = ?2, rank_key = ?3 WHERE pk = ?4")
        var after: Int64 = -1
        while true {
            read.reset()
            read.bind(after, at: 1)
            var rows: [(pk: Int64, place: Place)] = []
            while try read.step() { rows.append((read.int64(0), PlaceRowCodec.decode(read))) }
            read.reset()
            guard let last = rows.last else { return }
            for (pk, place) in rows {
                write.reset()
                write.bind(place.region?.countryCode, at: 1)
                write.bind(place.region?.continent?.rawValue, at: 2)
                write.bind(PlaceRank.key(of: place), at: 3)
                write.bind(pk, at: 4)
                try write.run()
            }
            after = last.pk
        }
    }
}
