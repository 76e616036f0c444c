import Crypto
import Foundation

/// Signs webhook deliveries. Each user's secret is derived from the deployment's key and the
/// webhook's id (HMAC-SHA256), so no secret is ever stored: the key lives outside the database,
/// and registering the webhook again (a new id) rotates the secret.
public struct WebhookSigner: Sendable {
    let key: SymmetricKey

    /// - Parameter key: at least 32 bytes (``makeKey()``).
    public init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    /// 32 random bytes from the system's cryptographic source.
    public static func makeKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The user's secret for the webhook with this id, lower-case hex.
    public func secret(username: String, webhookID: String) -> String {
        Self.hex(HMAC<SHA256>.authenticationCode(for: Data("webhook:\(username):\(webhookID)".utf8), using: key))
    }

    /// The signature of a delivery: HMAC-SHA256 with the secret's bytes as key over
    /// `"<timestamp>.<body>"`, lower-case hex. A receiver recomputes it and checks the timestamp
    /// is recent, so a captured delivery cannot be replayed later.
    public static func signature(secret: String, timestamp: Int, body: Data) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        return hex(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8))))
    }

    static func hex(_ code: HMAC<SHA256>.MAC) -> String { Hex.lowercase(code) }
}
