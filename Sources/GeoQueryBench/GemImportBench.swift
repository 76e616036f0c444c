import Foundation
import PlaceModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The accounts-and-gems issue's promise, measured: while `geoquery import` of the 1 M bench
/// places runs against a deployment, creating a gem through that deployment's `geoquery serve`
/// answers within 100 ms. The deployment is a copy of the bench index (so the bench index is
/// left as it was) and a user file of its own; the import adds every place again under a source
/// of its own, in one snapshot transaction, while a signed-in client creates a gem every 50 ms.
enum GemImportBench {
    static func run(binary: String, indexPath: String, places: [Place], directory: String) throws {
        let copy = directory + "/during-import.sqlite", users = directory + "/during-import-users.sqlite"
        let csv = directory + "/during-import.csv"
        for path in [copy, users] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        defer {
            for path in [copy, users, csv] {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        }
        try FileManager.default.copyItem(atPath: indexPath, toPath: copy)
        try ImportBench.writeCSV(places, to: csv, changeEvery: nil)

        let port = 22_000 + Int(ProcessInfo.processInfo.processIdentifier % 2000)
        let server = try ServiceBench.startServer(binary, port: port, places: copy, users: users)
        defer {
            server.terminate()
            server.waitUntilExit()
        }

        let base = "http://127.0.0.1:\(port)"
        guard let token = try ServiceBench.sessionToken(port: port, username: "importbench") else {
            print("gem writes during an import: skipped, no session could be opened")
            return
        }

        let importer = Process()
        importer.executableURL = URL(fileURLWithPath: binary)
        importer.arguments = ["import", csv, "--format", "csv", "--source", "during-import", "--db", copy]
        importer.standardOutput = FileHandle.nullDevice
        importer.standardError = FileHandle.nullDevice
        let started = Date()
        try importer.run()
        var latencies: [Double] = [], failures = 0, n = 0
        while importer.isRunning {
            n += 1
            let t0 = Date()
            let answer = try post(
                base + "/v1/gems", token: token,
                json: #"{"name":"Written during an import \#(n)","lat":43.73,"lon":7.42,"visibility":"public"}"#)
            latencies.append(Date().timeIntervalSince(t0) * 1000)
            if answer.status != 201 { failures += 1 }
            Thread.sleep(forTimeInterval: 0.05)
        }
        importer.waitUntilExit()
        let importSeconds = Date().timeIntervalSince(started)
        latencies.sort()
        func at(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        print(
            String(
                format:
                    "\nGem writes during `geoquery import` of %d places into the served index (exit %d, %.1f s): %d gems created, %d failed; p50 %.1f ms, p99 %.1f ms, max %.1f ms (target: each ≤ 100 ms)",
                places.count, importer.terminationStatus, importSeconds, latencies.count - failures, failures, at(0.5), at(0.99),
                latencies.last ?? 0))
    }

    struct Answer {
        var status: Int
        var body: Data
    }

    /// One POST with a JSON body, waited for.
    static func post(_ url: String, token: String?, json: String) throws -> Answer {
        try send("POST", url, token: token, json: json)
    }

    /// One request with a JSON body, waited for.
    static func send(_ method: String, _ url: String, token: String?, json: String) throws -> Answer {
        guard let target = URL(string: url) else { throw URLError(.badURL) }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(json.utf8)
        request.timeoutInterval = 30
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<Answer, any Error> = .failure(URLError(.unknown))
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error {
                result = .failure(error)
            } else {
                result = .success(Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data ?? Data()))
            }
            done.signal()
        }.resume()
        done.wait()
        return try result.get()
    }
}
