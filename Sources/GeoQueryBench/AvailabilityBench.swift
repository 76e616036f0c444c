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
        guard let token else { print("\navailability rows skipped: no session"); return }
        let base = "http://127.0.0.1:\(port)"
        let made = try GemImportBench.send("POST", base + "/v1/trips", token: token, json: """
            {"title":"Bench","place":{"lat":48.8566,"lon":2.3522,"name":"Paris"},"start":"2030-06-12T12:00:00+02:00","end":"2030-06-12T16:00:00+02:00"}
            """)
        guard let id = (try? JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["id"] as? String else {
            print("\navailability rows skipped: no trip made (HTTP \(made.status))")
            return
        }
        let body = maximalBody()
        let url = base + "/v1/trips/\(id)/availability"
        let cpu = ProcessCPU.process(server.processIdentifier)
        var costs: [Double] = []
        for _ in 0..<7 {
            let (answer, used) = try cpu.measure { try GemImportBench.send("PUT", url, token: token, json: body) }
            guard answer.status == 200 else { print("\navailability rows skipped: the body was answered \(answer.status)"); return }
            costs.append(used * 1_000)
        }
        costs.sort()

        let scriptPath = directory + "/availability-near.lua"
        try nearScript.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        _ = try ServiceBench.wrkRun(wrk, port: port, connections: 8, seconds: 2, script: scriptPath)
        let idle = try ServiceBench.wrkRun(wrk, port: port, connections: 8, seconds: seconds, script: scriptPath)
        // Four maximal bodies in flight all the while, each sent again as soon as it is answered,
        // by curl at nice 10: the bench's own client shares the two cores with wrk and the
        // server, and should take of them no more than a client elsewhere would.
        let bodyPath = directory + "/availability-body.json"
        try body.write(toFile: bodyPath, atomically: true, encoding: .utf8)
        let stop = NSLock()
        nonisolated(unsafe) var stopping = false
        nonisolated(unsafe) var sent = 0
        let senders = DispatchGroup()
        for _ in 0..<4 {
            senders.enter()
            Thread.detachNewThread {
                defer { senders.leave() }
                while !stop.withLock({ stopping }) {
                    let curl = Process()
                    curl.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
                    curl.arguments = ["-n", "10", "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", url,
                                      "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: application/json", "--data-binary", "@" + bodyPath]
                    let output = Pipe()
                    curl.standardOutput = output
                    guard (try? curl.run()) != nil else { return }
                    let code = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    curl.waitUntilExit()
                    if code == "200" { stop.withLock { sent += 1 } }
                }
            }
        }
        Thread.sleep(forTimeInterval: 1)
        let loaded = try ServiceBench.wrkRun(wrk, port: port, connections: 8, seconds: seconds, script: scriptPath)
        stop.withLock { stopping = true }
        senders.wait()
        let ratio = (milliseconds(loaded.p99) ?? .nan) / (milliseconds(idle.p99) ?? .nan)
        print(String(format: "\nAvailability (#49): a body of %d busy periods costs the server %.1f ms of CPU (median of 7, min %.1f; target ≤ 50)",
                     periods, costs[costs.count / 2], costs[0]))
        print("near 1 km, 8 connections: p99 \(idle.p99) idle, \(loaded.p99) with 4 such bodies always in flight (\(sent) answered): "
              + String(format: "%.2f× (target ≤ 2×)", ratio))
    }
}
