import ArgumentParser
import Foundation
import Logging
import PlaceImport
import PlaceQuery
import PlaceStore
import PostGISStore
import Regions

/// `geoquery import`.
struct Import: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        abstract: "Import a dump into the index (created if missing), in one transaction.",
        discussion: """
            Formats: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")). Rows that cannot be \
            read are counted and reported with their line number; when more than --max-reject-ratio \
            of rows are bad (or any, with --strict) nothing is changed and the exit code is 65.
            """)

    @Argument(help: "The file to import.") var file: String
    @Option(help: "Input format: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default: detected from the name and content).")
    var format: String?
    @Option(help: "The source this dump is a complete snapshot of (default: the format's, e.g. geonames).")
    var source: String?
    @Option(name: .customLong("max-reject-ratio"), help: "Fail when more than this share of rows is bad (0 to 1).")
    var maximumRejectRatio: Double = 0.01
    @Flag(help: "Fail on the first bad row.") var strict = false
    @Option(name: .customLong("lat-column"), help: "CSV column holding the latitude (default: lat, latitude or y).") var latColumn: String?
    @Option(name: .customLong("lon-column"), help: "CSV column holding the longitude (default: lon, lng, longitude or x).") var lonColumn: String?
    @Option(name: .customLong("id-column"), help: "CSV column holding the id (default: id).") var idColumn: String?
    @Option(name: .customLong("name-column"), help: "CSV column holding the name (default: name or title).") var nameColumn: String?
    @Option(name: .customLong("category-column"), help: "CSV column holding category ids (default: category or categories).") var categoryColumn:
        String?
    @Option(help: "CSV field separator: one character, or 'tab'.") var delimiter: String = ","
    @Option(name: .customLong("id-field"), help: "GeoJSON property holding the id (default: id, else the feature's id).")
    var idField = "id"
    @Option(name: .customLong("name-field"), help: "GeoJSON property holding the name.") var nameField = "name"
    @Option(
        name: .customLong("category-field"), help: "GeoJSON property holding a category id or a list of them (default: category, else categories).")
    var categoryField = "category"
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Folder with countries.geojson.gz, countries.csv and cities15000.csv (GEOQUERY_DATA_DIR; default geodata).",
            discussion: "Each place's country, continent and time zone are decided from them once, here. Without them "
                + "places are stored with none, and the country, continent and open-now filters leave them out."))
    var dataDirectory: String?
    @Flag(name: .customLong("no-regions"), help: "Do not decide countries, continents and time zones.") var noRegions = false
    @Flag(help: "Print the summary as JSON.") var json = false
    @OptionGroup var index: IndexOptions

    func check() throws {
        if let format {
            do { _ = try ImportFormat(name: format) } catch { throw ValidationError("--format: \(error)") }
        }
        guard delimiter == "tab" || delimiter.count == 1, delimiter.first?.isASCII ?? false else {
            throw ValidationError("--delimiter '\(delimiter)' is invalid: use one ASCII character, or 'tab'")
        }
        if let source {
            guard !source.isEmpty, source.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F })
            else {
                throw ValidationError("--source '\(source)' is invalid: use lower-case letters, digits, '-' and '_', e.g. osm-andorra")
            }
        }
        guard (0...1).contains(maximumRejectRatio) else {
            throw ValidationError("--max-reject-ratio \(maximumRejectRatio) is invalid: it must be from 0 to 1")
        }
    }

    func run() async throws {
        // A database is opened (and migrated) first; the import then runs on this thread, which
        // the cooperative pool does not need, while postgres-nio's event loops do the I/O.
        let database = index.isDatabaseURL ? try await index.openDatabase(maximumConnections: 1) : nil
        let summary = try runImport(database: database)
        await database?.close()
        report(summary)
    }

    private func runImport(database: PostGISPlaceIndex?) throws -> ImportSummary {
        let logger = Logger(label: "geoquery.import")
        return try reportingFailures {
            let format = try self.format.map(ImportFormat.init(name:)) ?? ImportFormat.detect(path: file)
            var options = ImportOptions(maximumRejectRatio: maximumRejectRatio, strict: strict)
            options.mapping = PropertyMapping(idField: idField, nameField: nameField, categoryField: categoryField)
            options.columns = CSVColumns(
                latitude: latColumn, longitude: lonColumn, id: idColumn, name: nameColumn,
                category: categoryColumn, delimiter: delimiter == "tab" ? "\t" : Character(delimiter))
            options.regions = try regions(logger: logger)
            // A progress line on a terminal only: rows, rate, share of the file and time left.
            let started = Date()
            let onTerminal = isatty(STDERR_FILENO) != 0
            defer { if onTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
            let progress: ((Int, Double?) -> Void)? =
                onTerminal
                ? { rows, fraction in
                    let seconds = max(Date().timeIntervalSince(started), 0.001)
                    var line = String(format: "\r\u{1B}[K%@: %d rows, %.0f rows/s", format.rawValue, rows, Double(rows) / seconds)
                    if let fraction, fraction > 0 {
                        line += String(format: ", %.0f%%, about %.0f s left", fraction * 100, seconds / fraction - seconds)
                    }
                    FileHandle.standardError.write(Data(line.utf8))
                } : nil
            if let database {
                return try PlaceImporter.importFile(file, format: format, into: database, source: source, options: options, progress: progress)
            }
            let store = try SpatiaLitePlaceIndex(path: index.path, mode: .createIfMissing)
            return try PlaceImporter.importFile(file, format: format, into: store, source: source, options: options, progress: progress)
        }
    }

    private func report(_ summary: ImportSummary) {
        let logger = Logger(label: "geoquery.import")
        for problem in summary.problems { logger.warning("rejected \(summary.file) \(problem)") }
        if summary.rejected > summary.problems.count {
            logger.warning("… and \(summary.rejected - summary.problems.count) more rejected rows")
        }
        if json, let line = try? Renderer.jsonLine(summary) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        } else {
            print(summary.line)
        }
    }

    /// The region data: from `--data-dir` (an error when it cannot be read), else from
    /// `$GEOQUERY_DATA_DIR` or `geodata` when that holds the files (a warning when it does not).
    private func regions(logger: Logger) throws -> RegionLocator? {
        if noRegions { return nil }
        if let dataDirectory { return try RegionLocator(dataDirectory: dataDirectory) }
        let directory = resolvedDataDirectory(nil)
        guard FileManager.default.fileExists(atPath: directory + "/" + RegionLocator.boundariesFile) else {
            logger.warning(
                "no \(directory)/\(RegionLocator.boundariesFile): places are imported without country, continent or time zone (give --data-dir)")
            return nil
        }
        return try RegionLocator(dataDirectory: directory)
    }
}
