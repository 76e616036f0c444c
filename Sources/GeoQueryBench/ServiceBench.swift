import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import PlaceStore

/// The service rows of `make bench`: `geoquery serve` on the bench index, loaded from `wrk` on
/// loopback, beside the in-process library call for the same requests in the same run.
///
/// wrk and the server share the machine's two cores (wrk takes one thread). Each row runs 10 s
/// (`--service-seconds`) after a 2 s warm-up. Request paths come from a Lua script that draws a
/// random centre from the bench's query centres per request; the paging row follows each
/// answer's `next_cursor` until the last page.
enum ServiceBench {
    struct Outcome {
        var requestsPerSecond: Double
        var p50: String
        var p99: String
        var transfer: String
        /// Requests wrk completed in the run.
        var requests: Int
        /// CPU the measured processes used per request, in µs (nil when not measured).
        var cpuPerRequest: Double? = nil

        /// The CPU per request as a table cell.
        var cpuCell: String { cpuPerRequest.map { String(format: "%.0f µs", $0) } ?? "" }
    }

    static func run(
        indexPath: String, centres: [Coordinate], cityNames: [String], placeIDs: [String], seconds: Int,
        availabilityOnly: Bool = false
    ) async throws {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("\nservice rows skipped: wrk is not installed (make deps installs it)")
            return
        }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("geoquery").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("\nservice rows skipped: no geoquery binary beside the bench (swift build -c release --product geoquery)")
            return
        }
        let directory = (indexPath as NSString).deletingLastPathComponent + "/bench-service"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = 18_000 + Int(ProcessInfo.processInfo.processIdentifier % 2000)
        let server = try startServer(binary, port: port, places: indexPath, users: directory + "/users.sqlite")
        defer {
            server.terminate()
            server.waitUntilExit()
        }

        // A signed-in user, as the apps' requests mostly are (the file is kept between runs).
        let token = try sessionToken(port: port, username: "servicebench")

        let sample = Array(centres.prefix(500))
        if availabilityOnly {
            try AvailabilityBench.run(
                wrk: wrk, port: port, server: server, token: token,
                nearScript: script(centres: sample, path: "/v1/places/near?radius=1km&limit=50&"),
                directory: directory, seconds: seconds)
            return
        }
        let library = try SpatiaLitePlaceIndex(path: indexPath, mode: .readOnly)
        /// The in-process call's p50 and its mean CPU (both cells), over the sample's centres.
        func inProcess(_ body: (Coordinate) throws -> Void) rethrows -> [String] {
            for centre in sample { try body(centre) }  // warm the caches first, as the server's warm-up does
            var times: [Double] = []
            let cpu0 = ProcessCPU.own()
            for centre in sample {
                let t0 = now()
                try body(centre)
                times.append(Double(now() - t0))
            }
            let cpu = (ProcessCPU.own() - cpu0) / Double(sample.count)
            return [micros(percentile(times, 0.5)), String(format: "%.0f µs", cpu * 1e6)]
        }
        let radius20 = Distance(uncheckedMeters: 32186.88)
        let rows: [(name: String, script: String, connections: Int, library: [String])] = [
            (
                "near 1 km", script(centres: sample, path: "/v1/places/near?radius=1km&limit=50&"), 32,
                try inProcess {
                    _ = PlaceAnswer(
                        query: QueryDescription(kind: "near"), page: try library.near($0, radius: Distance(uncheckedMeters: 1000), limit: 50)
                    ).json()
                }
            ),
            ("near 1 km", script(centres: sample, path: "/v1/places/near?radius=1km&limit=50&"), 1, []),
            (
                token == nil ? "near 1 km, NO SESSION" : "near 1 km, signed in",
                script(centres: sample, path: "/v1/places/near?radius=1km&limit=50&", token: token), 32, []
            ),
            (
                "near 20 mi, first 50", script(centres: sample, path: "/v1/places/near?radius=20mi&limit=50&"), 32,
                try inProcess {
                    _ = PlaceAnswer(query: QueryDescription(kind: "near"), page: try library.near($0, radius: radius20, limit: 50)).json()
                }
            ),
            (
                "near 20 mi, pages of 500", script(centres: sample, path: "/v1/places/near?radius=20mi&limit=500&", followCursors: true), 32,
                try inProcess { centre in
                    var cursor: String?
                    repeat {
                        let page = try library.near(centre, radius: radius20, limit: 500, cursor: cursor)
                        _ = PlaceAnswer(query: QueryDescription(kind: "near"), page: page).json()
                        cursor = page.nextCursor
                    } while cursor != nil
                }
            ),
            ("place by id", script(paths: placeIDs.prefix(2000).map { "/v1/places/" + $0 }), 32, []),
            ("cities autocomplete", script(paths: cityNames.prefix(2000).map { "/v1/cities?limit=8&q=" + prefix($0) }), 32, []),
            // Country, time zone and the 50 nearest cities weighed, five written.
            ("where a point is", script(centres: sample, path: "/v1/where?"), 32, []),
            // What this machine serves today through the same middleware with no query: the
            // ceiling the rows above are measured against (the speed of the machine moves by up
            // to 2× between days, this row with it).
            (ceilingRowName, script(paths: ["/healthz"]), 32, []),
        ]
        // The call the service makes, in process, under as many callers as wrk has connections.
        let store = try SpatiaLitePlaceStore(path: indexPath)
        let users = try SQLiteUserStore(path: directory + "/users.sqlite")
        let asServed = try await InProcessLoad.run(
            index: MergedPlaceIndex.combining(store, users), centres: sample,
            radius: Distance(uncheckedMeters: 1000), concurrency: 32, seconds: Double(seconds))
        try await store.shutdown()
        try await users.shutdown()
        print(
            String(
                format: "\nIn process, as the service calls the library (places and gems, awaited on the store's threads, JSON), "
                    + "32 callers, near 1 km: %.0f calls/s at %.0f µs of CPU a call", asServed.callsPerSecond, asServed.cpuPerCall))

        print("\nService: geoquery serve on this index, wrk -t1 on loopback (\(seconds) s a row); lib = the in-process call + JSON")
        print("(srv CPU = the server's CPU per request, all its threads, from /proc; lib CPU = the in-process call's mean CPU)")
        print(
            ["row", "conns", "req/s", "p50", "p99", "transfer/s", "srv CPU", "lib p50", "lib CPU"].enumerated().map { index, text in
                index == 0 ? text.padding(toLength: 26, withPad: " ", startingAt: 0) : String(repeating: " ", count: max(0, 11 - text.count)) + text
            }.joined(separator: " "))
        var servedFirstRow: Double?
        for row in rows {
            let scriptPath = directory + "/row.lua"
            try row.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
            _ = try wrkRun(wrk, port: port, connections: row.connections, seconds: 2, script: scriptPath)
            let outcome = try wrkRun(
                wrk, port: port, connections: row.connections, seconds: seconds, script: scriptPath,
                measuring: .process(server.processIdentifier))
            if servedFirstRow == nil { servedFirstRow = outcome.cpuPerRequest }
            let cells =
                [
                    String(row.connections), String(format: "%.0f", outcome.requestsPerSecond), outcome.p50, outcome.p99,
                    outcome.transfer, outcome.cpuCell,
                ] + row.library
            print(
                row.name.padding(toLength: 26, withPad: " ", startingAt: 0) + " "
                    + cells.map { String(repeating: " ", count: max(0, 11 - $0.count)) + $0 }.joined(separator: " "))
        }

        // The first row again on a server of its own at the default log level, a line per
        // request written to a file: what the access log costs.
        let logPath = directory + "/access.log"
        let logged = try startServer(binary, port: port + 1, places: indexPath, users: directory + "/users.sqlite", accessLog: logPath)
        let scriptPath = directory + "/row.lua"
        try rows[0].script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        _ = try wrkRun(wrk, port: port + 1, connections: 32, seconds: 2, script: scriptPath)
        let outcome = try wrkRun(
            wrk, port: port + 1, connections: 32, seconds: seconds, script: scriptPath,
            measuring: .process(logged.processIdentifier))
        logged.terminate()
        logged.waitUntilExit()
        let lines = (try? String(contentsOfFile: logPath, encoding: .utf8))?.split(separator: "\n").count ?? 0
        let cells = ["32", String(format: "%.0f", outcome.requestsPerSecond), outcome.p50, outcome.p99, outcome.transfer, outcome.cpuCell]
        print(
            "near 1 km, access log on".padding(toLength: 26, withPad: " ", startingAt: 0) + " "
                + cells.map { String(repeating: " ", count: max(0, 11 - $0.count)) + $0 }.joined(separator: " ") + "   (\(lines) log lines)")
        try? FileManager.default.removeItem(atPath: logPath)
        try AvailabilityBench.run(
            wrk: wrk, port: port, server: server, token: token, nearScript: rows[0].script,
            directory: directory, seconds: seconds)
        if let servedFirstRow {
            print(
                String(
                    format: "The service adds %.0f µs of CPU a request to the call it makes (near 1 km, 32 connections: "
                        + "%.0f µs served, %.0f µs in process; #14's target: at most 50)",
                    servedFirstRow - asServed.cpuPerCall, servedFirstRow, asServed.cpuPerCall))
        }
    }

    /// Signs `username` up on the server at `port` (an account already there is kept) and opens
    /// a session: its bearer token, or nil when none opened.
    static func sessionToken(port: Int, username: String) throws -> String? {
        let base = "http://127.0.0.1:\(port)", password = "a bench passphrase"
        _ = try GemImportBench.post(
            base + "/v1/users", token: nil,
            json: #"{"username":"\#(username)","email":"\#(username)@example.org","password":"\#(password)"}"#)
        let session = try GemImportBench.post(base + "/v1/sessions", token: nil, json: #"{"username":"\#(username)","password":"\#(password)"}"#)
        return (try? JSONSerialization.jsonObject(with: session.body) as? [String: Any])?["token"] as? String
    }

    /// The row that measures the machine: `/healthz` (a constant answer) under the same load.
    static let ceilingRowName = "ceiling: /healthz"

    /// A city name's first word, cut to 3–5 letters: what a user has typed so far.
    static func prefix(_ name: String) -> String {
        let word = name.split(separator: " ").first.map(String.init) ?? name
        let cut = String(word.prefix(3 + word.count % 3))
        return cut.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "par"
    }

    /// Requests around random centres; with `token`, each request is signed in with it.
    static func script(centres: [Coordinate], path: String, followCursors: Bool = false, token: String? = nil) -> String {
        let list = centres.map { String(format: "{%.6f,%.6f}", $0.latitude, $0.longitude) }.joined(separator: ",")
        let headers = token.map { #", {["Authorization"] = "Bearer \#($0)"}"# } ?? ""
        var lua = """
            local centres = {\(list)}
            local pending = {}
            math.randomseed(7)
            request = function()
              if #pending > 0 then return wrk.format("GET", table.remove(pending)\(headers)) end
              local c = centres[math.random(#centres)]
              return wrk.format("GET", "\(path)lat=" .. c[1] .. "&lon=" .. c[2]\(headers))
            end

            """
        if followCursors {
            lua += """
                response = function(status, headers, body)
                  local link = headers["Link"]
                  if link then table.insert(pending, string.match(link, "<(.-)>")) end
                end

                """
        }
        return lua
    }

    static func script(paths: [String]) -> String {
        let list = paths.map { "\"" + $0.replacingOccurrences(of: "\"", with: "") + "\"" }.joined(separator: ",")
        return """
            local paths = {\(list)}
            math.randomseed(7)
            request = function() return wrk.format("GET", paths[math.random(#paths)]) end

            """
    }

    /// Starts `geoquery serve` on loopback over the given places and user files, and waits
    /// until it answers `/healthz`. Warnings only, unless `accessLog` names a file for the
    /// server's log at the default level (a line per request).
    static func startServer(_ binary: String, port: Int, places: String, users: String, accessLog: String? = nil) throws -> Process {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        // No budget of creations: the soak and the import bench measure the store's writes.
        server.arguments = [
            "serve", "--port", String(port), "--db", places, "--data-dir", "geodata", "--users-db", users,
            "--creations-per-user-per-hour", "none",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["GEOQUERY_LOG_LEVEL"] = accessLog == nil ? "warning" : "info"
        server.environment = environment
        if let accessLog {
            FileManager.default.createFile(atPath: accessLog, contents: nil)
            server.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: accessLog))
        } else {
            server.standardError = FileHandle.nullDevice
        }
        try server.run()
        do { try waitForHealth(port: port) } catch {
            server.terminate()
            server.waitUntilExit()
            throw error
        }
        return server
    }

    static func waitForHealth(port: Int) throws {
        let url = URL(string: "http://127.0.0.1:\(port)/healthz")!
        for _ in 0..<200 {
            if let data = try? Data(contentsOf: url), String(decoding: data, as: UTF8.self).contains("\"ok\"") { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "geoquery serve did not answer on port \(port)"])
    }

    /// One wrk run; with `measuring`, the CPU those processes used per request is in the outcome.
    static func wrkRun(
        _ wrk: String, port: Int, connections: Int, seconds: Int, script: String,
        measuring processes: ProcessCPU? = nil
    ) throws -> Outcome {
        let ((outcome, text), cpu) = try (processes ?? ProcessCPU { [] }).measure {
            try wrkRunWithOutput(wrk, port: port, connections: connections, seconds: seconds, script: script)
        }
        if text.contains("Non-2xx or 3xx responses") { print("  (some answers were not 2xx: \(field(text, after: "Non-2xx or 3xx responses:")))") }
        var measured = outcome
        if processes != nil, outcome.requests > 0 { measured.cpuPerRequest = cpu * 1e6 / Double(outcome.requests) }
        return measured
    }

    /// wrk's figures and its whole output (what a script's `done` printed is in it).
    static func wrkRunWithOutput(_ wrk: String, port: Int, connections: Int, seconds: Int, script: String) throws -> (Outcome, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = ["-t1", "-c\(connections)", "-d\(seconds)s", "--latency", "-s", script, "http://127.0.0.1:\(port)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let outcome = Outcome(
            requestsPerSecond: Double(field(text, after: "Requests/sec:")) ?? 0, p50: field(text, after: "50%"),
            p99: field(text, after: "99%"), transfer: field(text, after: "Transfer/sec:"),
            requests: requestCount(text))
        return (outcome, text)
    }

    /// The requests wrk completed: the first word of its "N requests in T, B read" line.
    static func requestCount(_ text: String) -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.contains(" requests in ") }) else { return 0 }
        return Int(line.split(separator: " ").first ?? "") ?? 0
    }

    /// The word after `label` on the output line that begins with it.
    static func field(_ text: String, after label: String) -> String {
        guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return "?" }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(label.split(separator: " ").count).first.map(String.init) ?? "?"
    }
}
