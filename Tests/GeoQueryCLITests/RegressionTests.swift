import Foundation
import ProviderTestSupport
import Testing

/// Every input that ever crashed, hung or trapped GeoQuery (`Tests/Regressions/`), run through
/// the real `geoquery` as a user would: each must succeed or exit 64/65 with a message.
@Suite(.waitsOnProcesses) struct RegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Regressions")

    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        var arguments: String
        var exitCodes: Set<Int32>
        var message: String
        var testDescription: String { "\(input): geoquery \(arguments)" }
    }

    /// `cases.tsv`, then every crash `make fuzz` kept (`fuzz/<target>/…`) with its target's command.
    static let cases: [Case] = {
        var cases: [Case] = []
        let text = (try? String(contentsOf: folder.appendingPathComponent("cases.tsv"), encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { continue }
            cases.append(
                Case(
                    input: fields[0], arguments: fields[1],
                    exitCodes: Set(fields[2].split(separator: ",").compactMap { Int32($0) }), message: fields[3]))
        }
        let fuzz = folder.appendingPathComponent("fuzz")
        for target in (try? FileManager.default.contentsOfDirectory(atPath: fuzz.path))?.sorted() ?? [] {
            guard let command = fuzzCommands[target] else { continue }
            for file in (try? FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent(target).path))?.sorted() ?? []
            where !file.hasPrefix(".") {
                cases.append(Case(input: "../fuzz/\(target)/\(file)", arguments: command, exitCodes: [0, 1, 64, 65], message: ""))
            }
        }
        return cases
    }()

    /// How a crash of each fuzz target is replayed through the CLI (targets of library calls
    /// the CLI does not reach by a file are replayed by the fuzz executable itself).
    static let fuzzCommands: [String: String] = [
        "csv": "import {input} --format csv --db {db} --no-regions",
        "geonames-csv": "import {input} --format geonames-csv --db {db} --no-regions",
        "geonames": "import {input} --format geonames --db {db} --no-regions",
        "airports-csv": "import {input} --format airports-csv --db {db} --no-regions",
        "foursquare-csv": "import {input} --format foursquare-csv --db {db} --no-regions",
        "geojson": "import {input} --format geojson --db {db} --no-regions",
        "geojsonseq": "import {input} --format geojsonseq --db {db} --no-regions",
        "osm-xml": "import {input} --format osm --db {db} --no-regions",
        "osm-pbf": "import {input} --format osm --db {db} --no-regions",
        "tsplib": "route --matrix {input}",
        "matrix-json": "route --matrix {input}",
        "route-points": "route --points {input}",
    ]

    @Test(arguments: cases)
    func inputIsHandled(_ regression: Case) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("regression-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = regression.arguments.split(separator: " ").map(String.init)
        for (index, argument) in arguments.enumerated() {
            arguments[index] =
                argument
                .replacingOccurrences(of: "{input}", with: Self.folder.appendingPathComponent("inputs/\(regression.input)").path)
                .replacingOccurrences(of: "{db}", with: directory.appendingPathComponent("index.sqlite").path)
                .replacingOccurrences(of: "{cities}", with: try CLITests.fixture.get().db)
        }
        let result = try CLI.run(arguments)
        #expect(regression.exitCodes.contains(result.status), "exit \(result.status): \(result.stderr)")
        #expect(!result.stderr.contains("Program crashed") && !result.stderr.contains("Fatal error"), "\(result.stderr)")
        if !regression.message.isEmpty {
            #expect(result.stderr.contains(regression.message) || result.stdout.contains(regression.message), "\(result.stderr)")
        }
        if result.status != 0 { #expect(!result.stderr.isEmpty, "a failure says why") }
    }
}
