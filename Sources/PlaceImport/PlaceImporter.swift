import Foundation
import GeoCore
import PlaceModel
import PlaceStore

/// What an import did.
public struct ImportSummary: Sendable, Hashable, Codable {
    public var file: String
    public var format: String
    public var source: String
    /// Data rows read (the header excluded).
    public var rowsRead: Int
    /// Places inserted or replaced.
    public var imported: Int
    public var rejected: Int
    /// The first rejected rows, with their line numbers and reasons.
    public var problems: [String]
    public var seconds: Double
    public var rowsPerSecond: Double { seconds > 0 ? Double(rowsRead) / seconds : 0 }

    /// One line for a terminal.
    public var line: String {
        String(format: "imported %d places from %@ (%@): %d rows read, %d rejected, %.2f s, %.0f rows/s",
               imported, file, source, rowsRead, rejected, seconds, rowsPerSecond)
    }
}

/// Options of an import.
public struct ImportOptions: Sendable {
    /// The import fails, changing nothing, when more than this share of rows is rejected.
    public var maximumRejectRatio: Double = 0.01
    /// Fail on the first rejected row.
    public var strict = false
    /// Places written per batch inside the single transaction.
    public var batchSize = 10_000
    /// How many problems the summary lists.
    public var problemsToReport = 20

    public init(maximumRejectRatio: Double = 0.01, strict: Bool = false) {
        self.maximumRejectRatio = maximumRejectRatio
        self.strict = strict
    }
}

/// Reads a dump and writes its places to an index in one transaction.
///
/// A crash, a kill or a thrown error at any point leaves the index as it was before.
public enum PlaceImporter {
    /// Imports `path` in `format` into `index`.
    /// - Throws: ``ImportError`` (unreadable file, wrong header, too many rejects) or a store error;
    ///   in every case the index is unchanged.
    public static func importFile(_ path: String, format: ImportFormat, into index: SpatiaLitePlaceIndex,
                                  options: ImportOptions = ImportOptions()) throws -> ImportSummary {
        let started = Date()
        var reader = try CSVReader(path: path)
        guard let header = reader.next() else { throw ImportError.emptyFile(path: path) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var columns: [String: Int] = [:]
        for (offset, name) in names.enumerated() where columns[name] == nil { columns[name] = offset }
        let missing = format.requiredColumns.filter { columns[$0] == nil }
        guard missing.isEmpty else {
            throw ImportError.missingColumns(path: path, format: format.rawValue, missing: missing, found: names)
        }
        var summary = ImportSummary(file: (path as NSString).lastPathComponent, format: format.rawValue,
                                    source: format.source, rowsRead: 0, imported: 0, rejected: 0,
                                    problems: [], seconds: 0)
        var problems: [RowProblem] = []
        try index.write { writer in
            var batch: [Place] = []
            batch.reserveCapacity(options.batchSize)
            while let record = reader.next() {
                summary.rowsRead += 1
                do throws(RowRejection) {
                    guard record.fields.count == names.count else {
                        throw RowRejection("expected \(names.count) fields, found \(record.fields.count)")
                    }
                    batch.append(try format.place(from: CSVRow(fields: record.fields, columns: columns), importedAt: started))
                } catch {
                    summary.rejected += 1
                    problems.append(RowProblem(line: record.line, reason: error.reason))
                    if options.strict {
                        throw ImportError.tooManyRejects(rejected: 1, total: summary.rowsRead, maximumRatio: 0,
                                                         firstProblems: problems)
                    }
                }
                if batch.count >= options.batchSize {
                    summary.imported += try writer.upsert(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            summary.imported += try writer.upsert(batch)
            if summary.rowsRead > 0, Double(summary.rejected) / Double(summary.rowsRead) > options.maximumRejectRatio {
                throw ImportError.tooManyRejects(rejected: summary.rejected, total: summary.rowsRead,
                                                 maximumRatio: options.maximumRejectRatio, firstProblems: problems)
            }
            try writer.setMetadata(ISO8601DateFormatter().string(from: started), forKey: "imported:" + format.source)
        }
        summary.problems = problems.prefix(options.problemsToReport).map(\.description)
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }
}
