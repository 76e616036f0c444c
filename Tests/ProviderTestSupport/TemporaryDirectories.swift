import Foundation

/// Temporary directories that shared fixtures make once per test process and that nothing
/// else removes (a `static let` is never deinitialised): each is removed when the process
/// exits, so a test run leaves nothing in the temporary folder.
public enum TemporaryDirectories {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var registered: [URL] = []  // guarded by `lock`
    nonisolated(unsafe) private static var hookInstalled = false  // guarded by `lock`

    /// A new directory `<prefix>-<UUID>` in the temporary folder, removed at exit.
    public static func make(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        removeAtExit(url)
        return url
    }

    /// Removes `url` (and all it holds) when the process exits.
    public static func removeAtExit(_ url: URL) {
        lock.withLock {
            registered.append(url)
            guard !hookInstalled else { return }
            hookInstalled = true
            atexit {
                let urls = TemporaryDirectories.lock.withLock { TemporaryDirectories.registered }
                for url in urls { try? FileManager.default.removeItem(at: url) }
            }
        }
    }
}
