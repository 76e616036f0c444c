import Foundation
import ProviderTestSupport
import Testing

/// The console examples of the README and `docs/cli.md` are what the CLI prints: each `$ geoquery`
/// line runs against an index built from the shipped data, as `make run` builds it, and its
/// output must be the lines under it. Times of import and cursors (which hold no meaning for a
/// reader) and the file size are compared by shape; `…` in an example stands for any text.
///
/// `GEOQUERY_DOCS_WRITE=1 swift test --filter DocsTests` writes what the CLI printed into the
/// files instead, for the examples that differ (then read the diff before committing it).
@Suite(.serialized, .waitsOnProcesses) struct DocsTests {
    static let root = PostGISCLITests.repositoryRoot
    static let documents = ["README.md", "docs/cli.md"]
    /// Commands shown but not run: they change the index or need more than the shipped data.
    static let notRun = ["geoquery import", "geoquery serve", "geoquery backup", "geoquery search", "geoquery weather"]

    /// A folder laid out as the repository is for `make run`: `geodata/` with the shipped files
    /// and `places.sqlite` built from them by the Makefile's own four imports.
    static let shippedIndex = Result { () throws -> URL in
        let folder = try TemporaryDirectories.make("geoquery-docs")
        let geodata = folder.appendingPathComponent("geodata")
        try FileManager.default.createDirectory(at: geodata, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("geodata").path)
        where !file.hasPrefix("places.sqlite") {
            try FileManager.default.createSymbolicLink(
                at: geodata.appendingPathComponent(file), withDestinationURL: root.appendingPathComponent("geodata/\(file)"))
        }
        let imports = [
            ["geodata/cities15000.csv", "--format", "geonames-csv"], ["geodata/airports.csv", "--format", "airports-csv"],
            ["geodata/monaco.osm.pbf", "--source", "osm-monaco"], ["geodata/andorra.osm.pbf", "--source", "osm-andorra"],
        ]
        for arguments in imports {
            let result = try run(["import"] + arguments + ["--data-dir", "geodata", "--db", "geodata/places.sqlite"], in: folder)
            guard result.status == 0 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSDebugDescriptionErrorKey: result.stderr]) }
        }
        return folder
    }

    static func run(_ arguments: [String], in folder: URL) throws -> CLI.Result {
        try CLI.run(arguments, in: folder)
    }

    /// One `$ geoquery …` line of a console block and the lines shown under it.
    struct Example {
        var file: String
        var line: Int
        var command: String
        var shown: [String]
    }

    /// The examples of `text`: in each ```` ```console ```` block, a `$ ` line and the lines up
    /// to the next one or the block's end (blank lines at the end left out).
    static func examples(in text: String, file: String) -> [Example] {
        var found: [Example] = []
        var inConsole = false
        var current: Example?
        func close() {
            if var example = current {
                while example.shown.last?.isEmpty == true { example.shown.removeLast() }
                found.append(example)
            }
            current = nil
        }
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if inConsole { close() }
                inConsole = !inConsole && line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                close()
                current = Example(file: file, line: index + 1, command: String(line.dropFirst(2)), shown: [])
            } else {
                current?.shown.append(String(line))
            }
        }
        return found
    }

    /// The command's words, without a trailing `# comment`.
    static func words(_ command: String) -> [String] {
        let bare = command.range(of: #"\s+#\s.*$"#, options: .regularExpression).map { String(command[..<$0.lowerBound]) } ?? command
        return bare.split(separator: " ").map(String.init)
    }

    /// `line` with what differs between runs (import times, cursors, the file's size) replaced
    /// by a placeholder.
    static func normalized(_ line: String) -> String {
        var text = line
        for (pattern, replacement) in [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, "<time>"), (#"--cursor \S+"#, "--cursor <cursor>"),
            (#""next_cursor": "[^"]*""#, #""next_cursor": "<cursor>""#), (#"file size: [0-9.]+ MB"#, "file size: <size>"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    /// Whether `printed` is what `shown` shows, line by line, `…` standing for any text.
    static func agrees(_ printed: [String], _ shown: [String]) -> Bool {
        guard printed.count == shown.count else { return false }
        return zip(printed, shown).allSatisfy { printed, shown in
            let printed = normalized(printed), shown = normalized(shown)
            guard shown.contains("…") else { return printed == shown }
            let pattern = "^" + shown.components(separatedBy: "…").map(NSRegularExpression.escapedPattern).joined(separator: ".*") + "$"
            return printed.range(of: pattern, options: .regularExpression) != nil
        }
    }

    @Test func everyConsoleExampleIsWhatTheCLIPrints() throws {
        let folder = try Self.shippedIndex.get()
        let writing = ProcessInfo.processInfo.environment["GEOQUERY_DOCS_WRITE"] == "1"
        var checked = 0
        for file in Self.documents {
            let url = Self.root.appendingPathComponent(file)
            var lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            // From the end, so that a rewritten example leaves the line numbers above it valid.
            for example in Self.examples(in: lines.joined(separator: "\n"), file: file).reversed() {
                guard example.command.hasPrefix("geoquery "), !Self.notRun.contains(where: example.command.hasPrefix) else { continue }
                let result = try Self.run(Array(Self.words(example.command).dropFirst()), in: folder)
                var printed = result.stdout.components(separatedBy: "\n")
                while printed.last?.isEmpty == true { printed.removeLast() }
                // The table's "more with --cursor" line is on standard error, after the table.
                printed += result.stderr.components(separatedBy: "\n").filter { $0.contains("--cursor") }.map {
                    $0.replacingOccurrences(of: "geoquery: ", with: "")
                }
                checked += 1
                if Self.agrees(printed, example.shown) { continue }
                if writing {
                    lines.replaceSubrange(example.line..<(example.line + example.shown.count), with: printed)
                } else {
                    Issue.record(
                        """
                        \(file):\(example.line): `\(example.command)` printed (exit \(result.status)):
                        \(printed.joined(separator: "\n"))
                        but the example shows:
                        \(example.shown.joined(separator: "\n"))
                        """)
                }
            }
            if writing { try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8) }
        }
        #expect(checked >= 10, "only \(checked) examples were found to check")
    }

    /// The library snippet of the README and `docs/library.md` is what `GettingStarted.swift`
    /// holds between its marks, which this target compiles: a snippet that stops compiling fails
    /// the build, one that drifts from the file fails here.
    @Test(arguments: ["README.md", "docs/library.md"]) func theSnippetIsTheOneThatCompiles(file: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        let source = try String(contentsOf: Self.root.appendingPathComponent("Tests/GeoQueryCLITests/GettingStarted.swift"), encoding: .utf8)
        let blocks = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        guard let snippet = blocks.first(where: { $0.contains("SpatiaLitePlaceIndex") }) else {
            Issue.record("\(file) has no snippet that opens an index")
            return
        }
        let marked = source.components(separatedBy: "// snippet\n")
        #expect(marked.count == 3, "GettingStarted.swift marks its snippet with two `// snippet` lines")
        guard marked.count == 3 else { return }
        #expect(snippet.trimmingCharacters(in: .whitespacesAndNewlines) == marked[1].trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// And the snippet runs: on the shipped index it finds the five airports nearest the
    /// Eiffel Tower, Villacoublay first (11.6 km), each within 20 miles.
    @Test func theSnippetRunsOnTheShippedIndex() throws {
        let folder = try Self.shippedIndex.get()
        let found = try GettingStarted.nearestAirports(in: folder.path)
        #expect(found.count == 5, "\(found)")
        #expect(found.first?.hasPrefix("Villacoublay-Velizy (BA 107) Air Base, 11570 m") == true, "\(found)")
        let metres = found.compactMap { $0.split(separator: " ").dropLast().last.flatMap { Int($0) } }
        #expect(metres == metres.sorted() && metres.allSatisfy { $0 <= 32_187 }, "\(found)")
    }
}
