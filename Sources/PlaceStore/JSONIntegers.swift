import GeoCore

/// Lists of integers as JSON text, for `json_each`: one statement can then insert a million
/// rows, instead of a million statements one each.
enum JSONIntegers {
    /// Calls `body` with the bytes of `[v0,v1,…]`.
    static func withArray<R>(_ values: [Int64], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(values.count * 8 + 2)
        for (offset, value) in values.enumerated() {
            if offset > 0 { text.append(UInt8(ascii: ",")) }
            DecimalText.append(value, to: &text)
        }
        text.append(UInt8(ascii: "]"))
        return try text.withUnsafeBytes(body)
    }
}
