/// Edits of one thing (a gem, an account) made by this process, one at a time.
///
/// An edit reads, changes and writes over the version it read; two at once from this process
/// would make one of them read and apply again, and many at once (ten photos added to a gem
/// from one phone) could go round many times. Queued here in arrival order, each reads the
/// version the one before wrote, so only edits from other processes (another server on the
/// same PostgreSQL) ever need a second attempt.
actor EditLocks {
    /// For each key being edited, the edits waiting for it in arrival order.
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `edit` when no other edit of `key` runs in this process; edits of other keys run
    /// alongside. A task cancelled while waiting is told so once its turn comes, without editing.
    nonisolated func serially<Result: Sendable>(
        _ key: String,
        _ edit: () async throws -> Result
    ) async throws -> Result {
        await acquire(key)
        do {
            try Task.checkCancellation()
            let result = try await edit()
            await release(key)
            return result
        } catch {
            await release(key)
            throw error
        }
    }

    private func acquire(_ key: String) async {
        guard waiting[key] != nil else {
            waiting[key] = []
            return
        }
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    private func release(_ key: String) {
        guard var queue = waiting[key], !queue.isEmpty else {
            waiting[key] = nil
            return
        }
        let next = queue.removeFirst()
        waiting[key] = queue
        next.resume()
    }
}
