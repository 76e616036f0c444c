import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basic one plus the client's address, which
/// sign-in rate limits count by. The address is the socket's peer: behind a proxy that is the
/// proxy, so put per-client limits in the proxy too (`X-Forwarded-For` is not trusted, since any
/// client can send it).
public struct ServiceRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The connection, to close its input after refusing a body by its declared size.
    let channel: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// The client's IP address as text (`unknown` when the channel has none, as in tests).
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
