import Foundation

/// A value made once by an async function and shared by every test that asks (a suite's
/// fixture); a failure is kept and rethrown to each.
public actor AsyncOnce<Value: Sendable> {
    private let make: @Sendable () async throws -> Value
    private var task: Task<Value, any Error>?

    public init(_ make: @escaping @Sendable () async throws -> Value) { self.make = make }

    public func value() async throws -> Value {
        if let task { return try await task.value }
        let task = Task { try await make() }
        self.task = task
        return try await task.value
    }
}
