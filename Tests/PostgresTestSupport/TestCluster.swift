import Foundation

/// A throwaway PostgreSQL cluster for tests: `initdb` in a temporary directory, a server on a
/// free loopback port (its socket in that directory), removed when the test process exits.
///
/// Runs the server binaries as the `postgres` user when the tests run as root (PostgreSQL
/// refuses to run as root; CI runs as root). Without PostgreSQL's binaries ``shared`` is nil
/// and the suites that need it say, loudly, that they were skipped.
public final class TestCluster: Sendable {
    /// The port the server listens on (127.0.0.1).
    public let port: Int
    /// The cluster's directory (data, log, socket).
    public let directory: String
    let binaries: String

    /// The cluster every suite of this test process shares (each suite makes its own database),
    /// or nil when PostgreSQL is not installed. A cluster that fails to start is a test failure.
    public static let shared: Result<TestCluster, any Error>? = {
        guard let binaries = TestCluster.findBinaries() else {
            FileHandle.standardError.write(
                Data(
                    """

                    ⚠️  SKIPPED: the PostgreSQL/PostGIS suites. PostgreSQL's initdb was not found (install postgresql \
                    and postgresql-15-postgis-3, as `make test` does).

                    """.utf8))
            return nil
        }
        return Result { try TestCluster(binaries: binaries) }
    }()

    /// Whether the suites can run here (PostgreSQL found); a skip is announced on stderr.
    public static var isAvailable: Bool { shared != nil }

    /// A URL for database `name` on this cluster as the superuser.
    public func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Creates an empty database with PostGIS and returns its URL.
    public func createDatabase(_ prefix: String = "t") throws -> String {
        let name = "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        try psql(database: "postgres", "CREATE DATABASE \(name)")
        try psql(database: name, "CREATE EXTENSION IF NOT EXISTS postgis")
        return url(database: name)
    }

