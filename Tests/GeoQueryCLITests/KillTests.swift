import Foundation
import GeoCore
import PlaceQuery
import ProviderTestSupport
import Testing

@testable import PlaceStore

typealias GeoCoreCoordinate = Coordinate
typealias GeoCoreDistance = Distance

/// The promise of an import: a kill -9 at any moment leaves the previous snapshot, intact and
/// queryable, and readers keep answering from it while the import runs.
@Suite(.waitsOnProcesses) struct KillTests {
    @Test func aKilledImportLeavesThePreviousSnapshot() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("k.sqlite").path

        // The previous snapshot: 50 places of source "big".
        let small = directory.appendingPathComponent("small.geojsonl")
        try Data((0..<50).map { feature($0, lat: 10) }.joined(separator: "\n").utf8).write(to: small)
        #expect(try CLI.run(["import", small.path, "--format", "geojsonseq", "--source", "big", "--db", db]).status == 0)

        // Loading the country boundaries takes the import about 1 s of CPU before it writes; a
        // full import of this file takes about 12 s, so 3 s is well inside the transaction, with
        // room for the import to go on working while the reader below runs on a busy machine.
        try killImportHalfWay(of: try largeSnapshot(in: directory), into: db, afterCPUSeconds: 3) {
            let during = try CLI.run(["near", "--lat", "10", "--lon", "0.5", "--radius", "200km", "--limit", "all", "--format", "json", "--db", db])
            #expect(during.status == 0 && during.json["count"] as? Int == 50, "readers see the old snapshot during the import")
        }

        let index = try SpatiaLitePlaceIndex(path: db, mode: .readWrite)
        #expect(try index.count(source: "big") == 50)
        #expect(try index.near(try GeoCoreCoordinate(latitude: -10, longitude: 0.5), radius: try GeoCoreDistance(parsing: "200km")).matches.isEmpty)
        let check = try index.locked { try index.connection.scalarText("PRAGMA integrity_check") }
        #expect(check == "ok")
        let after = try CLI.run(["near", "--lat", "10", "--lon", "0.5", "--radius", "200km", "--limit", "all", "--format", "json", "--db", db])
        #expect(after.json["count"] as? Int == 50)
    }

    /// The first import into an empty index takes another path: a rollback journal instead of
    /// the write-ahead log (each page written once). A kill must leave the empty index, which
    /// the next import fills, back in WAL mode.
    @Test func aKilledFirstFillLeavesTheEmptyIndex() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("k.sqlite").path
        _ = try SpatiaLitePlaceIndex(path: db, mode: .createIfMissing)

        // The journal appears with the fill's first write; kill after a second of CPU more.
        try killImportHalfWay(
            of: try largeSnapshot(in: directory), into: db, afterCPUSeconds: 1,
            once: { FileManager.default.fileExists(atPath: db + "-journal") }
        ) {}
        #expect(FileManager.default.fileExists(atPath: db + "-journal"), "the kill leaves the rollback journal for the next writer")

        let during = try CLI.run(["near", "--lat", "-10", "--lon", "0.5", "--radius", "200km", "--limit", "all", "--format", "json", "--db", db])
        #expect(during.status == 0 && during.json["count"] as? Int == 0, "a reader sees the empty index, not half a fill")
        do {
            let index = try SpatiaLitePlaceIndex(path: db, mode: .readWrite)
            #expect(try index.count(source: "big") == 0)
            #expect(try index.locked { try index.connection.scalarText("PRAGMA integrity_check") } == "ok")
        }
        let small = directory.appendingPathComponent("small.geojsonl")
        try Data((0..<50).map { feature($0, lat: 10) }.joined(separator: "\n").utf8).write(to: small)
        #expect(try CLI.run(["import", small.path, "--format", "geojsonseq", "--source", "big", "--db", db]).status == 0)
        let index = try SpatiaLitePlaceIndex(path: db, mode: .readWrite)
        #expect(try index.count(source: "big") == 50)
        #expect(try index.locked { try index.connection.scalarText("PRAGMA journal_mode") } == "wal")
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
    }

    /// 1 000 000 places of source "big" at latitude -10: long enough an import to be killed
    /// half-way. (With 400 000, a run on a busy machine saw the import commit while the reader
    /// in `whileRunning` was still starting: the import goes on working until the kill.)
    func largeSnapshot(in directory: URL) throws -> URL {
        let large = directory.appendingPathComponent("large.geojsonl")
        try #require(FileManager.default.createFile(atPath: large.path, contents: nil))
        let handle = try FileHandle(forWritingTo: large)
        for chunk in 0..<100 {
            let lines = (0..<10_000).map { feature(chunk * 10_000 + $0, lat: -10) }.joined(separator: "\n") + "\n"
            handle.write(Data(lines.utf8))
        }
        try handle.close()
        return large
    }

    /// Starts `geoquery import`, waits until `once` holds and the import has then worked for
    /// `afterCPUSeconds` of CPU more, runs `whileRunning`, then kills it with SIGKILL.
    ///
    /// CPU time, not wall time, because the machine may be busy with other suites; SQLite writes
    /// its log only at commit or when its cache spills, so the log's size cannot tell "under
    /// way" from "committing".
    func killImportHalfWay(
        of file: URL, into db: String, afterCPUSeconds: Double, once ready: () -> Bool = { true },
        whileRunning: () throws -> Void
    ) throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["import", file.path, "--format", "geojsonseq", "--source", "big", "--db", db]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline && !ready() {
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(ready(), "the import never reached the state the test kills it in")
        let readyAt = cpuSeconds(process.processIdentifier)
        while process.isRunning && Date() < deadline && cpuSeconds(process.processIdentifier) < readyAt + afterCPUSeconds {
            Thread.sleep(forTimeInterval: 0.01)
        }
        // Still (or again) in that state at the kill: on a loaded machine the first sighting can
        // be a short write before the one the test means (a journal that came and went), and
        // a second of CPU later the fill had not yet begun its own.
        while process.isRunning && Date() < deadline && !ready() {
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(process.isRunning, "the import finished before it could be killed; make the file larger")
        try whileRunning()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
    }

    /// User plus system CPU time of a process, from /proc/PID/stat (Linux).
    func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func feature(_ n: Int, lat: Double) -> String {
        #"{"type":"Feature","id":\#(n),"geometry":{"type":"Point","coordinates":[\#(Double(n % 1000) / 1000),\#(lat)]},"properties":{"name":"P\#(n)"}}"#
    }
}
