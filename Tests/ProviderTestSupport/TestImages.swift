/// Images for tests of photo uploads, built byte by byte (no image file in the repository).
public enum TestImages {
    /// A minimal valid PNG (1×1, grey), with a `tEXt` chunk when asked.
    public static func png(withText: Bool) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let length = UInt32(data.count)
            let typed = Array(type.utf8) + data
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + typed + withUnsafeBytes(of: crc32(typed).bigEndian, Array.init)
        }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
        if withText { bytes += chunk("tEXt", Array("Comment\u{0}GPS 48.85 2.35".utf8)) }
        bytes += chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])
        bytes += chunk("IEND", [])
        return bytes
    }

    /// A valid 1×1 PNG of one grey level: different levels are different images (and photo ids).
    public static func png(grey level: UInt8) -> [UInt8] {
        var bytes = png(withText: false)
        // The image data as one stored (uncompressed) deflate block: filter 0, then the pixel.
        let adler = UInt32(2 + UInt32(level)) << 16 | UInt32(1 + UInt32(level))
        let data: [UInt8] = [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, level] + withUnsafeBytes(of: adler.bigEndian, Array.init)
        let typed = Array("IDAT".utf8) + data
        let idat = [0, 0, 0, UInt8(data.count)] + typed + withUnsafeBytes(of: crc32(typed).bigEndian, Array.init)
        // Replace the IDAT chunk (after the signature and the 25-byte IHDR chunk; 22 bytes long).
        bytes.replaceSubrange(33..<55, with: idat)
        return bytes
    }

    /// A PNG whose header declares `width` × `height` grey pixels and whose data holds one row:
    /// a decompression bomb's header (a 30 000 × 30 000 PNG is 854 KB, 900 MB decoded).
    public static func png(declaredWidth width: UInt32, height: UInt32) -> [UInt8] {
        var bytes = png(withText: false)
        let header =
            Array("IHDR".utf8) + withUnsafeBytes(of: width.bigEndian, Array.init) + withUnsafeBytes(of: height.bigEndian, Array.init)
            + [8, 0, 0, 0, 0]
        bytes.replaceSubrange(12..<29, with: header)
        bytes.replaceSubrange(29..<33, with: withUnsafeBytes(of: crc32(header).bigEndian, Array.init))
        return bytes
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
