import Foundation

/// What every adapter shares: where keys and base URLs come from, how requests are sent,
/// retried and timed out, and the clock (for provenance and cache expiry).
public struct ProviderSettings: Sendable {
    public var environment: ProviderEnvironment
    public var transport: any HTTPTransport
    public var retry: RetryPolicy
    /// Per request, in seconds.
    public var timeout: TimeInterval
    public var now: @Sendable () -> Date

    /// - Parameter transport: what sends the requests; by default an ``OutboundHTTPTransport``
    ///   that reaches public addresses, and the hosts of the base URLs the environment overrides.
    public init(
        environment: ProviderEnvironment = ProviderEnvironment(), transport: (any HTTPTransport)? = nil,
        retry: RetryPolicy = .default, timeout: TimeInterval = 10, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.environment = environment
        self.transport = transport ?? OutboundHTTPTransport(reach: .publicAddressesAnd(hosts: environment.overriddenHosts))
        self.retry = retry
        self.timeout = timeout
        self.now = now
    }

    /// A client for `provider` that redacts `key`.
    func client(
        _ provider: ProviderName, key: String,
        errorMessage: @escaping @Sendable (ProviderResponse) -> (code: String?, message: String) = ProviderClient.standardErrorMessage
    ) -> ProviderClient {
        ProviderClient(provider: provider, transport: transport, retry: retry, timeout: timeout, secrets: [key], errorMessage: errorMessage)
    }

    /// The override from the environment, else `defaultBase`.
    func baseURL(_ provider: ProviderName, default defaultBase: String) throws -> URL {
        if let override = try environment.baseURLOverride(for: provider) { return override }
        guard let base = URL(string: defaultBase) else {
            throw ProviderError.invalidSetting(variable: "\(provider) base URL", value: defaultBase, expected: "an absolute http(s) URL")
        }
        return base
    }
}
