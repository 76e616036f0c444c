import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The one client for every request GeoQuery sends elsewhere (providers, webhooks), with the
/// rules that keep a hostile answer or address from turning it inward or exhausting memory:
///
/// - the host is resolved once, every address it has is checked (public only, unless the
///   deployment allows more), and the connection goes to the address that was checked (no
///   second resolution between check and connect);
/// - no redirect is followed: a 3xx is the answer (a webhook counts it a failed delivery);
/// - at most ``maximumAnswerBytes`` of the answer are read, as sent: `Accept-Encoding: identity`
///   is asked for and nothing is decompressed, so a small compressed answer cannot inflate;
/// - the whole exchange, from resolution to the last byte, fits the request's timeout.
///
/// Built on AsyncHTTPClient (already part of the build through Hummingbird's test support),
/// chosen over `URLSession` because libcurl underneath follows its own redirect and decoding
/// settings and resolves the name again when it connects; AsyncHTTPClient can be told all three.
public struct OutboundHTTPTransport: HTTPTransport {
    /// Where requests may go.
    public enum Reach: Sendable, Hashable {
        /// Public unicast addresses only.
        case publicAddresses
        /// Public addresses, and any address of these host names (a provider's base URL the
        /// operator pointed at a local proxy or stand-in).
        case publicAddressesAnd(hosts: Set<String>)
        /// Any address (a deployment that lets webhooks reach its own network, tests).
        case anyAddress
    }

    public let reach: Reach
    /// The most bytes of an answer read; past it the request fails
    /// (``TransportFailure/answerTooLarge(limit:)``).
    public let maximumAnswerBytes: Int

    public init(reach: Reach = .publicAddresses, maximumAnswerBytes: Int = 8 << 20) {
        self.reach = reach
        self.maximumAnswerBytes = maximumAnswerBytes
    }

    public func send(_ request: ProviderRequest) async throws -> ProviderResponse {
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else {
            throw TransportFailure.connection("\(request.url.absoluteString.prefix(100)) is not an http(s) URL without credentials")
        }
        let timeout = request.timeout
        let started = Date()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let addresses = await NetworkAddress.resolve(bare, within: .milliseconds(Int64(max(0.1, min(timeout, 5)) * 1000))) else {
            throw TransportFailure.timedOut(seconds: timeout)
        }
        guard let address = addresses.first else { throw TransportFailure.connection("\(bare.prefix(100)) does not resolve") }
        if let refused = addresses.first(where: { !mayReach($0, host: bare) }) {
            throw TransportFailure.refusedAddress(host: String(bare.prefix(100)), address: refused)
        }
        let remaining = timeout - Date().timeIntervalSince(started)
        guard remaining > 0 else { throw TransportFailure.timedOut(seconds: timeout) }

        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(Int64(min(remaining, 10) * 1000)), read: .milliseconds(Int64(remaining * 1000))),
            decompression: .disabled)
        configuration.connectionPool = .init(idleTimeout: .seconds(1))
        // A refused connection is the answer (the provider's retry policy decides what follows);
        // AsyncHTTPClient would otherwise try again until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        // The name goes to the address that was checked; TLS still checks the certificate
        // against the name.
        if address != bare { configuration.dnsOverride = [bare: address] }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        defer { _ = client.shutdown() as EventLoopFuture<Void>? }

        var outbound = HTTPClientRequest(url: request.url.absoluteString)
        outbound.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outbound.headers.replaceOrAdd(name: name, value: value) }
        outbound.headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
        if let body = request.body { outbound.body = .bytes(ByteBuffer(bytes: body)) }
        let limit = maximumAnswerBytes
        let deadline = NIODeadline.now() + .milliseconds(Int64(remaining * 1000))
        do {
            let response = try await client.execute(outbound, deadline: deadline)
            if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > limit {
                throw TransportFailure.answerTooLarge(limit: limit)
            }
            let body = try await response.body.collect(upTo: limit)
            var headers: [String: String] = [:]
            for field in response.headers { headers[field.name] = headers[field.name].map { $0 + ", " + field.value } ?? field.value }
            return ProviderResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch let failure as TransportFailure {
            throw failure
        } catch is NIOTooManyBytesError {
            throw TransportFailure.answerTooLarge(limit: limit)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw TransportFailure.timedOut(seconds: timeout)
        } catch {
            throw TransportFailure.connection(String(describing: error).prefix(200).description)
        }
    }

    func mayReach(_ address: String, host: String) -> Bool {
        switch reach {
        case .anyAddress: return true
        case .publicAddresses: return NetworkAddress.isPublic(address)
        case .publicAddressesAnd(let hosts): return hosts.contains(host.lowercased()) || NetworkAddress.isPublic(address)
        }
    }
}
