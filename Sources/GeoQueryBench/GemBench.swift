import Accounts
import Foundation
import GeoCore
import GeoQueryWire
import NIOPosix
import PlaceModel
import PlaceQuery
import PlaceStore

/// The accounts-and-gems rows of `make bench`: 100 000 gems among the 1 M places, gems near a
/// point at 20 miles under wrk, sign-up and sign-in throughput (bcrypt bound), and a soak that
/// mixes reads and gem writes from 32 connections and then counts every acknowledged gem.
enum GemBench {
    static let gemCount = 100_000

    static func run(indexPath: String, centres: [Coordinate], seconds: Int, soakSeconds: Int) async throws {
        guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("\ngem rows skipped: wrk is not installed (make deps installs it)")
            return
        }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("geoquery").path
        let directory = (indexPath as NSString).deletingLastPathComponent + "/bench-gems"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let usersPath = directory + "/users.sqlite"
        let store = try SQLiteUserStore(path: usersPath, threads: 2)
        if try await store.count(source: "gem") == 0 {
            // A deployment's gems arrive a few at a time, in no spatial order: written in
            // transactions of 100 (below a bulk load's 1 000), each stored where its position
            // puts it, as people's gems are; one transaction of all 100 000 would be a bulk load,
            // laid out better than a live store ever is.
            let started = now()
            let all = try gems(around: centres)
            for start in stride(from: 0, to: all.count, by: 100) {
                try await store.createGems(Array(all[start..<min(start + 100, all.count)]))
            }
            print(String(format: "\n%d gems written in %.1f s (transactions of 100)", gemCount, Double(now() - started) / 1e9))
        }

