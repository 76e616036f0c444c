import Dispatch
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Name resolution and the address classes outbound requests may not reach.
public enum NetworkAddress {
    /// ``resolve(_:)`` on a thread of its own, answered nil when it takes longer than `limit`
    /// (getaddrinfo cannot be cancelled: a slow lookup finishes in the background, holding no
    /// worker of the service).
    public static func resolve(_ host: String, within limit: Duration) async -> [String]? {
        let once = NIOLockedValueBox(false)
        let claim: @Sendable () -> Bool = {
            once.withLockedValue { done in
                if done { return false }
                done = true
                return true
            }
        }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let found = resolve(host)
                if claim() { continuation.resume(returning: found) }
            }
            let (seconds, attoseconds) = limit.components
            DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18) {
                if claim() { continuation.resume(returning: nil) }
            }
        }
    }

    /// Every address `host` resolves to, as text (an IP literal is its own answer).
    public static func resolve(_ host: String) -> [String] {
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

    /// Whether an address is a public unicast one: not loopback, private, link-local, CGNAT,
    /// multicast, reserved, unspecified or documentation, nor an IPv6 form that carries an IPv4
    /// address which is one of those (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
    /// 6to4 `2002::/16`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, Teredo `2001::/32`).
    public static func isPublic(_ text: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return isPublicV4(withUnsafeBytes(of: v4.s_addr) { Array($0) })
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text.split(separator: "%").first.map(String.init) ?? text, &v6) == 1 else { return false }
        let b = withUnsafeBytes(of: v6) { Array($0) }
        if b.allSatisfy({ $0 == 0 }) || (b[0..<15].allSatisfy { $0 == 0 } && b[15] == 1) { return false }  // :: and ::1
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return isPublicV4(Array(b[12..<16])) }  // mapped
        if b[0..<12].allSatisfy({ $0 == 0 }) { return isPublicV4(Array(b[12..<16])) }  // IPv4-compatible (deprecated)
        if b[0] == 0x20 && b[1] == 0x02 { return isPublicV4(Array(b[2..<6])) }  // 6to4
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b {
            // NAT64: the well-known prefix carries the IPv4 address in the last four bytes; the
            // local-use prefix 64:ff9b:1::/48 is a deployment's own, never public.
            return b[4..<12].allSatisfy { $0 == 0 } && isPublicV4(Array(b[12..<16]))
        }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0 {
            // Teredo: the server's IPv4 address, and the client's with every bit flipped.
            return isPublicV4(Array(b[4..<8])) && isPublicV4(b[12..<16].map { $0 ^ 0xff })
        }
        if b[0] & 0xfe == 0xfc { return false }  // fc00::/7 unique local
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return false }  // fe80::/10 link-local
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return false }  // fec0::/10 site-local (deprecated)
        if b[0] == 0xff { return false }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return false }  // 2001:db8::/32 documentation
        if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return false }  // 100::/64 discard
        return true
    }

    /// Whether four bytes of an IPv4 address are a public unicast address.
    public static func isPublicV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return false
        case (100, 64...127): return false  // carrier-grade NAT
        case (169, 254): return false
        case (172, 16...31): return false
        case (192, 168): return false
        case (192, 0) where b[2] == 0 || b[2] == 2: return false  // IETF protocol assignments, TEST-NET-1
        case (192, 88) where b[2] == 99: return false  // 6to4 relay anycast
        case (198, 18...19): return false  // benchmarking
        case (198, 51) where b[2] == 100: return false
        case (203, 0) where b[2] == 113: return false
        default: return b[0] < 224  // multicast and reserved above
        }
    }
}
