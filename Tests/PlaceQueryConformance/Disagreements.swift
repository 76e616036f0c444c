/// What a conformance check found wrong, as sentences: each suite's `check` collects them and
/// answers ``list`` (empty when the store conforms).
struct Disagreements {
    private(set) var list: [String] = []

    /// Notes `message` unless `condition` holds.
    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { list.append(message()) }
    }

    /// Notes `message`.
    mutating func append(_ message: String) { list.append(message) }
}
