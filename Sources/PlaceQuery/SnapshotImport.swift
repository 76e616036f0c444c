import Foundation
import PlaceModel

/// How a snapshot merge treated a batch.
public struct SnapshotCounts: Sendable, Hashable, Codable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0

    public init() {}
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
    /// what is stored but for its import time is unchanged and is not rewritten.
    func merge(_ batch: Batch) throws -> SnapshotCounts
    /// Removes the source's places that no merge named. - Returns: how many were removed.
    func finishSnapshot() throws -> Int
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
