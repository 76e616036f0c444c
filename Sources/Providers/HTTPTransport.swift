import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request as an adapter builds it.
public struct ProviderRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    /// Header names as sent; looked up case-insensitively by servers.
    public var headers: [String: String]
    public var body: Data?
    /// The whole exchange, connection to last byte, must finish within this many seconds.
    public var timeout: TimeInterval

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil,
                timeout: TimeInterval = 10) {
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
/// HTTP client can stand in for the default ``URLSessionTransport``.
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
}

/// The default transport: Foundation's `URLSession` (libcurl underneath on Linux).
///
/// Chosen over AsyncHTTPClient because it ships with the toolchain: no SwiftNIO build (2.5–4.5
/// minutes per clean build here) for a handful of small JSON requests per search. Each request
/// carries its own timeout, enforced twice: by `URLRequest.timeoutInterval` and by an overall
/// deadline, so a server that trickles bytes cannot hold a search open.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: ProviderRequest) async throws -> ProviderResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let session = self.session
        let timeout = request.timeout
        let prepared = urlRequest
        let response = try await withDeadline(seconds: timeout) {
            do {
                let (data, response) = try await session.data(for: prepared)
                guard let http = response as? HTTPURLResponse else {
                    throw TransportFailure.connection("not an HTTP response")
                }
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name] = value }
                }
                return ProviderResponse(status: http.statusCode, headers: headers, body: data)
            } catch let error as URLError where error.code == .timedOut {
                throw TransportFailure.timedOut(seconds: timeout)
            } catch let error as URLError {
                throw TransportFailure.connection(error.localizedDescription)
            }
        }
        guard let response else { throw TransportFailure.timedOut(seconds: timeout) }
        return response
    }
}
