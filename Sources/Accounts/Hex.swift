/// Lower-case hexadecimal text of bytes: token hashes, signatures, keys and ids.
///
/// Written digit by digit into the string's storage: `String(format: "%02x")` per byte went
/// through Foundation's formatter and cost a signed-in request about 60 µs (its token's hash).
public enum Hex {
    /// Two lower-case hex digits per byte, in order.
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        let source = Array(bytes)
        return String(unsafeUninitializedCapacity: source.count * 2) { buffer in
            for (index, byte) in source.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0f)]
            }
            return source.count * 2
        }
    }
}
