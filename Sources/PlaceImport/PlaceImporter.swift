import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Regions

/// What an import did.
public struct ImportSummary: Sendable, Hashable, Codable {
    public var file: String
    public var format: String
    /// The source the dump is a snapshot of.
    public var source: String
    /// Data rows read (a header excluded).
    public var rowsRead: Int
    public var added: Int
    public var updated: Int
    public var unchanged: Int
    /// Places of the source that were not in the dump.
    public var removed: Int
    public var rejected: Int
    /// Rows left out on purpose (closed places, unnamed OpenStreetMap POIs).
    public var skipped: Int = 0
    /// The first rejected rows, with their line numbers and reasons.
    public var problems: [String]
    public var seconds: Double
    public var rowsPerSecond: Double { seconds > 0 ? Double(rowsRead) / seconds : 0 }
    /// Whether the import changed the index.
    public var changedAnything: Bool { added + updated + removed > 0 }

    /// One line for a terminal.
    public var line: String {
        let outcome =
            changedAnything
            ? "\(added) added, \(updated) updated, \(unchanged) unchanged, \(removed) removed"
            : "nothing changed (\(unchanged) unchanged)"
        let why = ImportFormat(rawValue: format)?.skipDescription
        let skippedText = skipped > 0 ? ", \(skipped) skipped" + (why.map { " (\($0))" } ?? "") : ""
        return String(
            format: "%@ from %@: %d rows, %@, %d rejected%@; %.2f s, %.0f rows/s",
            source, file, rowsRead, outcome, rejected, skippedText, seconds, rowsPerSecond)
    }
}

/// Options of an import.
public struct ImportOptions: Sendable {
    /// The import fails, changing nothing, when more than this share of rows is rejected.
    public var maximumRejectRatio: Double = 0.01
    /// Fail on the first rejected row.
    public var strict = false
    /// Places written per batch inside the single transaction; nil for what suits the store
    /// (``PlaceBatch/preferredCount``: 100 000 for SpatiaLite, which stores a batch in map
    /// order; 10 000 for PostgreSQL, whose `COPY` overlaps the reading thread better in
    /// smaller pieces).
    public var batchSize: Int?
    /// How many problems the summary lists.
    public var problemsToReport = 20
    /// Which GeoJSON properties hold id, name and categories.
    public var mapping = PropertyMapping()
    /// Which columns of a generic CSV hold what.
    public var columns = CSVColumns()
    /// Decides each place's country, continent and time zone (``Place/region``); without it
    /// places are stored without a region, and country, continent and open-now filters leave
    /// them out.
    public var regions: RegionLocator?

    public init(maximumRejectRatio: Double = 0.01, strict: Bool = false) {
        self.maximumRejectRatio = maximumRejectRatio
        self.strict = strict
    }
}

/// Imports a dump as a complete snapshot of one source (DESIGN.md "Import semantics").
///
/// After an import the index holds exactly the dump's places for that source: new places added,
/// changed ones rewritten, unchanged ones left alone, places missing from the dump removed;
/// other sources are untouched. It is one transaction: a thrown error, too many bad rows, a
/// crash or a kill leaves the previous snapshot. Running the same dump again changes nothing.
public enum PlaceImporter {
    /// Imports `path` in `format` into `index` as the snapshot of `source` (default: the
    /// format's own, e.g. `geonames`).
    /// - Throws: ``ImportError`` (unreadable file, wrong header, empty dump, too many rejects) or a
    ///   store error; in every case the index is unchanged.
    /// - Parameter progress: called after each batch (``ImportOptions/batchSize``), at most
    ///   once every 50 000 rows, with the rows read and, when the
    ///   reader can tell, the share of the file read (for a progress bar).
    ///
    /// Blocks the calling thread until the commit: call it from a thread of its own, not from
    /// Swift's cooperative pool.
    public static func importFile<Store: SnapshotStore>(
        _ path: String, format: ImportFormat, into index: Store,
        source: String? = nil, options: ImportOptions = ImportOptions(),
        progress: ((_ rows: Int, _ fraction: Double?) -> Void)? = nil
    ) throws -> ImportSummary {
        let started = Date()
        let sourceName = source ?? format.source
        let reader = try format.reader(
            path: path, importedAt: started, source: sourceName, mapping: options.mapping,
            columns: options.columns)
        var summary = ImportSummary(
            file: (path as NSString).lastPathComponent, format: format.rawValue, source: sourceName,
            rowsRead: 0, added: 0, updated: 0, unchanged: 0, removed: 0, rejected: 0,
            problems: [], seconds: 0)
        var problems: [RowProblem] = []
        // Reading, parsing and encoding run on a thread of their own, writing on this one.
        let pipeline = ReadingPipeline<Store.Writer.Batch>(
            reader: reader, source: sourceName, batchSize: options.batchSize ?? Store.Writer.Batch.preferredCount,
            problemsToKeep: max(options.problemsToReport, 5), regions: options.regions)
        defer { pipeline.cancel() }
        try index.importSnapshot { writer in
            try writer.beginSnapshot(source: sourceName)
            var reported = 0
            while let chunk = try pipeline.next() {
                summary.rowsRead += chunk.rows
                summary.skipped += chunk.skipped
                summary.rejected += chunk.rejected
                problems += chunk.problems
                if options.strict && chunk.rejected > 0 {
                    throw ImportError.tooManyRejects(
                        rejected: summary.rejected, total: summary.rowsRead, maximumRatio: 0,
                        firstProblems: problems)
                }
                let counts = try writer.merge(chunk.places)
                summary.added += counts.added
                summary.updated += counts.updated
                summary.unchanged += counts.unchanged
                if let progress, summary.rowsRead / 50_000 > reported {
                    reported = summary.rowsRead / 50_000
                    progress(summary.rowsRead, chunk.progress)
                }
            }
            // An empty dump would empty the source: refuse, as a truncated download looks just like it.
            guard summary.rowsRead > 0 else { throw ImportError.emptyFile(path: path) }
            if Double(summary.rejected) / Double(summary.rowsRead) > options.maximumRejectRatio {
                throw ImportError.tooManyRejects(
                    rejected: summary.rejected, total: summary.rowsRead,
                    maximumRatio: options.maximumRejectRatio, firstProblems: problems)
            }
            let finish = try writer.finishSnapshot()
            summary.removed = finish.removed
            summary.added += finish.counts.added
            summary.updated += finish.counts.updated
            summary.unchanged += finish.counts.unchanged
            try writer.recordImport(of: sourceName, at: started)
        }
        summary.problems = problems.prefix(options.problemsToReport).map(\.description)
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }
}