    /// Runs SQL through psql (tests only: set-up and inspection), returning its unaligned output.
    @discardableResult
    public func psql(database: String, _ sql: String, port: Int? = nil) throws -> String {
        try run(
            binaries + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                "-p", String(port ?? self.port), "-U", "postgres", "-d", database, "-c", sql,
            ],
            asServerUser: false)
    }

    init(binaries: String) throws {
        self.binaries = binaries
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-pg-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        try Self.giveToServerUser(directory)
        TestCluster.removeAtExit(directory: directory, binaries: binaries)
        try startServer(dataDirectory: directory + "/data", port: port, initialise: true)
    }

    /// initdb (when asked) and start a server on `dataDirectory`, listening on 127.0.0.1:`port`,
    /// tuned for tests (no fsync: a crash loses a throwaway cluster only).
    public func startServer(dataDirectory: String, port: Int, initialise: Bool, extraSettings: [String] = []) throws {
        if initialise {
            try run(
                binaries + "/initdb",
                [
                    "-D", dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                    "--locale=C", "--no-sync",
                ], asServerUser: true)
            let settings =
                [
                    "listen_addresses = '127.0.0.1'", "port = \(port)", "unix_socket_directories = '\(directory)'",
                    "fsync = off", "synchronous_commit = off", "full_page_writes = off",
                    "max_connections = 200", "shared_buffers = 256MB", "wal_level = replica",
                    "max_wal_senders = 4", "hot_standby = on",
                ] + extraSettings
            try appendToFile(dataDirectory + "/postgresql.conf", settings.joined(separator: "\n") + "\n")
            try appendToFile(dataDirectory + "/pg_hba.conf", "host replication all 127.0.0.1/32 trust\n")
        }
        try run(
            binaries + "/pg_ctl", ["-D", dataDirectory, "-l", dataDirectory + ".log", "-o", "-p \(port)", "-w", "-t", "120", "start"],
            asServerUser: true)
        TestCluster.registerDataDirectory(dataDirectory)
    }

    /// A streaming replica of this cluster (pg_basebackup, then a standby on its own port).
    /// - Returns: the replica's port.
    public func startReplica() throws -> Int {
        let replicaData = directory + "/replica-\(UUID().uuidString.prefix(6))"
        let replicaPort = try Self.freePort()
        try run(
            binaries + "/pg_basebackup",
            [
                "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-D", replicaData,
                "-R", "-X", "stream", "--no-sync", "--checkpoint=fast",
            ], asServerUser: true)
        try appendToFile(replicaData + "/postgresql.conf", "port = \(replicaPort)\n")
        try startServer(dataDirectory: replicaData, port: replicaPort, initialise: false)
        return replicaPort
    }

    private func appendToFile(_ path: String, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    // MARK: - Processes

    static var isRoot: Bool { geteuid() == 0 }

    @discardableResult
    func run(_ program: String, _ arguments: [String], asServerUser: Bool) throws -> String {
        try Self.run(program, arguments, asServerUser: asServerUser)
    }

    /// Runs a program to its end with posix_spawn and waitpid. Not Foundation's `Process`: on
    /// Linux it learns of the exit through a descriptor the child inherits, which the server
    /// that `pg_ctl start` leaves running would keep open, so it would wait forever.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], asServerUser: Bool) throws -> String {
        // In /tmp (`env -C`): the server user may not enter the test's own directory.
        let command = ["/usr/bin/env", "-C", "/tmp", program] + arguments
        let argv = asServerUser && isRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command
        let outputPath = NSTemporaryDirectory() + "pgtest-\(UUID().uuidString).out"
        let errorPath = outputPath + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outputPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try closeInheritedDescriptors(in: &actions)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw ClusterError("cannot start \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let out = FileManager.default.contents(atPath: outputPath) ?? Data()
        let err = FileManager.default.contents(atPath: errorPath) ?? Data()
        let exited = status & 0x7f == 0, code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw ClusterError(
                "\((program as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed "
                    + "(\(code)): \(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Has the child close every descriptor above standard error before it runs. Without this a
    /// server that `pg_ctl start` leaves running inherits whatever the test process has open
    /// without close-on-exec — NIO's sockets among them: a standby started while an import ran
    /// kept the import's connection to the primary open after the import closed it, so its
    /// session and advisory lock lived on and the next import waited forever.
    ///
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+) is not in Swift's Glibc
    /// module, so it is looked up by name.
    static func closeInheritedDescriptors(in actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw ClusterError("this C library lacks posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has it)")
        }
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        let failed = closeFrom(&actions, 3)
        guard failed == 0 else { throw ClusterError("posix_spawn_file_actions_addclosefrom_np failed: error \(failed)") }
    }

    static func findBinaries() -> String? {
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "/usr/lib/postgresql/\($0)/bin" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    static func giveToServerUser(_ path: String) throws {
        guard isRoot else { return }
        try run("/bin/chown", ["-R", "postgres:postgres", path], asServerUser: false)
    }

    /// A loopback port nobody listens on now.
    public static func freePort() throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw ClusterError("no socket for a free port") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(socketDescriptor, pointer, length) == 0 && getsockname(socketDescriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw ClusterError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: - Clean-up at exit

    private static let cleanup = CleanupList()

    static func removeAtExit(directory: String, binaries: String) {
        cleanup.set(directory: directory, binaries: binaries)
        atexit { TestCluster.cleanup.run() }
    }

    static func registerDataDirectory(_ path: String) { cleanup.addDataDirectory(path) }
}

/// What to stop and remove when the test process exits. A lock guards the lists, which is why
/// the `@unchecked Sendable` is safe.
final class CleanupList: @unchecked Sendable {
    private let lock = NSLock()
    private var directory: String?
    private var binaries = ""
    private var dataDirectories: [String] = []

    func set(directory: String, binaries: String) {
        lock.withLock {
            self.directory = directory
            self.binaries = binaries
        }
    }

    func addDataDirectory(_ path: String) { lock.withLock { if !dataDirectories.contains(path) { dataDirectories.append(path) } } }

    func run() {
        let (directory, binaries, data) = lock.withLock { (self.directory, self.binaries, self.dataDirectories) }
        for path in data.reversed() {
            _ = try? TestCluster.run(binaries + "/pg_ctl", ["-D", path, "-m", "immediate", "-w", "stop"], asServerUser: true)
        }
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}

/// A cluster that could not be set up, with the command's own words.
public struct ClusterError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
