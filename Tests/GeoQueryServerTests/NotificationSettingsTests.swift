import Accounts
import Foundation
import HTTPTypes
import PlaceQuery
import ProviderTestSupport
import Testing

@testable import GeoQueryServer

/// Notification settings: a kind turned off is not made, one kept in the app only is not sent
/// to the webhook, and during quiet hours a delivery waits for their end.
extension WebhookTests {
    @Test func settingsChooseTheKindsTheChannelsAndTheQuietHours() async throws {
        let (received, receiver) = try await Self.acceptingReceiver()
        let fixture = try await AccountFixture { configuration in
            configuration.webhookKey = WebhookSigner.makeKey()
            configuration.webhooksMayReachPrivateAddresses = true
        }
        try await fixture.test { client in
            let ann = try await client.account("ann"), bob = try await client.account("bob"), cat = try await client.account("cat")
            #expect(
                try await client.send(.put, "/v1/me/webhook", token: bob, json: #"{"url":"\#(receiver.baseURL.absoluteString)/hook"}"#).status
                    == .created)
            let changed = try await client.send(
                .patch, "/v1/me", token: bob,
                json: #"{"settings":{"notifications":{"channels":{"new_follower":[],"friend_request":["in_app"]}}}}"#)
            let shown = (changed.json["settings"] as? [String: Any])?["notifications"] as? [String: Any]
            let channels = shown?["channels"] as? [String: [String]] ?? [:]
            #expect(channels["new_follower"] == [] && channels["friend_request"] == ["in_app"], "\(changed.text)")
            #expect(channels["trip_invitation"] == ["in_app", "webhook"] && shown?["quiet_hours"] is NSNull, "the others keep every channel")

            // Turned off: nothing is made; in the app only: kept, not delivered.
            #expect(try await client.send(.put, "/v1/me/following/bob", token: ann).status == .created)
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: ann).status == .created)
            try await Task.sleep(for: .milliseconds(300))
            let kinds = ((try await client.send(.get, "/v1/me/notifications", token: bob)).json["notifications"] as? [[String: Any]] ?? [])
                .compactMap { $0["kind"] as? String }
            #expect(kinds == ["friend_request"], "no new_follower: \(kinds)")
            #expect(received.all.isEmpty, "a kind kept in the app only reaches no webhook")

            // Friend requests to the webhook again, and quiet from an hour ago to an hour from now
            // (UTC): kept at once, delivered when the quiet hours end.
            let utc = Calendar.current.dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
            let hour = utc.hour ?? 0
            let quiet = String(
                format:
                    #"{"notifications":{"channels":{"friend_request":["in_app","webhook"]},"quiet_hours":{"start":"%02d:00","end":"%02d:00","time_zone":"UTC"}}}"#,
                (hour + 23) % 24, (hour + 1) % 24)
            #expect(try await client.send(.patch, "/v1/me", token: bob, json: quiet).status == .ok)
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: cat).status == .created)
            // Queued in the background: wait for it, never due before the quiet hours end. Once
            // found (by a claim as of their end), it is leased back to be due at once.
            var held: [PendingDelivery] = []
            let queued = ContinuousClock.now + .seconds(60)
            while held.isEmpty && ContinuousClock.now < queued {
                #expect(try await fixture.service.deliverDueWebhooks() == 0, "not due before the quiet hours end")
                held = try await fixture.store.claimDeliveries(
                    dueBy: Date().addingTimeInterval(2 * 3_600), leaseUntil: Date(), only: nil, limit: 10)
                if held.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(held.count == 1 && received.all.isEmpty, "held in the store, nothing pushed during quiet hours")
            #expect(try await fixture.service.deliverDueWebhooks() == 1, "delivered when due")
            let deadline = ContinuousClock.now + .seconds(60)
            while received.all.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(received.all.first?.jsonBody?["kind"] as? String == "friend_request")

            // Bad settings are refused, naming the value; null goes back to every kind at any hour.
            for (body, named) in [
                (#"{"notifications":{"channels":{"nope":[]}}}"#, "nope"), (#"{"notifications":{"channels":{"trip_answer":["webhook"]}}}"#, "webhook"),
                (#"{"notifications":{"channels":{"trip_answer":["sms"]}}}"#, "sms"),
                (#"{"notifications":{"quiet_hours":{"start":"25:00","end":"07:00","time_zone":"UTC"}}}"#, "25:00"),
                (#"{"notifications":{"quiet_hours":{"start":"22:00","end":"07:00","time_zone":"Mars/Base"}}}"#, "Mars/Base"),
            ] {
                let refused = try await client.send(.patch, "/v1/me", token: bob, json: body)
                #expect(refused.status == .badRequest && refused.text.contains(named), "\(body): \(refused.text)")
            }
            let reset = try await client.send(.patch, "/v1/me", token: bob, json: #"{"notifications":null}"#)
            let resetChannels = ((reset.json["settings"] as? [String: Any])?["notifications"] as? [String: Any])?["channels"] as? [String: [String]]
            #expect(resetChannels?["new_follower"] == ["in_app", "webhook"], "\(reset.text)")
        }
        await receiver.stop()
    }
}
