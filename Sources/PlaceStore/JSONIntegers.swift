/// Lists of integers as JSON text, for `json_each`: one statement can then insert a million
/// rows, instead of a million statements one each.
enum JSONIntegers {
    /// Calls `body` with the bytes of `[v0,v1,…]`.
    static func withArray<R>(_ values: [Int64], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var text: [UInt8] = [UInt8(ascii: "[")]
        text.reserveCapacity(values.count * 8 + 2)
        for (offset, value) in values.enumerated() {
            if offset > 0 { text.append(UInt8(ascii: ",")) }
            append(value, to: &text)
        }
        text.append(UInt8(ascii: "]"))
        return try text.withUnsafeBytes(body)
    }

    private static func append(_ value: Int64, to text: inout [UInt8]) {
        if value < 0 { text.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { text.append(buffer[index]) }
        }
    }
}
