import Foundation

/// Errors that stop an import. A stopped import changes nothing in the index.
public enum ImportError: Error, Sendable, CustomStringConvertible {
    case unreadableFile(path: String, reason: String)
    /// No file at the path.
    case fileNotFound(path: String)
    /// The header lacks columns the format needs.
    case missingColumns(path: String, format: String, missing: [String], found: [String])
    /// An empty file, or one without a header.
    case emptyFile(path: String)
    /// More rows were rejected than allowed; the import was rolled back.
    case tooManyRejects(rejected: Int, total: Int, maximumRatio: Double, firstProblems: [RowProblem])
    /// `--format` names no known format.
    case unknownFormat(String)
    /// The file is not what its format says, or is damaged past reading (a truncated PBF).
    case corruptDump(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .fileNotFound(let path):
            return "no file at \(path): check the path (a relative one starts in \(FileManager.default.currentDirectoryPath))"
        case .missingColumns(let path, let format, let missing, let found):
            let article = "aeiou".contains(format.prefix(1).lowercased()) ? "an" : "a"
            let seen = found.isEmpty ? "it has none of the format's structure" : "found \(found.joined(separator: ", "))"
            let formats = ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")
            return
                "\(path) is not \(article) \(format) file: missing \(format == "geojson" ? "member" : "column(s)") \(missing.joined(separator: ", ")); \(seen). Is --format right? The formats are \(formats)"
        case .emptyFile(let path):
            return "\(path) has no places (is the download truncated?); an empty dump would empty its source, so nothing was changed"
        case .tooManyRejects(let rejected, let total, let ratio, let problems):
            let shown = problems.prefix(5).map { "  \($0)" }.joined(separator: "\n")
            return "rejected \(rejected) of \(total) rows, more than the allowed \(ratio * 100)%; nothing was changed\n\(shown)"
        case .corruptDump(let path, let reason):
            return "cannot import \(path): \(reason); nothing was changed"
        case .unknownFormat(let name):
            return "unknown format '\(name)'; valid formats are \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))"
        }
    }
}

/// Why one row was not imported.
public struct RowProblem: Sendable, Hashable, CustomStringConvertible {
    /// 1-based line in the file; 0 for dumps without lines (OpenStreetMap PBF).
    public var line: Int
    /// The element of a dump without lines, e.g. `way 4242`.
    public var element: String?
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public init(element: String, reason: String) {
        line = 0
        self.element = element
        self.reason = reason
    }

    public var description: String { element.map { "\($0): \(reason)" } ?? "line \(line): \(reason)" }
}

extension String {
    /// The string without leading and trailing whitespace; free when there is none (the usual
    /// case for a dump's fields), where Foundation's trimming always builds a new string.
    var trimmedWhitespace: String {
        guard let first = utf8.first, let last = utf8.last else { return self }
        func isPlain(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x80 }
        if isPlain(first) && isPlain(last) { return self }
        return trimmingCharacters(in: .whitespaces)
    }
}
