import Foundation
import Testing

@testable import PostgresTestSupport

/// The programs the test cluster starts (and the servers `pg_ctl` leaves running) keep none of
/// the test process's descriptors: a server that kept a connection's socket kept its session,
/// and the import lock with it.
@Suite struct TestClusterTests {
    @Test func aStartedProgramInheritsNoDescriptor() throws {
        // Opened without close-on-exec, as NIO opens its sockets.
        let path = NSTemporaryDirectory() + "inherited-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor > 2)
        defer { close(descriptor) }
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0)

        // The child sees its standard output (a file of the runner's) but not the descriptor.
        let standardOutput = try TestCluster.run("/usr/bin/readlink", ["/proc/self/fd/1"], asServerUser: false)
        #expect(standardOutput.contains("pgtest-"))
        #expect(throws: (any Error).self) {
            try TestCluster.run("/usr/bin/readlink", ["/proc/self/fd/\(descriptor)"], asServerUser: false)
        }
    }
}
