import Foundation
import PlaceModel

/// How a snapshot merge treated a batch.
public struct SnapshotCounts: Sendable, Hashable, Codable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0

    public init() {}
}

extension PlaceWriter {
    /// Starts a snapshot of `source`: the places merged until ``finishSnapshot()`` become all of
    /// that source, and the source's other places are removed then. Other sources are untouched.
    public func beginSnapshot(source: String) throws {
        try index.connection.execute("""
            CREATE TEMP TABLE IF NOT EXISTS snapshot_seen (id TEXT PRIMARY KEY) WITHOUT ROWID;
            DELETE FROM temp.snapshot_seen;
            """)
        snapshotSource = source
    }

    /// Writes the places that are new or differ from what is stored, and remembers every id for
    /// ``finishSnapshot()``. A place counts as unchanged when everything but its import time is
    /// equal; unchanged rows are not rewritten (and keep their import time).
    public func merge(_ places: [Place]) throws -> SnapshotCounts {
        guard snapshotSource != nil else {
            throw PlaceStoreError.invalidArgument("merge needs beginSnapshot(source:) first")
        }
        var counts = SnapshotCounts()
        let lookup = try index.statement("SELECT source, name, lat, lon, details FROM places WHERE id = ?1")
        let remember = try index.statement("INSERT OR IGNORE INTO temp.snapshot_seen (id) VALUES (?1)")
        var changed: [Place] = []
        changed.reserveCapacity(places.count)
        for place in places {
            remember.reset()
            remember.bind(place.id.rawValue, at: 1)
            try remember.run()
            lookup.reset()
            lookup.bind(place.id.rawValue, at: 1)
            guard try lookup.step() else {
                counts.added += 1
                changed.append(place)
                continue
            }
            let stored = lookup.nonEmptyBlob(4)
            let storedImportTime = try stored.flatMap { try PlaceDetailsCodec.decode($0, id: place.id.rawValue).importedAt }
            var comparable = place
            comparable.provenance.importedAt = storedImportTime.map(Date.init(timeIntervalSince1970:))
            let details = try PlaceDetailsCodec.encode(comparable)
            let same = lookup.text(0) == place.provenance.source && lookup.text(1) == place.name
                && lookup.double(2) == place.coordinate.latitude && lookup.double(3) == place.coordinate.longitude
                && (stored.map { Array($0) } ?? []) == (details ?? [])
            if same {
                counts.unchanged += 1
            } else {
                counts.updated += 1
                changed.append(place)
            }
        }
        lookup.reset()
        try upsert(changed)
        return counts
    }

    /// Removes the snapshot source's places that were not merged since ``beginSnapshot(source:)``.
    /// - Returns: how many were removed.
    public func finishSnapshot() throws -> Int {
        guard let source = snapshotSource else {
            throw PlaceStoreError.invalidArgument("finishSnapshot needs beginSnapshot(source:) first")
        }
        let delete = try index.statement("DELETE FROM places WHERE source = ?1 AND id NOT IN (SELECT id FROM temp.snapshot_seen)")
        delete.reset()
        delete.bind(source, at: 1)
        try delete.run()
        let removed = index.connection.changes
        try index.connection.execute("DROP TABLE temp.snapshot_seen")
        snapshotSource = nil
        return removed
    }
}
