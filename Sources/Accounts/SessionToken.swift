import Crypto
import Foundation

/// Bearer tokens: 256 random bits as base64url text. Only ``hash(_:)`` of a token is stored,
/// so a copy of the database opens no session.
public enum SessionToken {
    /// A new token from the system's cryptographic random source.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Lower-case hex SHA-256 of the token's UTF-8 bytes.
    public static func hash(_ token: String) -> String {
        Hex.lowercase(SHA256.hash(data: Data(token.utf8)))
    }

    /// A session's public name: 16 hex digits of the SHA-256 of its token's hash. It names the
    /// session in `/v1/me/sessions` without showing the stored key, and opens nothing.
    public static func publicID(ofHash tokenHash: String) -> String {
        String(hash(tokenHash).prefix(16))
    }

    /// Lower-case hex SHA-256 of bytes (content addresses of photos).
    public static func sha256Hex(_ bytes: some DataProtocol) -> String {
        Hex.lowercase(SHA256.hash(data: bytes))
    }
}
