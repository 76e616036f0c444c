import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

@testable import PlaceStore

/// The async store's writes leave checkpoints to a thread of their own: a commit never copies
/// the log into the file (and so never waits for a checkpoint's syncs), and the log is copied
/// once it holds the store's checkpoint size.
@Suite struct CheckpointTests {
    /// A new index file in a temporary directory, and that directory.
    static func makeIndex() throws -> (path: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-ckpt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("p.sqlite").path
        _ = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
        return (path, directory)
    }

    /// How many places of `source` the file itself holds, leaving its log out: a copy of the
    /// file alone is opened.
    static func placesInTheFileAlone(_ path: String, source: String) throws -> Int {
        let copy = path + "-alone.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return try SpatiaLitePlaceIndex(path: copy, mode: .readWrite).count(source: source)
    }

    static func places(_ batch: Int, count: Int) throws -> [Place] {
        try (0..<count).map { n in try makePlace("ck:\(batch)-\(n)", Double(n % 170) - 85, Double(batch % 340) - 170) }
    }

    @Test func commitsPastSQLitesCheckpointSizeLeaveTheFileAsItWas() async throws {
        let (path, directory) = try Self.makeIndex()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SpatiaLitePlaceStore(path: path, checkpointPages: 1_000_000)
        for batch in 0..<40 { try await store.upsert(try Self.places(batch, count: 250)) }
        // Well past SQLite's automatic checkpoint (1 000 pages), which would have copied the log.
        let logPages = ((try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0) / 4096
        #expect(logPages > 1_500)
        #expect(try Self.placesInTheFileAlone(path, source: "ck") == 0)
        #expect(try await store.count(source: "ck") == 10_000)
        try await store.shutdown()
    }

    @Test func theLogIsCopiedInTheBackgroundOnceItHoldsTheCheckpointSize() async throws {
        let (path, directory) = try Self.makeIndex()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SpatiaLitePlaceStore(path: path, checkpointPages: 1)
        try await store.upsert(try Self.places(0, count: 20))
        var inFile = 0
        for _ in 0..<100 where inFile < 20 {
            try await Task.sleep(for: .milliseconds(50))
            // A copy taken while the checkpoint writes may be torn: it counts as not yet there.
            inFile = (try? Self.placesInTheFileAlone(path, source: "ck")) ?? 0
        }
        #expect(inFile == 20)
        // Writes go on while and after the log is copied, and every one is read back.
        for batch in 1..<10 { try await store.upsert(try Self.places(batch, count: 20)) }
        #expect(try await store.count(source: "ck") == 200)
        try await store.shutdown()
    }

    /// The log file's size, in pages of 4 KB.
    static func logPages(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0) / 4096
    }

    /// Writes that never pause: each passive checkpoint ends with newer pages already in the
    /// log, so the log would never start again and would hold every page written. The commit
    /// that takes it past four times the checkpoint size restarts it, with readers at work.
    @Test func writesThatNeverPauseCannotGrowTheLogWithoutBound() async throws {
        let (path, directory) = try Self.makeIndex()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SpatiaLitePlaceStore(path: path, checkpointPages: 32)
        let readers = (0..<2).map { _ in
            Task {
                var reads = 0
                while !Task.isCancelled {
                    do {
                        _ = try await store.near(
                            Coordinate(uncheckedLatitude: 0, longitude: 0), radius: Distance(uncheckedMeters: 300_000),
                            filter: .none, limit: 20, cursor: nil)
                        reads += 1
                    } catch is CancellationError {
                        break  // the store refuses calls from a cancelled task: the writes are done
                    }
                }
                return reads
            }
        }
        var largest = 0, written = 0
        for batch in 0..<150 {
            try await store.upsert(try Self.places(batch, count: 100))
            largest = max(largest, Self.logPages(path))
            written += 100
        }
        for reader in readers { reader.cancel() }
        for reader in readers { #expect(try await reader.value > 0) }
        // Far more pages were written than the bound (about 40 a transaction, 6 000 in all).
        #expect(store.logRestarts > 0)
        // The ceiling is 128 pages; a restart that readers hold off (a loaded machine can stall a
        // reader past the 200 ms it waits) is tried again 32 pages later, hence the margin.
        #expect(largest <= 2_048, "the log reached \(largest) pages")
        #expect(try await store.count(source: "ck") == written)
        try await store.shutdown()
        // Every write is in the file and its log, as a new connection reads them.
        #expect(try SpatiaLitePlaceIndex(path: path, mode: .readOnly).count(source: "ck") == written)
    }
}
