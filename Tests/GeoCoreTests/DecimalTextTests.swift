import GeoCore
import Testing

struct DecimalTextTests {
    @Test func writesWhatStringWrites() {
        var random = SplitMix64(seed: 3)
        let edges: [Int64] = [0, 1, -1, 9, 10, -10, 1_906_000_000, Int64.max, Int64.min, Int64.min + 1]
        let values = edges + (0..<2_000).map { _ in Int64(bitPattern: random.next()) >> Int64(random.next() % 64) }
        for value in values {
            var bytes: [UInt8] = [UInt8(ascii: "[")]
            DecimalText.append(value, to: &bytes)
            #expect(String(decoding: bytes.dropFirst(), as: UTF8.self) == String(value), "\(value)")
        }
    }
}
