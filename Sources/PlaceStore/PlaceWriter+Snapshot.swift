import Foundation
import PlaceModel
import PlaceQuery

extension PlaceWriter: SnapshotWriter {
    /// Starts a snapshot of `source`: the places merged until ``finishSnapshot()`` become all of
    /// that source, and the source's other places are removed then. Other sources are untouched.
    public func beginSnapshot(source: String) throws {
        try index.connection.execute("""
            CREATE TEMP TABLE IF NOT EXISTS snapshot_seen (id TEXT PRIMARY KEY) WITHOUT ROWID;
            DELETE FROM temp.snapshot_seen;
            """)
        snapshotSource = source
        let existing = try index.statement("SELECT 1 FROM places WHERE source = ?1 LIMIT 1")
        existing.reset()
        existing.bind(source, at: 1)
        snapshotIsFresh = try !existing.step()
        existing.reset()
    }

    /// Writes the places that are new or differ from what is stored, and remembers every id for
    /// ``finishSnapshot()``. A place counts as unchanged when everything but its import time is
    /// equal; unchanged rows are not rewritten (and keep their import time).
    public func merge(_ places: [Place]) throws -> SnapshotCounts {
        try merge(try EncodedBatch(places))
    }

    /// ``merge(_:)`` for places encoded beforehand (on another thread, say).
    public func merge(_ batch: EncodedBatch) throws -> SnapshotCounts {
        guard snapshotSource != nil else {
            throw PlaceStoreError.invalidArgument("merge needs beginSnapshot(source:) first")
        }
        var counts = SnapshotCounts()
        if snapshotIsFresh {
            // Nothing of the source to compare with or to remove later: write straight away. An
            // id seen twice in the dump, or held by another source, is an update.
            let written = try upsertCounting(batch)
            counts.added = written.inserted
            counts.updated = written.updated
            return counts
        }
        let lookup = try index.statement("SELECT source, name, lat, lon, details FROM places WHERE id = ?1")
        let remember = try index.statement("INSERT OR IGNORE INTO temp.snapshot_seen (id) VALUES (?1)")
        var changed: [Int] = []
        try batch.bytes.withUnsafeBufferPointer { bytes in
            defer { lookup.reset(); remember.reset() }
            for (rowIndex, row) in batch.rows.enumerated() {
                let id = bytes.slice(row.id)
                remember.reset()
                remember.bind(borrowedText: id, at: 1)
                try remember.run()
                let repeated = index.connection.changes == 0  // the dump gave this id before
                lookup.reset()
                lookup.bind(borrowedText: id, at: 1)
                guard try lookup.step() else {
                    // New — unless it repeats an id earlier in this batch, which it then replaces.
                    if repeated { counts.updated += 1 } else { counts.added += 1 }
                    changed.append(rowIndex)
                    continue
                }
                let empty = UnsafeRawBufferPointer(start: nil, count: 0)
                let same = lookup.double(2) == row.latitude && lookup.double(3) == row.longitude
                    && bytes.slice(row.name).elementsEqual(lookup.bytes(1))
                    && bytes.slice(row.source).elementsEqual(lookup.bytes(0))
                    && PlaceDetailsCodec.sameContent(bytes.slice(row.details), lookup.nonEmptyBlob(4) ?? empty)
                if same {
                    counts.unchanged += 1
                } else {
                    counts.updated += 1
                    changed.append(rowIndex)
                }
            }
        }
        if !changed.isEmpty { _ = try upsertCounting(batch, rows: changed) }
        return counts
    }

    /// Removes the snapshot source's places that were not merged since ``beginSnapshot(source:)``.
    /// - Returns: how many were removed.
    public func finishSnapshot() throws -> Int {
        guard let source = snapshotSource else {
            throw PlaceStoreError.invalidArgument("finishSnapshot needs beginSnapshot(source:) first")
        }
        var removed = 0
        if !snapshotIsFresh {
            let delete = try index.statement("DELETE FROM places WHERE source = ?1 AND id NOT IN (SELECT id FROM temp.snapshot_seen)")
            delete.reset()
            delete.bind(source, at: 1)
            try delete.run()
            removed = index.connection.changes
        }
        try index.connection.execute("DROP TABLE temp.snapshot_seen")
        snapshotSource = nil
        return removed
    }

    /// Records the import time of `source` (read by ``SpatiaLitePlaceIndex/statistics()``).
    public func recordImport(of source: String, at time: Date) throws {
        try setMetadata(ISO8601DateFormatter().string(from: time), forKey: "imported:" + source)
    }
}
