import ArgumentParser
import Foundation
import Logging
import PlaceImport
import PlaceStore

/// `geoquery import`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a dump into the index (created if missing), in one transaction.",
        discussion: """
            Formats: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")). Rows that cannot be \
            read are counted and reported with their line number; when more than --max-reject-ratio \
            of rows are bad (or any, with --strict) nothing is changed and the exit code is 65.
            """)

    @Argument(help: "The file to import.") var file: String
    @Option(help: "Input format: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).") var format: String
    @Option(help: "The source this dump is a complete snapshot of (default: the format's, e.g. geonames).")
    var source: String?
    @Option(name: .customLong("max-reject-ratio"), help: "Fail when more than this share of rows is bad (0 to 1).")
    var maximumRejectRatio: Double = 0.01
    @Flag(help: "Fail on the first bad row.") var strict = false
    @Option(name: .customLong("id-field"), help: "GeoJSON property holding the id (default: id, else the feature's id).")
    var idField = "id"
    @Option(name: .customLong("name-field"), help: "GeoJSON property holding the name.") var nameField = "name"
    @Option(name: .customLong("category-field"), help: "GeoJSON property holding a category id or a list of them (default: category, else categories).")
    var categoryField = "category"
    @Flag(help: "Print the summary as JSON.") var json = false
    @OptionGroup var index: IndexOptions

    func validate() throws {
        do { _ = try ImportFormat(name: format) } catch { throw ValidationError("--format: \(error)") }
        if let source {
            guard !source.isEmpty, source.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }) else {
                throw ValidationError("--source '\(source)' is invalid: use lower-case letters, digits, '-' and '_', e.g. osm-andorra")
            }
        }
        guard (0...1).contains(maximumRejectRatio) else {
            throw ValidationError("--max-reject-ratio \(maximumRejectRatio) is invalid: it must be from 0 to 1")
        }
    }

    func run() throws {
        let logger = Logger(label: "geoquery.import")
        let format = try ImportFormat(name: self.format)
        let summary = try reportingFailures {
            let store = try SpatiaLitePlaceIndex(path: index.path, mode: .createIfMissing)
            var options = ImportOptions(maximumRejectRatio: maximumRejectRatio, strict: strict)
            options.mapping = PropertyMapping(idField: idField, nameField: nameField, categoryField: categoryField)
            return try PlaceImporter.importFile(file, format: format, into: store, source: source, options: options)
        }
        for problem in summary.problems { logger.warning("rejected \(summary.file) \(problem)") }
        if summary.rejected > summary.problems.count {
            logger.warning("… and \(summary.rejected - summary.problems.count) more rejected rows")
        }
        if json {
            FileHandle.standardOutput.write(Data((try Renderer.jsonLine(summary) + "\n").utf8))
        } else {
            print(summary.line)
        }
    }
}
