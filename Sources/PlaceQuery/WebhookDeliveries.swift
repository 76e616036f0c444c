import Foundation

/// A webhook delivery that is still to be made: the notification's body, whose it is, and how
/// many attempts have failed so far.
public struct PendingDelivery: Sendable, Hashable {
    /// The notification's id (one delivery per notification).
    public var notificationID: String
    /// The user whose webhook receives it (their URL and secret are read when it is sent).
    public var username: String
    /// The JSON body to send, as it was when the notification was made.
    public var body: String
    /// Attempts that have failed so far.
    public var failedAttempts: Int

    public init(notificationID: String, username: String, body: String, failedAttempts: Int) {
        self.notificationID = notificationID
        self.username = username
        self.body = body
        self.failedAttempts = failedAttempts
    }
}

/// Webhook deliveries kept where every server of a deployment sees them, so that a delivery
/// waiting for its next attempt survives a restart, and one server — not each — makes it.
///
/// A delivery is *due* from a time; taking it (``claimDeliveries(dueBy:leaseUntil:only:limit:)``)
/// moves that time to the end of a lease, so no other claim takes it meanwhile, and a server
/// that stops in the middle of an attempt leaves it to be taken again once the lease ends.
/// Implementations: `SQLiteUserStore` and `PostGISUserStore`; ``WebhookDeliveryConformance``
/// (in the conformance suite) states the behaviour.
public protocol WebhookDeliveryStore: Sendable {
    /// Keeps a delivery of `notificationID` with its first attempt under way (taken until
    /// `leaseUntil` by the caller). A second call for the same notification changes nothing.
    func queueDelivery(_ delivery: PendingDelivery, leaseUntil: Date) async throws
    /// Takes up to `limit` deliveries due by `now`, the longest due first — only the delivery
    /// of notification `only`, when given — each leased until `leaseUntil`. Two claims at once
    /// never take the same delivery.
    func claimDeliveries(dueBy now: Date, leaseUntil: Date, only: String?, limit: Int) async throws -> [PendingDelivery]
    /// After a failed attempt: `failedAttempts` so far, due again at `dueAt`.
    func rescheduleDelivery(of notificationID: String, failedAttempts: Int, dueAt: Date) async throws
    /// Forgets a delivery that was made or given up.
    func finishDelivery(of notificationID: String) async throws
}
