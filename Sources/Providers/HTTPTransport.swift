import Foundation

/// One HTTP request as an adapter builds it.
public struct ProviderRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    /// Header names as sent; looked up case-insensitively by servers.
    public var headers: [String: String]
    public var body: Data?
    /// The whole exchange, connection to last byte, must finish within this many seconds.
    public var timeout: TimeInterval

    public init(
        method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval = 10
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP response: status, headers (names lower-cased) and body.
public struct ProviderResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The header's value, by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What sends requests. The adapters only ever talk to this, so a proxy, a recorder or another
/// HTTP client can stand in for the default ``OutboundHTTPTransport``.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns whatever status came back; throws only when no response came
    /// (``TransportFailure``).
    func send(_ request: ProviderRequest) async throws -> ProviderResponse
}

/// Why no response came back.
public enum TransportFailure: Error, Sendable, Hashable {
    /// Nothing complete arrived within the request's timeout.
    case timedOut(seconds: TimeInterval)
    /// The connection could not be made or broke; the system's description.
    case connection(String)
    /// The host resolves to an address requests may not reach (loopback, a private network…).
    case refusedAddress(host: String, address: String)
    /// The answer is longer than the client reads.
    case answerTooLarge(limit: Int)
}
