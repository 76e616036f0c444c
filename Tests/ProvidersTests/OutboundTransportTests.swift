import Foundation
import ProviderTestSupport
import Testing

@testable import Providers

/// The outbound client's rules, over real HTTP on 127.0.0.1: no redirect followed, nothing
/// decompressed, a bounded answer, and no connection to an address it may not reach.
@Suite(.ownThreads) struct OutboundTransportTests {
    static let anywhere = OutboundHTTPTransport(reach: .anyAddress, maximumAnswerBytes: 64 << 10)

    /// A receiver that answers 302 or 307 towards another local server: the answer is the 3xx,
    /// and the other server hears nothing (302 once arrived there as a GET, 307 as a POST).
    @Test(arguments: [302, 307]) func redirectsAreNotFollowed(status: Int) async throws {
        let inside = try await LoopbackServer.start { _ in .json("{}") }
        defer { Task { await inside.stop() } }
        let target = inside.baseURL.absoluteString + "/x"
        let outside = try await LoopbackServer.start { _ in LoopbackServer.Reply(status: status, headers: ["Location": target]) }
        defer { Task { await outside.stop() } }
        let answer = try await Self.anywhere.send(
            ProviderRequest(
                method: "POST", url: outside.baseURL.appendingPathComponent("hook"),
                body: Data("{}".utf8), timeout: 10))
        #expect(answer.status == status)
        #expect(await inside.requests.isEmpty, "the redirect's target was not called")
    }

    /// A compressed answer arrives as sent (not inflated: a 1 MB gzip of 1 GiB once took the
    /// server to 2 GB), and `identity` is what was asked for.
    @Test func answersAreNotDecompressed() async throws {
        let gzip = Data([
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0xca, 0xcf, 0x56, 0xb2, 0x2a, 0x29, 0x2a,
            0x4d, 0xad, 0x05, 0x00, 0x90, 0x5f, 0xd4, 0xa7, 0x0b, 0x00, 0x00, 0x00,
        ])
        let server = try await LoopbackServer.start { _ in
            LoopbackServer.Reply(headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: gzip)
        }
        defer { Task { await server.stop() } }
        let answer = try await Self.anywhere.send(ProviderRequest(url: server.baseURL.appendingPathComponent("x")))
        #expect(answer.body == gzip)
        let asked = await server.requests.first?.headers.first { $0.key.lowercased() == "accept-encoding" }?.value
        #expect(asked == "identity")
    }

    /// At most the client's limit of an answer is read, declared or not.
    @Test func aLargeAnswerIsRefused() async throws {
        let server = try await LoopbackServer.start { _ in LoopbackServer.Reply(body: Data(repeating: 0x20, count: 1 << 20)) }
        defer { Task { await server.stop() } }
        await #expect(throws: TransportFailure.answerTooLarge(limit: 64 << 10)) {
            try await Self.anywhere.send(ProviderRequest(url: server.baseURL.appendingPathComponent("big")))
        }
    }

    /// Public only: a loopback address, by name or literal or an IPv6 form that carries it, is
    /// refused before any connection; the operator's own hosts are allowed by name.
    @Test func addressesOutsideTheReachAreNeverConnected() async throws {
        let server = try await LoopbackServer.start { _ in .json("{}") }
        defer { Task { await server.stop() } }
        let port = try #require(server.baseURL.port)
        let publicOnly = OutboundHTTPTransport(reach: .publicAddresses)
        for host in ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "[::127.0.0.1]", "[2002:7f00:1::1]"] {
            let url = try #require(URL(string: "http://\(host):\(port)/x"))
            do {
                _ = try await publicOnly.send(ProviderRequest(url: url, timeout: 5))
                Issue.record("\(host) was reached")
            } catch let failure as TransportFailure {
                guard case .refusedAddress = failure else {
                    Issue.record("\(host): \(failure)")
                    continue
                }
            }
        }
        #expect(await server.requests.isEmpty)
        let operators = OutboundHTTPTransport(reach: .publicAddressesAnd(hosts: ["127.0.0.1"]))
        #expect(try await operators.send(ProviderRequest(url: server.baseURL.appendingPathComponent("ok"))).status == 200)
    }

    /// A refused connection is the answer at once (a connection failure, not the time running
    /// out): AsyncHTTPClient retried it until its connect timeout, which made every call to a
    /// provider that is down take that long.
    @Test func aRefusedConnectionFailsAsAConnectionFailure() async throws {
        do {
            _ = try await Self.anywhere.send(ProviderRequest(url: URL(string: "http://127.0.0.1:9/x")!, timeout: 30))
            Issue.record("a closed port answered")
        } catch let failure as TransportFailure {
            guard case .connection = failure else {
                Issue.record("\(failure)")
                return
            }
        }
    }
}
