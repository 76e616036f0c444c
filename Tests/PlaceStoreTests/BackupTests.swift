import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

@testable import PlaceStore

/// `SQLiteUserStore.backUp`: a copy of the user data file as of one moment, taken while the
/// store writes, that opens as a store of its own.
@Suite struct BackupTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func gem(_ n: Int, owner: String = "writer") throws -> Place {
        let id = try PlaceID(source: "gem", localID: String(format: "bk%06d", n))
        return Place(
            id: id, name: "Backup gem \(n)", coordinate: try Coordinate(latitude: Double(n % 160) - 80, longitude: Double(n % 350) - 175),
            provenance: Provenance(source: "gem", sourceID: id.localID),
            gem: HiddenGem(owner: owner, visibility: n % 3 == 0 ? .private : .public))
    }

    /// Gems go on being written while the copy is taken: the copy holds a prefix of them, each
    /// with both its rows (the gem and its place), and opens, passes SQLite's integrity check,
    /// and answers queries as a store.
    @Test func aBackupTakenDuringWritesIsOneConsistentMoment() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("users.sqlite").path
        let store = try SQLiteUserStore(path: path, threads: 2)
        try await store.createUser(
            UserAccount(
                username: "writer", email: "w@example.org", passwordHash: "$2b$11$abcdefghijklmnopqrstuv",
                profile: UserProfile(), createdAt: Date()))
        for n in 0..<300 { try await store.createGem(try Self.gem(n)) }
        let writing = Task {
            var n = 300
            while !Task.isCancelled {
                do {
                    try await store.createGem(try Self.gem(n))
                    n += 1
                } catch is CancellationError {
                    break  // the store refuses calls from a cancelled task
                }
            }
            return n
        }
        try await Task.sleep(for: .milliseconds(50))
        let destination = directory.appendingPathComponent("copy.sqlite").path
        let backup = try SQLiteUserStore.backUp(path, to: destination)
        writing.cancel()
        let written = try await writing.value
        #expect(backup.accounts == 1)
        // How many of the racing writes made it in depends on the machine's load (under the full
        // suite, sometimes none); what the copy holds must be a prefix either way.
        #expect(backup.gems >= 300 && backup.gems <= written, "\(backup.gems) of \(written)")
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))

        let copy = try SQLiteUserStore(path: destination, threads: 2)
        // The gems written first are there; each gem row has its place row, and the reverse.
        let (placeRows, gemsWithoutPlaces) = try await copy.reading { connection in
            (
                try connection.scalarInt("SELECT count(*) FROM places"),
                try connection.scalarInt("SELECT count(*) FROM gems g WHERE NOT EXISTS (SELECT 1 FROM places p WHERE p.id = g.id)")
            )
        }
        #expect(placeRows == Int64(backup.gems) && gemsWithoutPlaces == 0)
        #expect(try await copy.reading { try $0.scalarText("PRAGMA integrity_check") } == "ok")
        let writersGems = PlaceFilter(viewer: "writer")
        let everyone = try await copy.within(.world, filter: writersGems, limit: nil, cursor: nil)
        #expect(everyone.matches.count == backup.gems, "the owner sees all of them, private ones too")
        let anonymous = try await copy.within(.world, filter: .none, limit: nil, cursor: nil)
        #expect(anonymous.matches.count == (0..<backup.gems).filter { $0 % 3 != 0 }.count, "private gems stay private in the copy")
        try await copy.shutdown()
        try await store.shutdown()
    }

    @Test func aBackupNeverOverwritesAndNamesWhatItCannotCopy() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("users.sqlite").path
        let store = try SQLiteUserStore(path: path, threads: 2)
        try await store.createGem(try Self.gem(1))
        try await store.shutdown()

        let existing = directory.appendingPathComponent("taken.sqlite").path
        try Data("an older backup".utf8).write(to: URL(fileURLWithPath: existing))
        let exists = #expect(throws: PlaceStoreError.self) { try SQLiteUserStore.backUp(path, to: existing) }
        #expect(exists?.description == "\(existing) already exists: a backup goes to a new file")
        #expect(FileManager.default.contents(atPath: existing) == Data("an older backup".utf8))

        let missing = directory.appendingPathComponent("absent.sqlite").path
        let absent = #expect(throws: PlaceStoreError.self) {
            try SQLiteUserStore.backUp(missing, to: directory.appendingPathComponent("a.sqlite").path)
        }
        #expect(absent?.description == "no user data file at \(missing)")
        let places = directory.appendingPathComponent("places.sqlite").path
        _ = try SpatiaLitePlaceIndex(path: places, mode: .createIfMissing)
        let foreign = #expect(throws: PlaceStoreError.self) {
            try SQLiteUserStore.backUp(places, to: directory.appendingPathComponent("b.sqlite").path)
        }
        #expect(foreign?.description == "\(places) is a SQLite file but not a GeoQuery user data file (accounts and gems)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.sqlite").path))
    }
}
