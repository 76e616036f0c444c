import Accounts
import Foundation
import GeoQueryWire
import Hummingbird
import NIOPosix
import PlaceQuery
import Providers

/// `PUT/GET/DELETE /v1/me/webhook`: a URL that receives each of the user's notifications as
/// JSON, signed, retried with backoff; and the delivery itself.
///
/// The address is checked when the webhook is registered and again before each delivery (a
/// name may come to resolve elsewhere): loopback, private, link-local, carrier-grade NAT,
/// multicast and unspecified addresses are refused unless the deployment allows them, so a
/// user cannot make the service call into its own network. A name that changes its answer
/// between that check and the connection is not caught (the transport resolves it again).
extension GeoQueryService {
    static let webhookSignatureHeader = "X-GeoQuery-Signature"

    func addWebhookRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let bound = RequestBound.cancelling(configuration.requestTimeout)
        router.route(.put, "/v1/me/webhook", in: &table, bound: bound) { request, _ in
            let user = try await signedIn(request)
            let signer = try requireWebhookSigner()
            let body = try await JSONBody(request, limit: 4_096, allowed: ["url"])
            let text = try body.requiredString("url", maxLength: 2_000)
            let url = try await checkedWebhookURL(text)
            let account = try await changeAccount(user.username) { account in
                account.profile.webhookURL = url.absoluteString
                account.profile.webhookID = "wh_" + Self.newGemID()
            }
            let secret = signer.secret(username: user.username, webhookID: account.profile.webhookID ?? "")
            return .json(.object([
                ("url", .string(url.absoluteString)), ("id", .optional(account.profile.webhookID)), ("secret", .string(secret)),
                ("signature_header", .string(Self.webhookSignatureHeader)),
                ("signature", .string("t=<unix seconds>,v1=<hex HMAC-SHA256 with the secret's UTF-8 bytes as key over \"<t>.<body>\">")),
            ]), status: .created)
        }

        router.route(.get, "/v1/me/webhook", in: &table, bound: bound) { request, _ in
            let user = try await signedIn(request)
            guard let url = user.account.profile.webhookURL else { throw APIProblem(.notFound, "you have no webhook: PUT /v1/me/webhook sets one") }
            return .json(.object([("url", .string(url)), ("id", .optional(user.account.profile.webhookID))]))
        }

        router.route(.delete, "/v1/me/webhook", in: &table, bound: bound) { request, _ in
            let user = try await signedIn(request)
            guard user.account.profile.webhookURL != nil else { throw APIProblem(.notFound, "you have no webhook") }
            _ = try await changeAccount(user.username) { account in
                account.profile.webhookURL = nil
                account.profile.webhookID = nil
            }
            return Response(status: .noContent)
        }
    }

    func requireWebhookSigner() throws -> WebhookSigner {
        guard let key = configuration.webhookKey else {
            throw APIProblem(.serviceUnavailable, "this service sends no webhooks (it was started without a webhook key)")
        }
        return WebhookSigner(key: key)
    }

    /// An `http`/`https` URL without credentials whose host resolves only to addresses the
    /// deployment lets webhooks reach; 400 naming the URL or address otherwise.
    func checkedWebhookURL(_ text: String) async throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil else {
            throw APIProblem.badRequest("url '\(text.prefix(100))' is invalid: give an http or https URL without credentials, e.g. https://example.org/hooks/geoquery")
        }
        guard !configuration.webhooksMayReachPrivateAddresses else { return url }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let addresses = await WebhookAddress.resolve(bare, within: .seconds(3)) else {
            throw APIProblem.badRequest("url host '\(host.prefix(100))' did not resolve within 3 s: check the name")
        }
        guard !addresses.isEmpty else { throw APIProblem.badRequest("url host '\(host.prefix(100))' does not resolve") }
        if let refused = addresses.first(where: { !WebhookAddress.isPublic($0) }) {
            throw APIProblem.badRequest("url host '\(host.prefix(100))' resolves to \(refused), which is not a public address: webhooks go to public addresses only")
        }
        return url
    }
}

/// Name resolution and the address classes webhooks may not reach.
enum WebhookAddress {
    /// ``resolve(_:)`` on a thread of its own, answered nil when it takes longer than `limit`
    /// (getaddrinfo cannot be cancelled: a slow lookup finishes in the background, holding no
    /// worker of the service).
    static func resolve(_ host: String, within limit: Duration) async -> [String]? {
        let once = ResumeOnce()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let found = resolve(host)
                if once.claim() { continuation.resume(returning: found) }
            }
            let (seconds, attoseconds) = limit.components
            DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) {
                if once.claim() { continuation.resume(returning: nil) }
            }
        }
    }

    /// Every address `host` resolves to, as text (an IP literal is its own answer).
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(text) { addresses.append(text) }
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }

    /// Whether an address is a public unicast one (not loopback, private, link-local, CGNAT,
    /// multicast, reserved, unspecified, documentation, or an IPv4-mapped one of those).
    static func isPublic(_ text: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let b = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            return isPublicV4(b)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text.split(separator: "%").first.map(String.init) ?? text, &v6) == 1 else { return false }
        let b = withUnsafeBytes(of: v6) { Array($0) }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return isPublicV4(Array(b[12..<16])) }
        if b.allSatisfy({ $0 == 0 }) || (b[0..<15].allSatisfy { $0 == 0 } && b[15] == 1) { return false }  // :: and ::1
        if b[0] & 0xfe == 0xfc { return false }  // fc00::/7 unique local
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return false }  // fe80::/10 link-local
        if b[0] == 0xff { return false }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return false }  // 2001:db8::/32 documentation
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b { return false }  // 64:ff9b::/96 NAT64 (could reach IPv4 inside)
        return true
    }

    static func isPublicV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return false
        case (100, 64...127): return false  // carrier-grade NAT
        case (169, 254): return false
        case (172, 16...31): return false
        case (192, 168): return false
        case (192, 0) where b[2] == 0 || b[2] == 2: return false  // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return false  // benchmarking
        case (198, 51) where b[2] == 100: return false
        case (203, 0) where b[2] == 113: return false
        default: return b[0] < 224  // multicast and reserved above
        }
    }
}

/// Lets exactly one of two racers resume a continuation.
final class ResumeOnce: @unchecked Sendable {
    // @unchecked Sendable: `done` is read and written only under `lock`.
    private let lock = NSLock()
    private var done = false
    func claim() -> Bool { lock.withLock { if done { return false }; done = true; return true } }
}
