import Accounts
import Foundation
import GeoQueryWire
import PlaceQuery
import Providers

/// Webhook deliveries: the first attempt at once, the retries after each of
/// ``ServiceConfiguration/webhookRetryDelays``, each delivery kept in the user data store
/// (``WebhookDeliveryStore``) until it is made or given up.
///
/// The server that made a notification attempts its delivery and, while it runs, the retries.
/// A delivery whose server stopped (a restart, a crash) stays due in the store, and the
/// periodic round (``deliverDueWebhooks(now:)``) of any server of the deployment takes it once
/// it is: a restart loses no delivery, and among several servers one makes each attempt.
extension GeoQueryService {
    /// How long a server holds a delivery it attempts before another may take it: longer than
    /// an attempt can take (the address check's 3 s and the request's 10 s).
    static let webhookDeliveryLease: TimeInterval = 60

    /// What deliveries are sent with: no redirect followed (a 3xx is a failed delivery), the
    /// address that was checked is the one connected to, at most 64 KiB of the answer read and
    /// nothing decompressed.
    var webhookTransport: OutboundHTTPTransport {
        OutboundHTTPTransport(
            reach: configuration.webhooksMayReachPrivateAddresses ? .anyAddress : .publicAddresses,
            maximumAnswerBytes: 64 << 10)
    }

    /// Queues the delivery of a notification to the webhook of `account`, if it has one, and
    /// attempts it in the background; during the account's quiet hours the delivery waits in
    /// the store until they end (when the periodic round takes it).
    func deliverWebhook(_ notification: UserNotification, to account: UserAccount, now: Date = Date()) {
        guard configuration.webhookKey != nil, let store = userData, account.profile.webhookURL != nil else { return }
        let quietUntil = account.profile.notifications?.quietHours?.end(after: now)
        Task.detached { [self] in
            var body = JSONWriter()
            OrderedJSON.object([
                ("id", .string(notification.id)), ("username", .string(notification.username)), ("kind", .string(notification.kind)),
                ("data", .object(notification.data.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ("created_at", Self.timestampJSON(notification.createdAt)),
            ]).write(to: &body)
            let delivery = PendingDelivery(
                notificationID: notification.id, username: notification.username,
                body: String(decoding: body.bytes, as: UTF8.self), failedAttempts: 0)
            do {
                try await store.queueDelivery(delivery, leaseUntil: quietUntil ?? Date().addingTimeInterval(Self.webhookDeliveryLease))
            } catch {
                logger.warning("webhook delivery of \(notification.id) not queued: \(error)")
                return
            }
            // Held until the quiet hours end: due then, for whichever server's round comes first.
            guard quietUntil == nil else { return }
            await attemptDelivery(delivery, store: store)
        }
    }

    /// Takes the deliveries that are due (their server stopped before it could make them) and
    /// attempts each in the background. - Returns: how many were taken.
    @discardableResult
    public func deliverDueWebhooks(now: Date = Date()) async throws -> Int {
        guard configuration.webhookKey != nil, let store = userData else { return 0 }
        let due = try await store.claimDeliveries(
            dueBy: now, leaseUntil: now.addingTimeInterval(Self.webhookDeliveryLease),
            only: nil, limit: 50)
        for delivery in due {
            Task.detached { [self] in await attemptDelivery(delivery, store: store) }
        }
        return due.count
    }

    /// Attempts a delivery this server holds, and its retries while this server runs; each
    /// retry is taken from the store again first, so that it is made once even when another
    /// server's round found it due meanwhile.
    func attemptDelivery(_ delivery: PendingDelivery, store: any UserDataStore) async {
        var delivery = delivery
        let delays = configuration.webhookRetryDelays
        do {
            while true {
                if await sendDelivery(delivery, store: store) {
                    try await store.finishDelivery(of: delivery.notificationID)
                    return
                }
                delivery.failedAttempts += 1
                guard delivery.failedAttempts <= delays.count else {
                    logger.warning(
                        "webhook delivery of \(delivery.notificationID) to \(delivery.username)'s URL given up after \(delivery.failedAttempts) attempts"
                    )
                    try await store.finishDelivery(of: delivery.notificationID)
                    return
                }
                let delay = delays[delivery.failedAttempts - 1]
                let dueAt = Date().addingTimeInterval(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                try await store.rescheduleDelivery(of: delivery.notificationID, failedAttempts: delivery.failedAttempts, dueAt: dueAt)
                try await Task.sleep(for: delay)
                guard
                    let again = try await store.claimDeliveries(
                        dueBy: dueAt, leaseUntil: Date().addingTimeInterval(Self.webhookDeliveryLease),
                        only: delivery.notificationID, limit: 1
                    ).first
                else {
                    return  // another server's round took it
                }
                delivery = again
            }
        } catch {
            // Left in the store: a round takes it again once it is due.
            logger.warning("webhook delivery of \(delivery.notificationID) paused: \(error)")
        }
    }

    /// One attempt: true when it is done — answered 2xx, or the user no longer has a webhook
    /// (nothing is sent then) — false when it should be tried again.
    func sendDelivery(_ delivery: PendingDelivery, store: any UserDataStore) async -> Bool {
        let attempt = delivery.failedAttempts + 1, attempts = configuration.webhookRetryDelays.count + 1
        do {
            guard let account = try await store.user(named: delivery.username) else { return true }
            guard let text = account.profile.webhookURL, let webhookID = account.profile.webhookID else { return true }
            let secret = try requireWebhookSigner().secret(username: account.username, webhookID: webhookID)
            let url = try await checkedWebhookURL(text)
            let payload = Data(delivery.body.utf8)
            let timestamp = Int(Date().timeIntervalSince1970)
            let signature = "t=\(timestamp),v1=" + WebhookSigner.signature(secret: secret, timestamp: timestamp, body: payload)
            let response = try await webhookTransport.send(
                ProviderRequest(
                    method: "POST", url: url,
                    headers: [
                        "Content-Type": "application/json", Self.webhookSignatureHeader: signature,
                        "X-GeoQuery-Delivery": delivery.notificationID, "User-Agent": "GeoQuery-Webhook/1",
                    ],
                    body: payload, timeout: 10))
            if (200..<300).contains(response.status) { return true }
            logger.info("webhook of \(delivery.username) answered \(response.status) (attempt \(attempt) of \(attempts))")
        } catch {
            logger.info("webhook of \(delivery.username) failed (attempt \(attempt) of \(attempts)): \(error)")
        }
        return false
    }
}
