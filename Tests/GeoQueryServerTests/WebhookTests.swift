import Accounts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlaceQuery
import ProviderTestSupport
import Providers
import Testing

@testable import GeoQueryServer

/// Webhooks: a notification reaches the user's URL signed with the secret they were given,
/// a failed delivery is retried, and URLs into the service's own network are refused.
@Suite(.ownThreads) struct WebhookTests {
    final class Received: @unchecked Sendable {
        // @unchecked Sendable: every field is touched only under `lock`.
        let lock = NSLock()
        var requests: [LoopbackServer.Request] = []
        func add(_ request: LoopbackServer.Request) -> Int {
            lock.withLock {
                requests.append(request)
                return requests.count
            }
        }
        var all: [LoopbackServer.Request] { lock.withLock { requests } }
    }

    /// A webhook receiver on loopback that answers every delivery 200, and what it received.
    static func acceptingReceiver() async throws -> (Received, LoopbackServer) {
        let received = Received()
        let receiver = try await LoopbackServer.start { request in
            _ = received.add(request)
            return .json("{}")
        }
        return (received, receiver)
    }

    @Test func aNotificationIsDeliveredSignedAndRetried() async throws {
        let received = Received()
        // The first delivery fails; the retry succeeds.
        let receiver = try await LoopbackServer.start { request in
            received.add(request) == 1 ? .json(#"{"error":"busy"}"#, status: 503) : .json("{}")
        }
        let fixture = try await AccountFixture { configuration in
            configuration.webhookKey = WebhookSigner.makeKey()
            configuration.webhooksMayReachPrivateAddresses = true
            configuration.webhookRetryDelays = [.milliseconds(50), .milliseconds(50)]
        }
        try await fixture.test { client in
            let ann = try await client.account("ann"), bob = try await client.account("bob")
            let set = try await client.send(.put, "/v1/me/webhook", token: bob, json: #"{"url":"\#(receiver.baseURL.absoluteString)/hook"}"#)
            #expect(set.status == .created, "\(set.text)")
            let secret = try #require(set.json["secret"] as? String)
            #expect(try await client.send(.get, "/v1/me/webhook", token: bob).json["secret"] == nil, "the secret is shown once")
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: ann).status == .created)
            let deadline = ContinuousClock.now + .seconds(120)
            while received.all.count < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let deliveries = received.all
            #expect(deliveries.count == 2, "one failure, one retry")
            let last = try #require(deliveries.last)
            #expect(last.method == "POST" && last.path == "/hook")
            #expect((last.jsonBody?["kind"] as? String) == "friend_request" && (last.jsonBody?["username"] as? String) == "bob")
            let header = last.headers.first { $0.key.lowercased() == "x-geoquery-signature" }?.value ?? ""
            let parts = Dictionary(
                uniqueKeysWithValues: header.split(separator: ",").compactMap { part -> (String, String)? in
                    let pair = part.split(separator: "=", maxSplits: 1)
                    return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
                })
            let timestamp = try #require(parts["t"].flatMap { Int($0) })
            #expect(parts["v1"] == WebhookSigner.signature(secret: secret, timestamp: timestamp, body: last.body), "signed with the user's secret")
            #expect(parts["v1"] != WebhookSigner.signature(secret: secret + "x", timestamp: timestamp, body: last.body))
            // Removing it stops deliveries.
            #expect(try await client.send(.delete, "/v1/me/webhook", token: bob).status == .noContent)
            #expect(try await client.send(.delete, "/v1/me/friends/ann", token: bob).status == .noContent)
            #expect(try await client.send(.post, "/v1/me/friends/bob", token: ann).status == .created)
            try await Task.sleep(for: .milliseconds(300))
            #expect(received.all.count == 2)
        }
        await receiver.stop()
    }

