import Foundation
import PlaceModel

/// Opens a dump for reading, or says why it cannot be read.
/// - Throws: ``ImportError/unreadableFile(path:reason:)`` naming the path.
func openDump(_ path: String) throws -> (handle: FileHandle, size: Int) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw ImportError.fileNotFound(path: path)
    }
    guard !isDirectory.boolValue else { throw ImportError.unreadableFile(path: path, reason: "it is a directory") }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw ImportError.unreadableFile(path: path, reason: "permission denied")
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    return (handle, size)
}

/// One record of a dump: a place, or why a row could not be one.
public enum DumpRecord: Sendable {
    case place(Place)
    case rejected(RowProblem)
    /// A row left out on purpose (a closed place): not a place of the snapshot, not an error.
    case skipped(RowProblem)
}

/// Reads a dump one record at a time, in constant memory.
public protocol DumpReader {
    /// The next record, or nil at the end of the dump.
    mutating func next() throws -> DumpRecord?
    /// How far through the file the reader is, 0…1, when it can tell.
    var progress: Double? { get }
}

extension DumpReader {
    public var progress: Double? { nil }
}

/// A dump of CSV rows with a header naming the columns (geonames-csv, airports-csv).
struct CSVTableReader: DumpReader {
    private var csv: CSVReader
    var progress: Double? { csv.progress }
    private let format: ImportFormat
    private let columnCount: Int
    private let columns: [String: Int]
    private let importedAt: Date

    init(path: String, format: ImportFormat, importedAt: Date) throws {
        csv = try CSVReader(path: path)
        guard let header = csv.next() else { throw ImportError.emptyFile(path: path) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var columns: [String: Int] = [:]
        for (offset, name) in names.enumerated() where columns[name] == nil { columns[name] = offset }
        let missing = format.requiredColumns.filter { columns[$0] == nil }
        guard missing.isEmpty else {
            throw ImportError.missingColumns(path: path, format: format.rawValue, missing: missing, found: names)
        }
        self.format = format
        self.columns = columns
        columnCount = names.count
        self.importedAt = importedAt
    }

    mutating func next() throws -> DumpRecord? {
        guard let record = csv.next() else { return nil }
        do throws(RowRejection) {
            guard record.fields.count == columnCount else {
                throw RowRejection("expected \(columnCount) fields, found \(record.fields.count)")
            }
            return .place(try format.place(from: CSVRow(fields: record.fields, columns: columns), importedAt: importedAt))
        } catch {
            let problem = RowProblem(line: record.line, reason: error.reason)
            return error.isSkip ? .skipped(problem) : .rejected(problem)
        }
    }
}

/// Reads a text file line by line in 1 MiB chunks; lines end at LF (a CR before it is dropped).
struct LineReader {
    private let handle: FileHandle
    private let fileSize: Int
    private var consumed = 0
    /// Share of the file handed out so far.
    var progress: Double? { fileSize > 0 ? min(1, Double(consumed - (buffer.count - position)) / Double(fileSize)) : nil }
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private(set) var lineNumber = 0

    init(path: String) throws {
        (handle, fileSize) = try openDump(path)
    }

    /// The next record of a line-per-record dump: `parse` gets each line's bytes and 1-based
    /// number and returns nil for a line to skip (blank); nil at the end of the file.
    mutating func nextRecord(_ parse: (ArraySlice<UInt8>, _ line: Int) -> DumpRecord?) -> DumpRecord? {
        while true {
            let number = lineNumber + 1
            guard let result = next({ parse($0, number) }) else { return nil }
            if let record = result { return record }
        }
    }

    /// Calls `body` with the next line's bytes (without its line ending); false at the end.
    mutating func next<T>(_ body: (ArraySlice<UInt8>) throws -> T) rethrows -> T? {
        while true {
            if let newline = buffer[position...].firstIndex(of: 0x0A) {
                var end = newline
                if end > position && buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[position..<end]
                position = newline + 1
                lineNumber += 1
                return try body(line)
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                let line = buffer[position...]
                position = buffer.count
                lineNumber += 1
                return try body(line)
            }
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty {
                atEnd = true
                continue
            }
            consumed += chunk.count
            buffer.removeFirst(position)
            position = 0
            buffer.append(contentsOf: chunk)
        }
    }
}
