import Foundation
import PlaceModel

/// How a snapshot merge treated a batch.
public struct SnapshotCounts: Sendable, Hashable, Codable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0

    public init() {}

    /// Adds another's counts to these.
    public static func += (total: inout SnapshotCounts, more: SnapshotCounts) {
        total.added += more.added
        total.updated += more.updated
        total.unchanged += more.unchanged
    }
}

/// What finishing a snapshot decided.
public struct SnapshotFinish: Sendable, Hashable {
    /// The source's places that no merge named, now removed.
    public var removed = 0
    /// Merge counts decided only now, by a writer that merges the whole snapshot at its end;
    /// they add to what the merges returned.
    public var counts = SnapshotCounts()

    public init(removed: Int = 0, counts: SnapshotCounts = SnapshotCounts()) {
        self.removed = removed
        self.counts = counts
    }
}

/// Places prepared for one store's writer. Preparing needs no connection, so an importer
/// prepares a batch on its reading thread while the writer writes the one before.
public protocol PlaceBatch: Sendable {
    /// An empty batch.
    init()
    /// Makes room for `count` places.
    mutating func reserveCapacity(_ count: Int)
    /// Adds one place at the end of the batch.
    /// - Throws: when a field of the place cannot be stored by this store.
    mutating func append(_ place: Place) throws
    /// How many places the batch holds.
    var count: Int { get }
    /// How many places an importer puts in one batch unless told otherwise: what suits this
    /// store's writer (how much the reading thread may run ahead, how the store lays rows out).
    static var preferredCount: Int { get }
}

extension PlaceBatch {
    /// Ten thousand places: the reading thread and the writer overlap from early on, and a
    /// batch's memory stays small.
    public static var preferredCount: Int { 10_000 }
}

/// The write side of a nightly import, inside one transaction of a ``SnapshotStore``
/// (DESIGN.md "Import semantics"): the places merged between ``beginSnapshot(source:)`` and
/// ``finishSnapshot()`` become all of that source; other sources are untouched.
public protocol SnapshotWriter {
    /// The form this writer takes places in.
    associatedtype Batch: PlaceBatch

    /// Starts a snapshot of `source`.
    func beginSnapshot(source: String) throws
    /// Writes the places that are new or changed and remembers every id. A place that equals
    /// what is stored but for its import time is unchanged and is not rewritten. A writer may
    /// keep the batch and decide at ``finishSnapshot()``; its counts then come from there.
    func merge(_ batch: Batch) throws -> SnapshotCounts
    /// Removes the source's places that no merge named, and writes what the merges kept.
    func finishSnapshot() throws -> SnapshotFinish
    /// Records when `source` was last imported.
    func recordImport(of source: String, at time: Date) throws
}

/// A store that takes nightly snapshots. ``importSnapshot(_:)`` is one transaction: when its
/// body throws, or the process dies, readers keep the previous snapshot.
///
/// The call blocks its thread until the commit; importers call it from a thread of their own
/// (the CLI's main thread, or a server's thread pool), never from the cooperative pool.
public protocol SnapshotStore: Sendable {
    associatedtype Writer: SnapshotWriter
    /// Runs `body` in one write transaction.
    func importSnapshot<T>(_ body: (Writer) throws -> T) throws -> T
}