    /// Deliveries a stopped server left in the store (queued, their lease over) are made by the
    /// next servers' rounds: two rounds at once on one store make each delivery once, signed
    /// with the user's secret; a delivery to a user who has no webhook any more is dropped;
    /// nothing is left in the store afterwards.
    @Test func deliveriesAStoppedServerLeftAreMadeOnceByTheNextServers() async throws {
        let (received, receiver) = try await Self.acceptingReceiver()
        let fixture = try await AccountFixture { configuration in
            configuration.webhookKey = WebhookSigner.makeKey()
            configuration.webhooksMayReachPrivateAddresses = true
            // Retries left for every queued delivery, those that already failed once too: with
            // one, a loaded run (an attempt past the 10 s answer limit) dropped all six of them.
            configuration.webhookRetryDelays = [.milliseconds(50), .milliseconds(50), .milliseconds(50)]
        }
        let store = fixture.store
        let second = GeoQueryService(
            index: fixture.service.index, userData: store, configuration: fixture.service.configuration,
            logger: fixture.service.logger)
        try await fixture.test { client in
            let bob = try await client.account("bob"), cat = try await client.account("cat")
            let set = try await client.send(.put, "/v1/me/webhook", token: bob, json: #"{"url":"\#(receiver.baseURL.absoluteString)/hook"}"#)
            let secret = try #require(set.json["secret"] as? String)
            #expect(
                try await client.send(.put, "/v1/me/webhook", token: cat, json: #"{"url":"\#(receiver.baseURL.absoluteString)/cat"}"#).status
                    == .created)
            #expect(try await client.send(.delete, "/v1/me/webhook", token: cat).status == .noContent)
            // As a server that stopped mid-way leaves them: leased until a moment ago.
            let past = Date().addingTimeInterval(-1)
            for n in 0..<12 {
                try await store.queueDelivery(
                    PendingDelivery(
                        notificationID: "n_left\(n)", username: "bob",
                        body: #"{"id":"n_left\#(n)","kind":"friend_request"}"#, failedAttempts: n % 2),
                    leaseUntil: past)
            }
            try await store.queueDelivery(PendingDelivery(notificationID: "n_cat", username: "cat", body: "{}", failedAttempts: 0), leaseUntil: past)
            async let one = fixture.service.deliverDueWebhooks()
            async let two = second.deliverDueWebhooks()
            let taken = try await one + two
            #expect(taken == 13, "every due delivery taken by one round or the other: \(taken)")
            let deadline = ContinuousClock.now + .seconds(120)
            while received.all.count < 12 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            // Each delivery leaves the store once its answer is in, which on a busy machine may
            // come well after the receiver saw the request. (A look takes what is still there;
            // an attempt under way still removes its delivery when it ends.)
            var left: [PendingDelivery] = []
            repeat {
                try await Task.sleep(for: .milliseconds(100))
                left = try await store.claimDeliveries(
                    dueBy: Date().addingTimeInterval(3_600), leaseUntil: Date().addingTimeInterval(3_600),
                    only: nil, limit: 50)
            } while !left.isEmpty && ContinuousClock.now < deadline
            #expect(left.isEmpty, "nothing left to deliver: \(left.map(\.notificationID))")
            try await Task.sleep(for: .milliseconds(300))
            let deliveries = received.all
            #expect(deliveries.count == 12 && deliveries.allSatisfy { $0.path == "/hook" }, "\(deliveries.map(\.path))")
            let ids = deliveries.compactMap { $0.headers.first { $0.key.lowercased() == "x-geoquery-delivery" }?.value }
            #expect(Set(ids) == Set((0..<12).map { "n_left\($0)" }) && ids.count == 12, "each made once: \(ids.sorted())")
            for delivery in deliveries {
                let header = delivery.headers.first { $0.key.lowercased() == "x-geoquery-signature" }?.value ?? ""
                let fields = header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
                let timestamp = Int(fields.first { $0.first == "t" }?.last ?? "") ?? 0
                #expect(fields.first { $0.first == "v1" }?.last == WebhookSigner.signature(secret: secret, timestamp: timestamp, body: delivery.body))
            }
        }
        await receiver.stop()
    }

    @Test func urlsIntoTheServicesOwnNetworkAreRefused() async throws {
        let fixture = try await AccountFixture { $0.webhookKey = WebhookSigner.makeKey() }
        try await fixture.test { client in
            let ann = try await client.account("ann")
            for url in [
                "http://127.0.0.1:9/x", "http://10.1.2.3/x", "http://[::1]/x", "http://169.254.169.254/latest/meta-data",
                "http://192.168.0.1/", "http://[fd00::1]/", "http://[::ffff:127.0.0.1]/", "http://localhost:8080/",
                "http://[::127.0.0.1]/", "http://[2002:7f00:1::1]/", "http://[64:ff9b::a00:1]/", "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
            ] {
                let answer = try await client.send(.put, "/v1/me/webhook", token: ann, json: #"{"url":"\#(url)"}"#)
                #expect(answer.status == .badRequest && answer.text.contains("not a public address"), "\(url): \(answer.text)")
            }
            for url in ["ftp://example.org/", "https://user:pw@example.org/", "not a url"] {
                #expect(try await client.send(.put, "/v1/me/webhook", token: ann, json: #"{"url":"\#(url)"}"#).status == .badRequest, "\(url)")
            }
            #expect(try await client.send(.get, "/v1/me/webhook", token: ann).status == .notFound)
        }
        for address in ["8.8.8.8", "2606:4700::1111", "1.1.1.1", "2002:808:808::1", "64:ff9b::808:808"] {
            #expect(NetworkAddress.isPublic(address), "\(address)")
        }
        for address in [
            "100.64.0.1", "172.16.5.4", "0.0.0.0", "224.0.0.1", "fe80::1", "2001:db8::1",
            "::127.0.0.1", "::10.0.0.1", "2002:7f00:1::1", "2002:c0a8:101::1", "64:ff9b::7f00:1", "64:ff9b:1::808:808",
            "2001:0:4136:e378:8000:63bf:80ff:fffe", "2001:0:7f00:1::1", "fec0::1",
        ] {
            #expect(!NetworkAddress.isPublic(address), "\(address)")
        }
    }
}
