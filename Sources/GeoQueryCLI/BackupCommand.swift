import ArgumentParser
import Foundation
import GeoQueryServer
import PlaceStore
import PostGISStore

/// `geoquery backup`: a consistent copy of what people made — the user data file, the photo
/// files, the webhook key — taken while `geoquery serve` runs.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy accounts, gems, trips and photos into a new folder while the service runs.",
        discussion: """
            Example: geoquery backup --to /var/backups/geoquery/2026-11-27. The folder gets users.sqlite \
            (one consistent moment of the user data file; the service's writes go on meanwhile), photos/ \
            (the files the copy's records name, each checked against its SHA-256) and webhook.key. \
            `geoquery serve --users-db FOLDER/users.sqlite` serves the copy as it is; to restore, stop \
            the service and put the three back where they were. The places index is not copied: it is \
            rebuilt by `geoquery import`. A PostgreSQL deployment keeps everything in the database: \
            back it up with pg_dump.
            """)

    @Option(help: "A new or empty folder to write the backup into.") var to: String
    @Option(
        name: .customLong("users-db"),
        help: """
            The user data file to back up (GEOQUERY_USERS_DB; default DATA_DIR/users.sqlite); its photos are \
            the folder photos/ beside it.
            """) var usersDatabase: String?
    @Option(name: .customLong("data-dir"), help: "The service's data folder (GEOQUERY_DATA_DIR; default geodata).") var dataDirectory: String?
    @Option(help: "The service's --db; a postgres:// URL is refused with how to back up PostgreSQL (GEOQUERY_DB).") var db: String?

    private func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() throws {
        if let database = db ?? environment("GEOQUERY_DB"), PostGISLocation.isDatabaseURL(database) {
            // Named without its password.
            let named = (try? PostGISLocation(url: database).description) ?? "the --db database"
            throw CLIFailure(
                """
                \(named) is a PostgreSQL database, which holds the accounts and gems itself: back it up with \
                pg_dump --format=custom (and copy the photos folder DATA_DIR/photos); geoquery backup copies SQLite deployments
                """, exitCode: CLIFailure.usage)
        }
        let dataDirectory = resolvedDataDirectory(dataDirectory)
        let usersPath = usersDatabase ?? environment("GEOQUERY_USERS_DB") ?? dataDirectory + "/users.sqlite"
        guard FileManager.default.fileExists(atPath: usersPath) else {
            throw CLIFailure("no user data file at \(usersPath): give the service's --users-db or --data-dir", exitCode: CLIFailure.noInput)
        }
        try prepareFolder()
        let started = ContinuousClock.now
        let copy = try reportingFailures { try SQLiteUserStore.backUp(usersPath, to: (to as NSString).appendingPathComponent("users.sqlite")) }
        // Photos after the records: a photo added since is not named by the copy; one deleted
        // since is reported missing, its record kept.
        let serviceFolder = (usersPath as NSString).deletingLastPathComponent
        let photos: PhotoFiles.CopySummary
        do {
            photos = try PhotoFiles.copy(
                copy.photoIDs, from: (serviceFolder as NSString).appendingPathComponent("photos"),
                to: (to as NSString).appendingPathComponent("photos"))
        } catch {
            throw CLIFailure("cannot copy the photos into \(to): \(error.localizedDescription)", exitCode: CLIFailure.ioError)
        }
        let key = (serviceFolder as NSString).appendingPathComponent("webhook.key")
        if let bytes = FileManager.default.contents(atPath: key) {
            let target = (to as NSString).appendingPathComponent("webhook.key")
            guard FileManager.default.createFile(atPath: target, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                throw CLIFailure("cannot write \(target): check the folder's permissions", exitCode: CLIFailure.ioError)
            }
        }
        let elapsed = (ContinuousClock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        print(
            String(
                format: "backed up %d accounts, %d gems, %d trips and itineraries (%.1f MB) and %d photos (%.1f MB) to %@ in %.1f s",
                copy.accounts, copy.gems, copy.plans, Double(copy.bytes) / 1e6, photos.copied, Double(photos.bytes) / 1e6, to, seconds))
        if !photos.missing.isEmpty {
            warn(
                "\(photos.missing.count) photo files were gone (deleted after the copy was taken): \(photos.missing.prefix(5).joined(separator: ", "))"
            )
        }
        if !photos.damaged.isEmpty {
            warn(
                "\(photos.damaged.count) photo files do not match their SHA-256 (damaged on disk; copied as they are): \(photos.damaged.prefix(5).joined(separator: ", "))"
            )
        }
    }

    private func warn(_ text: String) {
        FileHandle.standardError.write(Data("geoquery: warning: \(text)\n".utf8))
    }

    /// Creates the folder, or accepts an empty one; a folder with files is refused, so that no
    /// backup is ever overwritten.
    private func prepareFolder() throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: to, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw CLIFailure("--to \(to) is a file: give a new or empty folder", exitCode: CLIFailure.usage)
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: to)) ?? []
            guard entries.isEmpty else {
                throw CLIFailure(
                    "--to \(to) already holds \(entries.count) entries: give a new or empty folder, so that no backup is overwritten",
                    exitCode: CLIFailure.usage)
            }
            return
        }
        do { try FileManager.default.createDirectory(atPath: to, withIntermediateDirectories: true) } catch {
            throw CLIFailure("cannot create --to \(to): \(error.localizedDescription)", exitCode: CLIFailure.ioError)
        }
    }
}
