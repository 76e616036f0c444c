import Foundation

/// Uploaded images: the type from the bytes themselves (never the declared `Content-Type`), and
/// the metadata removed before anything is stored — a phone's JPEG carries its GPS position in
/// EXIF, which would tell everyone where the person lives.
enum PhotoSanitizer {
    enum Kind: String {
        case jpeg = "image/jpeg", png = "image/png", webp = "image/webp"
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        case unknownType
        case malformed(Kind, String)

        var description: String {
            switch self {
            case .unknownType: return "the body is not a JPEG, PNG or WebP image (judged by its first bytes, not its Content-Type)"
            case .malformed(let kind, let why): return "the \(kind.rawValue) image is damaged: \(why)"
            }
        }
    }

    /// The image's type by its magic bytes.
    static func kind(of bytes: [UInt8]) -> Kind? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .webp }
        return nil
    }

    /// The image without its metadata, and its type.
    static func sanitize(_ bytes: [UInt8]) throws(Failure) -> (Kind, [UInt8]) {
        guard let kind = kind(of: bytes) else { throw .unknownType }
        switch kind {
        case .jpeg: return (kind, try strippedJPEG(bytes))
        case .png: return (kind, try strippedPNG(bytes))
        case .webp: return (kind, try strippedWebP(bytes))
        }
    }

    /// Drops APP1 (EXIF, XMP), APP13 (Photoshop, IPTC) and comment segments; keeps the rest,
    /// and the entropy-coded data after the start of scan as it is.
    static func strippedJPEG(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        var index = 2
        while index < bytes.count {
            guard bytes[index] == 0xFF, index + 1 < bytes.count else { throw .malformed(.jpeg, "no segment marker at byte \(index)") }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }  // fill byte
            if marker == 0xD9 || (0xD0...0xD7).contains(marker) || marker == 0x01 {
                out += bytes[index..<(index + 2)]
                index += 2
                continue
            }
            guard index + 3 < bytes.count else { throw .malformed(.jpeg, "a segment is cut short at byte \(index)") }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else {
                throw .malformed(.jpeg, "a segment at byte \(index) claims \(length) bytes")
            }
            let end = index + 2 + length
            if marker == 0xDA {  // start of scan: the rest is image data
                out += bytes[index...]
                return out
            }
            if marker != 0xE1 && marker != 0xED && marker != 0xFE { out += bytes[index..<end] }
            index = end
        }
        return out
    }

    /// Drops the `eXIf`, `tEXt`, `zTXt`, `iTXt` and `tIME` chunks.
    static func strippedPNG(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        var out = Array(bytes[0..<8])
        var index = 8
        let dropped: Set<String> = ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]
        while index + 12 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let end = index + 12 + length
            guard length >= 0, end <= bytes.count else { throw .malformed(.png, "a chunk at byte \(index) claims \(length) bytes") }
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            if !dropped.contains(type) { out += bytes[index..<end] }
            index = end
            if type == "IEND" { return out }
        }
        throw .malformed(.png, "it has no IEND chunk")
    }

    /// Drops the `EXIF` and `XMP ` chunks, clears their flags in `VP8X`, and fixes the RIFF size.
    static func strippedWebP(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        var body: [UInt8] = Array("WEBP".utf8)
        var index = 12
        while index + 8 <= bytes.count {
            let type = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
            let length = Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16 | Int(bytes[index + 7]) << 24
            let end = index + 8 + length + (length & 1)
            guard end <= bytes.count || index + 8 + length == bytes.count else {
                throw .malformed(.webp, "a chunk at byte \(index) claims \(length) bytes")
            }
            var chunk = Array(bytes[index..<min(end, bytes.count)])
            if type == "VP8X", chunk.count > 8 { chunk[8] &= ~UInt8(0x08 | 0x04) }  // EXIF and XMP flags
            if type != "EXIF" && type != "XMP " { body += chunk }
            index = end
        }
        let size = UInt32(body.count)
        return Array("RIFF".utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)] + body
    }
}
