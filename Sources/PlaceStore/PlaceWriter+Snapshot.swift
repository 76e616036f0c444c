import Foundation
import PlaceModel
import PlaceQuery

extension PlaceWriter: SnapshotWriter {
    /// Starts a snapshot of `source`: the places merged until ``finishSnapshot()`` become all of
    /// that source, and the source's other places are removed then. Other sources are untouched.
    public func beginSnapshot(source: String) throws {
        try index.connection.execute(
            """
            CREATE TEMP TABLE IF NOT EXISTS snapshot_seen (id TEXT PRIMARY KEY) WITHOUT ROWID;
            DELETE FROM temp.snapshot_seen;
            """)
        snapshotSource = source
        let rows = Int(try index.connection.scalarInt("SELECT count(*) FROM places") ?? 0)
        snapshotIsFresh = rows == 0
        rebuildThreshold = max(SnapshotRebuild.minimumRows, rows / SnapshotRebuild.shareDivisor)
        deferredWrites = []
        deferredCount = 0
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
            // An empty index: nothing to compare with or to remove later; write straight away (the
            // first large batch makes it a bulk load). An id seen twice in the dump is an update.
            let written = try upsertCounting(batch)
            counts.added = written.inserted
            counts.updated = written.updated
            return counts
        }
        let lookup = try index.statement("SELECT source, name, lat, lon, details FROM places WHERE id = ?1")
        let remember = try index.statement("INSERT OR IGNORE INTO temp.snapshot_seen (id) VALUES (?1)")
        var changed: [Int] = []
        try batch.bytes.withUnsafeBufferPointer { bytes in
            defer {
                lookup.reset()
                remember.reset()
            }
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
                let same =
                    lookup.double(2) == row.latitude && lookup.double(3) == row.longitude
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
        if !changed.isEmpty { try writeChanged(batch, rows: changed) }
        return counts
    }

    /// Writes changed rows, or holds them back while it is not yet known whether this snapshot
    /// changes enough of the index to rebuild its indexes instead (``SnapshotRebuild``).
    private func writeChanged(_ batch: EncodedBatch, rows: [Int]) throws {
        if rebuildsAll {
            _ = try upsertCounting(batch, rows: rows)
            return
        }
        deferredWrites.append((batch, rows))
        deferredCount += rows.count
        if deferredCount >= rebuildThreshold {
            try enterRebuild()
            try flushDeferredWrites()
        }
    }

    /// Writes what ``writeChanged(_:rows:)`` held back, in dump order.
    func flushDeferredWrites() throws {
        let pending = deferredWrites
        deferredWrites = []
        deferredCount = 0
        for (batch, rows) in pending { _ = try upsertCounting(batch, rows: rows) }
    }

    /// Removes the snapshot source's places that were not merged since ``beginSnapshot(source:)``.
    /// - Returns: how many were removed (this writer's merges count as they go).
    public func finishSnapshot() throws -> SnapshotFinish {
        guard let source = snapshotSource else {
            throw PlaceStoreError.invalidArgument("finishSnapshot needs beginSnapshot(source:) first")
        }
        try flushDeferredWrites()
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
        return SnapshotFinish(removed: removed)
    }

    /// Records the import time of `source` (read by ``SpatiaLitePlaceIndex/statistics()``).
    public func recordImport(of source: String, at time: Date) throws {
        try setMetadata(ISO8601DateFormatter().string(from: time), forKey: "imported:" + source)
    }
}

/// When a snapshot import rebuilds the index's indexes rather than keeping them up row by row.
///
/// Keeping the R*Tree, the category index and the name index up costs about ten times as much
/// per changed row as building them in one pass costs per row of the whole index (measured: 300 000
/// rows added to 100 000 took 23.6 s row by row, against 3.1 s for 400 000 into an empty index).
/// So changed rows are held back until either the dump ends — then they are written row by row
/// (a nightly update touching 1 % stays cheap) — or they reach a tenth of the index's rows
/// (at least 5 000) — then the import becomes a bulk load that rebuilds every index at its end
/// (``PlaceWriter/enterRebuild()``).
enum SnapshotRebuild {
    static let shareDivisor = 10
    static let minimumRows = 5_000
}
