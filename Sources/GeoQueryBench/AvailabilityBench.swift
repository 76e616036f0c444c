import Foundation

/// What a maximal availability body costs the server, and what it does to everyone else's
/// queries (#49): `PUT /v1/trips/{id}/availability` with 10 000 busy periods once took 6 s of
/// CPU on the request's own task, and four in flight held a 1 km near query for 11–22 s.
enum AvailabilityBench {
    static let periods = 10_000

    /// A body of ``periods`` busy periods, an hour each, RFC 3339 with an offset.
    static func maximalBody() -> String {
        let start = 1_906_000_000  // 2030
        let items = (0..<periods).map { index -> String in
            let from = Date(timeIntervalSince1970: Double(start + index * 7_200))
            let to = from.addingTimeInterval(3_600)
            return #"{"start":"\#(text(from))","end":"\#(text(to))"}"#
        }
        return #"{"busy":["# + items.joined(separator: ",") + "]}"
    }

    /// `2030-05-26T16:26:40+02:00`: in a zone two hours east, as a phone in Paris would send it.
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 7_200)
        return formatter.string(from: date)
    }

    /// Milliseconds from wrk's `3.37ms`, `812.00us`, `1.20s`.
    static func milliseconds(_ cell: String) -> Double? {
        if cell.hasSuffix("ms") { return Double(cell.dropLast(2)) }
        if cell.hasSuffix("us") { return Double(cell.dropLast(2)).map { $0 / 1_000 } }
        if cell.hasSuffix("s") { return Double(cell.dropLast(1)).map { $0 * 1_000 } }
        return nil
    }

    static func run(wrk: String, port: Int, server: Process, token: String?, nearScript: String, directory: String, seconds: Int) throws {
        guard let token else {
            print("\navailability rows skipped: no session")
            return
        }
        let base = "http://127.0.0.1:\(port)"
        let made = try GemImportBench.send(
            "POST", base + "/v1/trips", token: token,
            json: """
                {"title":"Bench","place":{"lat":48.8566,"lon":2.3522,"name":"Paris"},"start":"2030-06-12T12:00:00+02:00","end":"2030-06-12T16:00:00+02:00"}
                """)
        guard let id = (try? JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["id"] as? String else {
            print("\navailability rows skipped: no trip made (HTTP \(made.status))")
            return
        }
        let body = maximalBody()
        let url = base + "/v1/trips/\(id)/availability"
        let cpu = ProcessCPU.process(server.processIdentifier)
        // The kernel counts CPU in ticks of 10 ms: five rounds of ten bodies, each round's mean.
        var costs: [Double] = []
        for _ in 0..<5 {
            var statuses: [Int] = []
            let (_, used) = try cpu.measure {
                for _ in 0..<10 { statuses.append(try GemImportBench.send("PUT", url, token: token, json: body).status) }
            }
            if let refused = statuses.first(where: { $0 != 200 }) {
                print("\navailability rows skipped: the body was answered \(refused)")
                return
            }
            costs.append(used * 1_000 / 10)
        }
        costs.sort()

        let scriptPath = directory + "/availability-near.lua"
        try nearScript.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        _ = try ServiceBench.wrkRun(wrk, port: port, connections: 8, seconds: 2, script: scriptPath)
        // Idle and loaded windows alternate, three of each, and each side's median p99 is
        // compared: a single pair of windows moved by up to 2× between runs on two cores.
        let window = max(2, seconds / 2)
        var idleP99: [Double] = [], loadedP99: [Double] = []
        var sent = 0
        for _ in 0..<3 {
            let idle = try ServiceBench.wrkRun(wrk, port: port, connections: 8, seconds: window, script: scriptPath)
            idleP99.append(milliseconds(idle.p99) ?? .nan)
            let (loaded, answered) = try whileSending(port: port, path: "/v1/trips/\(id)/availability", token: token, body: Array(body.utf8)) {
                try ServiceBench.wrkRun(wrk, port: port, connections: 8, seconds: window, script: scriptPath)
            }
            loadedP99.append(milliseconds(loaded.p99) ?? .nan)
            sent += answered
        }
        idleP99.sort()
        loadedP99.sort()
        let ratio = loadedP99[1] / idleP99[1]
        print(
            String(
                format:
                    "\nAvailability (#49): a body of %d busy periods costs the server %.1f ms of CPU (median of 5 rounds of 10, min %.1f; target ≤ 50)",
                periods, costs[costs.count / 2], costs[0]))
        print(
            String(
                format: "near 1 km, 8 connections, median of 3 windows of %d s each: p99 %.2f ms idle, %.2f ms with 4 such bodies "
                    + "always in flight (%d answered): %.2f× (target ≤ 2×; p99 idle %@, loaded %@)", window, idleP99[1], loadedP99[1],
                sent, ratio, idleP99.map { String(format: "%.2f", $0) }.joined(separator: "/"),
                loadedP99.map { String(format: "%.2f", $0) }.joined(separator: "/")))
    }

    /// Runs `measure` while four bodies are always in flight, each sent again as soon as it is
    /// answered, by ``IdleSender`` threads (kept-alive connections in Linux's idle scheduling
    /// class: the bench's own client shares the two cores with wrk and the server, and should
    /// take of them no more than a client on another machine would). Answers what `measure`
    /// answered and how many bodies were answered 200.
    static func whileSending<T>(port: Int, path: String, token: String, body: [UInt8], _ measure: () throws -> T) throws -> (T, Int) {
        let stop = NSLock()
        nonisolated(unsafe) var stopping = false
        nonisolated(unsafe) var sent = 0
        let senders = DispatchGroup()
        let sender = IdleSender(port: port, method: "PUT", path: path, token: token, contentType: "application/json", body: body)
        for _ in 0..<4 {
            senders.enter()
            Thread.detachNewThread {
                defer { senders.leave() }
                let answered = sender.run(expected: 200) { stop.withLock { stopping } }
                stop.withLock { sent += answered }
            }
        }
        Thread.sleep(forTimeInterval: 1)
        let measured: T
        do {
            measured = try measure()
        } catch {
            stop.withLock { stopping = true }
            senders.wait()
            throw error
        }
        stop.withLock { stopping = true }
        senders.wait()
        return (measured, stop.withLock { sent })
    }
}
