import Foundation
import HTTPTypes
import Hummingbird

/// An answer that changes only with a new version of the service (the OpenAPI description, the
/// taxonomy): its bytes made once, with an entity tag, so a client that already holds it gets
/// `304 Not Modified` and no body.
struct UnchangingAnswer: Sendable {
    let bytes: [UInt8]
    let contentType: String
    let cacheControl: String
    /// A strong entity tag: the bytes' 64-bit FNV-1a hash, quoted. It names a version of the bytes
    /// for caches; it is not a security check.
    let entityTag: String

    init(bytes: [UInt8], contentType: String = "application/json", cacheControl: String) {
        self.bytes = bytes
        self.contentType = contentType
        self.cacheControl = cacheControl
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let hex = String(hash, radix: 16)
        entityTag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// 304 when `If-None-Match` names this tag (or is `*`), else the bytes; both with the tag.
    func response(to request: Request) -> Response {
        let headers: HTTPFields = [.eTag: entityTag, .cacheControl: cacheControl]
        let wanted = request.headers[values: .ifNoneMatch]
        if !wanted.isEmpty, Self.matches(wanted.joined(separator: ","), entityTag) {
            return Response(status: .notModified, headers: headers)
        }
        return .bytes(bytes, contentType: contentType, headers: headers)
    }

    /// Whether an `If-None-Match` value (`*`, or tags separated by commas, weak or strong) names
    /// `tag`: weak comparison, as RFC 9110 asks for `If-None-Match`.
    static func matches(_ header: String, _ tag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }
    }
}
