import CSpatiaLite
import Foundation

/// What ``SQLiteUserStore/backUp(_:to:)`` wrote: counts read from the copy itself.
public struct UserDataBackup: Sendable, Equatable {
    /// Where the copy is.
    public var path: String
    public var accounts: Int
    public var gems: Int
    /// Itineraries and group trips.
    public var plans: Int
    /// The photos the copy knows, by id (their files live beside the database, not in it).
    public var photoIDs: [String]
    /// The copy's size in bytes.
    public var bytes: Int
}

extension SQLiteUserStore {
    /// Copies the user data file at `path` into a new file at `destination`: every account,
    /// session, gem, rating, favourite, plan and photo record as of one moment.
    ///
    /// The copy is read in one read transaction (`VACUUM INTO`), so it is consistent even while
    /// a server writes to the file, and no writer waits for it (in WAL mode a reader holds no
    /// writer off). It is written under a temporary name, synced, and renamed, so `destination`
    /// is either absent or complete. The copy is a user data file like the original: a server
    /// opens it as it is. Only its owner may read it (mode 0600): it holds emails and password
    /// hashes.
    ///
    /// - Throws: ``PlaceStoreError/invalidArgument(_:)`` when `path` does not exist or
    ///   `destination` does, ``PlaceStoreError/notUserData(path:)`` when `path` is not a user
    ///   data file, or a SQLite error (a full disk, for instance).
    public static func backUp(_ path: String, to destination: String) throws -> UserDataBackup {
        guard FileManager.default.fileExists(atPath: path) else { throw PlaceStoreError.invalidArgument("no user data file at \(path)") }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw PlaceStoreError.invalidArgument("\(destination) already exists: a backup goes to a new file")
        }
        let partial = destination + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            let source = try SQLiteConnection(path: path, readOnly: true, create: false)
            defer { source.close() }
            guard (try? source.scalarInt("SELECT max(version) FROM user_data_schema")) != nil else {
                throw PlaceStoreError.notUserData(path: path)
            }
            // The copy holds emails and password hashes: only its owner reads it, from its
            // first byte (VACUUM INTO fills an empty file it is given).
            guard FileManager.default.createFile(atPath: partial, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw PlaceStoreError.cannotOpen(path: partial, message: "the copy cannot be created there")
            }
            try source.run("VACUUM INTO ?1", [.text(partial)])
            guard let handle = FileHandle(forUpdatingAtPath: partial) else {
                throw PlaceStoreError.cannotOpen(path: partial, message: "the copy was not written")
            }
            try handle.synchronize()
            try handle.close()
            try FileManager.default.moveItem(atPath: partial, toPath: destination)
        } catch {
            // A full disk or a failed sync leaves no half copy behind.
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        return try describe(destination)
    }

    /// The counts and photo ids of the user data file at `path`.
    static func describe(_ path: String) throws -> UserDataBackup {
        let copy = try SQLiteConnection(path: path, readOnly: true, create: false)
        defer { copy.close() }
        func count(_ table: String) throws -> Int { Int(try copy.scalarInt("SELECT count(*) FROM \(table)") ?? 0) }
        var photoIDs: [String] = []
        try copy.each("SELECT id FROM photos ORDER BY id") { photoIDs.append($0.text(0) ?? "") }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return UserDataBackup(
            path: path, accounts: try count("users"), gems: try count("gems"), plans: try count("plans"),
            photoIDs: photoIDs, bytes: bytes)
    }
}
