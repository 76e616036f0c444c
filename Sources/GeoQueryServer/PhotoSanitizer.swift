import CVips
import Foundation

/// Uploaded images, decoded and encoded again by libvips (Debian's `libvips-dev`, the image
/// library image services are built on) before anything is stored:
///
/// - the type comes from the bytes themselves, never the declared `Content-Type`;
/// - the size comes from the header, read without decoding a pixel: more than
///   ``maximumPixels`` is refused before the pixels are decoded (a 30 000 × 30 000 PNG is
///   854 KB and would take 2.7 GB decoded);
/// - the pixels are decoded, turned upright as the orientation tag says, and encoded again in the
///   same format with no metadata at all: a phone's JPEG carries its GPS position in EXIF, which
///   would tell everyone where the person lives, and a re-encode carries nothing it did not draw;
/// - smaller variants for lists and pins (``variant(_:width:)``) are made the same way.
///
/// Chosen over stripping segments by hand (what GeoQuery did before): that kept whatever the
/// pixels were, a damaged or hostile image included, and could not make variants.
enum PhotoSanitizer {
    enum Kind: String {
        case jpeg = "image/jpeg", png = "image/png", webp = "image/webp"

        /// What libvips writes this format by.
        var suffix: String {
            switch self {
            case .jpeg: ".jpg"
            case .png: ".png"
            case .webp: ".webp"
            }
        }
    }

    /// The most pixels a photo may have: 40 megapixels, more than any phone's camera makes.
    static let maximumPixels = 40_000_000
    /// The widths `GET /v1/photos/{id}?w=` serves besides the photo itself.
    static let variantWidths = [160, 320, 640, 1280]

    /// An image as stored: its format, its bytes and its size in pixels.
    struct Image: Equatable {
        var kind: Kind
        var bytes: [UInt8]
        var width: Int
        var height: Int
    }

    enum Failure: Error, Equatable, CustomStringConvertible {
        case unknownType
        case tooManyPixels(width: Int, height: Int)
        case malformed(Kind, String)
        case unavailable(String)

        var description: String {
            switch self {
            case .unknownType: return "the body is not a JPEG, PNG or WebP image (judged by its first bytes, not its Content-Type)"
            case .tooManyPixels(let width, let height):
                return "the image is \(width) × \(height) pixels (\((width * height + 500_000) / 1_000_000) megapixels); "
                    + "the most is \(maximumPixels / 1_000_000) megapixels: send a smaller image"
            case .malformed(let kind, let why): return "the \(kind.rawValue) image cannot be decoded: \(why)"
            case .unavailable(let why): return "images cannot be read here: \(why)"
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

    /// The width and height the image's header declares, without decoding its pixels. The
    /// loader libvips picks (its class name, `VipsForeignLoadPngBuffer`) must be the one for
    /// the type the first bytes claim.
    static func size(of bytes: [UInt8], kind: Kind) throws(Failure) -> (width: Int, height: Int) {
        try start()
        var width: Int32 = 0, height: Int32 = 0
        var loader = [CChar](repeating: 0, count: 64)
        let status = bytes.withUnsafeBytes { buffer in
            geoquery_vips_header(buffer.baseAddress, buffer.count, &width, &height, &loader, loader.count)
        }
        guard status == 0 else { throw .malformed(kind, lastError()) }
        // The loader libvips picked must be the one for the type the bytes claim.
        let name = String(decoding: loader.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard name.lowercased().contains(kind == .jpeg ? "jpeg" : kind == .png ? "png" : "webp") else {
            throw .malformed(kind, "libvips reads it as \(name)")
        }
        return (Int(width), Int(height))
    }

    /// The image decoded and encoded again, without metadata; refused past ``maximumPixels``
    /// before its pixels are decoded.
    static func sanitize(_ bytes: [UInt8]) throws(Failure) -> Image {
        guard let kind = kind(of: bytes) else { throw .unknownType }
        let (width, height) = try size(of: bytes, kind: kind)
        guard width > 0, height > 0, width * height <= maximumPixels else { throw .tooManyPixels(width: width, height: height) }
        return try reencode(bytes, kind: kind, width: width)
    }

    /// A stored photo at most `width` pixels wide, in its own format (never enlarged).
    static func variant(_ bytes: [UInt8], width: Int) throws(Failure) -> Image {
        guard let kind = kind(of: bytes) else { throw .unknownType }
        let size = try Self.size(of: bytes, kind: kind)
        guard size.width * size.height <= maximumPixels else { throw .tooManyPixels(width: size.width, height: size.height) }
        return try reencode(bytes, kind: kind, width: width)
    }

    private static func reencode(_ bytes: [UInt8], kind: Kind, width: Int) throws(Failure) -> Image {
        var output: UnsafeMutableRawPointer?
        var length = 0
        var outWidth: Int32 = 0, outHeight: Int32 = 0
        let status = bytes.withUnsafeBytes { buffer in
            geoquery_vips_reencode(buffer.baseAddress, buffer.count, Int32(clamping: width), kind.suffix, &output, &length, &outWidth, &outHeight)
        }
        defer { if let output { g_free(output) } }
        guard status == 0, let output else { throw .malformed(kind, lastError()) }
        let encoded = [UInt8](UnsafeRawBufferPointer(start: output, count: length))
        return Image(kind: kind, bytes: encoded, width: Int(outWidth), height: Int(outHeight))
    }

    private static func start() throws(Failure) {
        guard geoquery_vips_init() == 0 else { throw .unavailable("libvips did not start (install Debian's libvips42)") }
    }

    /// libvips's sentence, on one line and short.
    private static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        geoquery_vips_take_error(&buffer, buffer.count)
        let text =
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return text.isEmpty ? "it is damaged or truncated" : text
    }
}
