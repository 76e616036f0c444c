import Accounts
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The request context of every route: Hummingbird's basic one, the client's address (which
/// sign-in rate limits count by) and, on the routes of a ``SessionAuthenticator``, who signed
/// the request. The address is the socket's peer: behind a proxy that is the proxy, so put
/// per-client limits in the proxy too (`X-Forwarded-For` is not trusted, since any client can
/// send it).
public struct ServiceRequestContext: RequestContext, RemoteAddressRequestContext, AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The connection, to close its input after refusing a body by its declared size.
    let channel: (any Channel)?
    /// The account whose bearer token the request carries, set by ``SessionAuthenticator`` on
    /// the routes that read it; nil for an anonymous request.
    public var identity: SignedIn?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// The client's IP address as text (`unknown` when the channel has none, as in tests).
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }

    /// Who asks and their accepted friends, whose friends-only gems a query lists to them
    /// (nil and none for an anonymous request).
    var viewerScope: (String?, [String]) { (identity?.username, identity?.friends ?? []) }
}

/// The context of the routes only a signed-in account may call: made from the service's
/// context after ``SessionAuthenticator`` ran, or the request is answered 401 before its
/// handler runs. A handler reads ``user`` and checks nothing itself.
public struct SignedInRequestContext: ChildRequestContext {
    public typealias ParentContext = ServiceRequestContext

    public var coreContext: CoreRequestContextStorage
    /// The signed-in account.
    public let user: SignedIn
    let remoteAddress: SocketAddress?
    let channel: (any Channel)?

    public init(context: ServiceRequestContext) throws {
        guard let user = context.identity else { throw AccountError.notSignedIn }
        coreContext = context.coreContext
        self.user = user
        remoteAddress = context.remoteAddress
        channel = context.channel
    }

    /// The client's IP address as text (`unknown` when the channel has none, as in tests).
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
