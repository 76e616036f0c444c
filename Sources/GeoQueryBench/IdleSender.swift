import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A client thread that sends one request again and again over one kept-alive connection, in
/// Linux's idle scheduling class: the load of a client on another machine, as near as two
/// shared cores allow.
///
/// The availability rows once started `chrt --idle 0 curl` for every body: each start cost an
/// exec, a dynamic link and a TCP handshake at ordinary priority, and 4 senders of an empty
/// body (1 ms of server CPU each) alone doubled the near query's p99. A thread that keeps its
/// connection and never leaves the idle class adds only what the server does with the bodies.
struct IdleSender {
    let port: Int
    /// The whole request, head and body, as sent on the wire.
    let request: [UInt8]

    init(port: Int, method: String, path: String, token: String, contentType: String, body: [UInt8]) {
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
        self.port = port
        self.request = Array(head.utf8) + body
    }

    /// Sends until `stopping` answers true; answers how many answers had `expected` status.
    func run(expected: Int, stopping: () -> Bool) -> Int {
        lowerThisThread()
        var answered = 0
        var socket: Int32 = -1
        defer { if socket >= 0 { close(socket) } }
        while !stopping() {
            if socket < 0 {
                socket = connectToServer()
                if socket < 0 { return answered }
            }
            guard writeAll(socket), let status = readAnswer(socket) else {
                close(socket)
                socket = -1
                continue
            }
            if status == expected { answered += 1 }
        }
        return answered
    }

    private func lowerThisThread() {
        #if os(Linux)
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, 5, &parameters)  // SCHED_IDLE
        #endif
    }

    private func connectToServer() -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    private func writeAll(_ socket: Int32) -> Bool {
        request.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    /// The status of one answer, read whole (its head and `Content-Length` bytes of body).
    private func readAnswer(_ socket: Int32) -> Int? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var needed = Int.max
        while received.count < needed {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            received.append(contentsOf: buffer[0..<count])
            if headEnd == nil, let end = firstRange(of: separator, in: received) {
                headEnd = end
                let head = String(decoding: received[0..<end], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                needed = end + 4 + length
            }
        }
        guard let line = String(decoding: received.prefix(32), as: UTF8.self).split(separator: " ").dropFirst().first else { return nil }
        return Int(line)
    }

    private func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