        // Accounts, in process: bcrypt bound, so the pool's two threads are the ceiling.
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        let accounts = AccountService(
            store: store, pool: pool, passwordCost: 11,
            accountLimiter: RateLimiter(limit: 1_000_000, window: .seconds(1)),
            addressLimiter: RateLimiter(limit: 1_000_000, window: .seconds(1)),
            signUpLimiter: RateLimiter(limit: 1_000_000, window: .seconds(1)))
        let run = String(UInt32(Date().timeIntervalSince1970) % 1_000_000)
        let names = (0..<24).map { "bench\(run)x\($0)" }
        var t0 = now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in names {
                group.addTask {
                    _ = try await accounts.signUp(
                        username: name, email: "\(name)@example.org", password: "a bench passphrase",
                        clientAddress: "bench")
                }
            }
            try await group.waitForAll()
        }
        let signUps = Double(names.count) / (Double(now() - t0) / 1e9)
        t0 = now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in names + names {
                group.addTask { _ = try await accounts.signIn(login: name, password: "a bench passphrase", clientAddress: "bench") }
            }
            try await group.waitForAll()
        }
        let signIns = Double(names.count * 2) / (Double(now() - t0) / 1e9)
        let soaker = names[0]
        let token = try await accounts.openSession(for: soaker).token
        try await pool.shutdownGracefully()
        print(String(format: "Accounts (bcrypt cost 11, 2 threads, in process): %.1f sign-ups/s, %.1f sign-ins/s", signUps, signIns))

        let port = 20_000 + Int(ProcessInfo.processInfo.processIdentifier % 2000)
        let server = try ServiceBench.startServer(binary, port: port, places: indexPath, users: usersPath)
        defer {
            server.terminate()
            server.waitUntilExit()
        }

        let sample = Array(centres.prefix(500))
        // The in-process call the gems row makes (anonymous viewer, first page of 50) with its JSON.
        var times: [Double] = []
        var cpuPerCall = 0.0
        for _ in 0..<2 {
            times = []
            let cpu0 = ProcessCPU.own()
            for centre in sample {
                let t0 = now()
                let page = try await store.near(centre, radius: Distance(uncheckedMeters: 32186.88), filter: .none, limit: 50, cursor: nil)
                _ = PlaceAnswer(query: QueryDescription(kind: "gems_near"), page: page).json()
                times.append(Double(now() - t0))
            }
            cpuPerCall = (ProcessCPU.own() - cpu0) / Double(sample.count)
        }
        let gemsInProcess = [micros(percentile(times, 0.5)), String(format: "%.0f µs", cpuPerCall * 1e6)]
        print(
            "\nGems: \(gemCount) gems (80 % public) among the places; geoquery serve under wrk -t1 (\(seconds) s a row); lib = the in-process call + JSON"
        )
        print("(srv CPU = the server's CPU per request, all its threads, from /proc; lib CPU = the in-process call's mean CPU)")
        print(
            ["row", "conns", "req/s", "p50", "p99", "transfer/s", "srv CPU", "lib p50", "lib CPU"].enumerated().map { index, text in
                index == 0 ? text.padding(toLength: 34, withPad: " ", startingAt: 0) : String(repeating: " ", count: max(0, 11 - text.count)) + text
            }.joined(separator: " "))
        let rows: [(String, String, [String])] = [
            ("gems near 20 mi, first 50", ServiceBench.script(centres: sample, path: "/v1/gems/near?limit=50&"), gemsInProcess),
            ("gems near 20 mi, signed in", ServiceBench.script(centres: sample, path: "/v1/gems/near?limit=50&", token: token), []),
            ("places + gems near 20 mi, first 50", ServiceBench.script(centres: sample, path: "/v1/places/near?radius=20mi&limit=50&"), []),
            (ServiceBench.ceilingRowName, ServiceBench.script(paths: ["/healthz"]), []),
        ]
        for (name, script, library) in rows {
            let scriptPath = directory + "/row.lua"
            try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
            _ = try ServiceBench.wrkRun(wrk, port: port, connections: 32, seconds: 2, script: scriptPath)
            let outcome = try ServiceBench.wrkRun(
                wrk, port: port, connections: 32, seconds: seconds, script: scriptPath,
                measuring: .process(server.processIdentifier))
            let cells =
                ["32", String(format: "%.0f", outcome.requestsPerSecond), outcome.p50, outcome.p99, outcome.transfer, outcome.cpuCell] + library
            print(
                name.padding(toLength: 34, withPad: " ", startingAt: 0) + " "
                    + cells.map { String(repeating: " ", count: max(0, 11 - $0.count)) + $0 }.joined(separator: " "))
        }

        // The soak: 1 request in 10 writes a gem; every 201 must be a gem in the store afterwards.
        let before = try await ownedCount(store, soaker)
        let soakPath = directory + "/soak.lua"
        try soakScript(centres: sample, token: token).write(toFile: soakPath, atomically: true, encoding: .utf8)
        let rssBefore = residentMegabytes(server.processIdentifier)
        let (outcome, created, failed) = try soak(wrk, port: port, seconds: soakSeconds, script: soakPath)
        let rssAfter = residentMegabytes(server.processIdentifier)
        let stored = try await ownedCount(store, soaker) - before
        // The soak's gems sit on the query centres themselves: remove them so that the next run
        // (`--keep`) measures the same 100 000 gems, not a growing cluster at every centre.
        while true {
            let page = try await store.gems(ownedBy: soaker, after: nil, limit: 1000)
            for gem in page { _ = try await store.deleteGem(gem.id) }
            if page.count < 1000 { break }
        }
        // wrk stops with requests in flight: those gems are written but their answers uncounted,
        // so more may be stored than acknowledged; fewer would be a lost write.
        let verdict = stored >= created ? "no acknowledged write lost; \(stored - created) written as wrk stopped" : "LOST \(created - stored)"
        print(
            String(
                format:
                    "Soak %d s, 32 connections, 1 in 10 a gem write: %.0f req/s, p99 %@, %d non-2xx, %d gems acknowledged, %d stored (%@), server memory %.0f → %.0f MB",
                soakSeconds, outcome.requestsPerSecond, outcome.p99, failed, created, stored, verdict, rssBefore, rssAfter))
        try await store.shutdown()
    }

    /// Gems within about 30 km of the bench's query centres, 80 % public, 10 % unlisted, 10 % private.
    static func gems(around centres: [Coordinate]) throws -> [Place] {
        var random = SplitMix64(seed: 15)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        return try (0..<gemCount).map { n in
            let centre = centres[Int(random.next() % UInt64(centres.count))]
            let coordinate = try Coordinate(
                latitude: max(-90, min(90, centre.latitude + (unit() - 0.5) * 0.6)),
                normalizingLongitude: centre.longitude + (unit() - 0.5) * 0.6)
            let visibility: HiddenGem.Visibility = n % 10 == 0 ? .private : n % 10 == 1 ? .unlisted : .public
            let id = try PlaceID(source: "gem", localID: String(format: "%024x", n))
            return Place(
                id: id, name: "Gem \(n)", coordinate: coordinate, categories: [Category(trustedIdentifier: "nature")],
                provenance: Provenance(source: "gem", sourceID: id.localID),
                gem: HiddenGem(
                    owner: "owner\(n % 1000)", visibility: visibility, description: "A bench gem",
                    createdAt: Date(timeIntervalSince1970: 1_790_000_000 + Double(n))))
        }
    }

    static func ownedCount(_ store: SQLiteUserStore, _ owner: String) async throws -> Int {
        var count = 0
        var after: PlaceID?
        while true {
            let page = try await store.gems(ownedBy: owner, after: after, limit: 1000)
            count += page.count
            guard page.count == 1000 else { return count }
            after = page.last?.id
        }
    }

    static func soakScript(centres: [Coordinate], token: String) -> String {
        let list = centres.map { String(format: "{%.6f,%.6f}", $0.latitude, $0.longitude) }.joined(separator: ",")
        return """
            local centres = {\(list)}
            local threads = {}
            function setup(thread) table.insert(threads, thread) end
            function init(args) created = 0; failed = 0; n = 0; math.randomseed(9) end
            request = function()
              n = n + 1
              local c = centres[math.random(#centres)]
              if n % 10 == 0 then
                local body = '{"name":"Soak gem","lat":' .. c[1] .. ',"lon":' .. c[2] .. ',"visibility":"public"}'
                return wrk.format("POST", "/v1/gems", {["Authorization"] = "Bearer \(token)", ["Content-Type"] = "application/json"}, body)
              end
              return wrk.format("GET", "/v1/gems/near?limit=50&lat=" .. c[1] .. "&lon=" .. c[2])
            end
            response = function(status, headers, body)
              if status == 201 then created = created + 1 elseif status >= 300 then failed = failed + 1 end
            end
            done = function(summary, latency, requests)
              local c, f = 0, 0
              for _, t in ipairs(threads) do c = c + t:get("created"); f = f + t:get("failed") end
              io.write("soak-created ", c, "\\nsoak-failed ", f, "\\n")
            end

            """
    }

    static func soak(_ wrk: String, port: Int, seconds: Int, script: String) throws -> (ServiceBench.Outcome, Int, Int) {
        let (outcome, text) = try ServiceBench.wrkRunWithOutput(wrk, port: port, connections: 32, seconds: seconds, script: script)
        return (outcome, Int(ServiceBench.field(text, after: "soak-created")) ?? -1, Int(ServiceBench.field(text, after: "soak-failed")) ?? -1)
    }

    /// The process's resident memory, from /proc.
    static func residentMegabytes(_ pid: Int32) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }
}
