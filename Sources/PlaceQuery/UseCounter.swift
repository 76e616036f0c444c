import Foundation

/// How many times a path was taken, shared by copies of the value that holds it (the stores'
/// combined indexes count the pages their one statement answered, which the tests check).
/// `@unchecked Sendable`: `count` is read and written only while `lock` is held.
package final class UseCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    package init() {}

    package func add() { lock.withLock { count += 1 } }

    package var value: Int { lock.withLock { count } }
}
