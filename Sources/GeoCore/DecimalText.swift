/// Whole numbers written as ASCII decimal digits straight into a byte buffer: what JSON and
/// SQL text of many numbers need, without a `String` per number.
public enum DecimalText {
    /// Appends `value` in decimal (`-` first when negative) to `bytes`.
    @inlinable
    public static func append(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold any UInt64 (Int64.min's magnitude has 19).
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var count = 0
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }
}
