import Foundation

/// Runs `operation` for at most `seconds`: its result, or nil when time ran out first (the
/// operation is then cancelled). Errors and outer cancellation pass through.
func withDeadline<T: Sendable>(seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
