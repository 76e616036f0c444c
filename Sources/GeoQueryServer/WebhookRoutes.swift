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
        let groups = routeGroups(router)
        let bound = RequestBound.cancelling(configuration.requestTimeout)
        groups.members.route(.put, "/v1/me/webhook", in: &table, bound: bound) { try await setWebhook($0, $1) }
        groups.members.route(.get, "/v1/me/webhook", in: &table, bound: bound) { try await showWebhook($0, $1) }
        groups.members.route(.delete, "/v1/me/webhook", in: &table, bound: bound) { try await removeWebhook($0, $1) }
    }

    /// `PUT /v1/me/webhook`.
    func setWebhook(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let signer = try requireWebhookSigner()
        let body = try await JSONBody(request, limit: 4_096, allowed: ["url"])
        let text = try body.requiredString("url", maxLength: 2_000)
        let url = try await checkedWebhookURL(text)
        let account = try await changeAccount(user.username) { account in
            account.profile.webhookURL = url.absoluteString
            account.profile.webhookID = "wh_" + Self.newGemID()
        }
        let secret = signer.secret(username: user.username, webhookID: account.profile.webhookID ?? "")
        return .json(
            .object([
                ("url", .string(url.absoluteString)), ("id", .optional(account.profile.webhookID)), ("secret", .string(secret)),
                ("signature_header", .string(Self.webhookSignatureHeader)),
                ("signature", .string("t=<unix seconds>,v1=<hex HMAC-SHA256 with the secret's UTF-8 bytes as key over \"<t>.<body>\">")),
            ]), status: .created)
    }

    /// `GET /v1/me/webhook`.
    func showWebhook(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        guard let url = user.account.profile.webhookURL else { throw APIProblem(.notFound, "you have no webhook: PUT /v1/me/webhook sets one") }
        return .json(.object([("url", .string(url)), ("id", .optional(user.account.profile.webhookID))]))
    }

    /// `DELETE /v1/me/webhook`.
    func removeWebhook(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        guard user.account.profile.webhookURL != nil else { throw APIProblem(.notFound, "you have no webhook") }
        _ = try await changeAccount(user.username) { account in
            account.profile.webhookURL = nil
            account.profile.webhookID = nil
        }
        return Response(status: .noContent)
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
            let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else {
            throw APIProblem.badRequest(
                "url '\(text.prefix(100))' is invalid: give an http or https URL without credentials, e.g. https://example.org/hooks/geoquery")
        }
        guard !configuration.webhooksMayReachPrivateAddresses else { return url }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let addresses = await NetworkAddress.resolve(bare, within: .seconds(3)) else {
            throw APIProblem.badRequest("url host '\(host.prefix(100))' did not resolve within 3 s: check the name")
        }
        guard !addresses.isEmpty else { throw APIProblem.badRequest("url host '\(host.prefix(100))' does not resolve") }
        if let refused = addresses.first(where: { !NetworkAddress.isPublic($0) }) {
            throw APIProblem.badRequest(
                "url host '\(host.prefix(100))' resolves to \(refused), which is not a public address: webhooks go to public addresses only")
        }
        return url
    }
}
