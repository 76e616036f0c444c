import Foundation

/// A bounded hand-over from a producer thread to a consumer: the producer waits while it is
/// full, the consumer while it is empty. Importers hand batches from a reading thread to the
/// writing one with it, whichever store they write to.
package final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written only while `condition`'s
    // lock is held, and elements are themselves Sendable.
    private let condition = NSCondition()
    private var items: [Element?] = []  // popped slots are nil, so they free what they held
    private var head = 0
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private let capacity: Int

    package init(capacity: Int) { self.capacity = capacity }

    /// Waits while the queue is full; false when the consumer cancelled.
    package func push(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    /// The producer is done, with the error that stopped it if any.
    package func finish(error: (any Error)?) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next record; nil at the end; the producer's error if it failed.
    package func pop() throws -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !finished { condition.wait() }
        if head < items.count {
            let element = items[head]
            items[head] = nil
            head += 1
            if head >= 64 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            condition.broadcast()
            return element!
        }
        if let failure { throw failure }
        return nil
    }

    package func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
