import Foundation

/// A streaming RFC 4180 CSV reader: quoted fields (with `""` escapes and embedded newlines), any
/// single-byte delimiter, CRLF or LF, a UTF-8 byte-order mark skipped. Reads the file in 1 MiB
/// chunks, so memory stays flat however large the dump.
public struct CSVReader: Sequence, IteratorProtocol {
    /// One record and the 1-based line it starts on.
    public struct Record: Sendable {
        public var fields: [String]
        public var line: Int
    }

    private let handle: FileHandle
    private let delimiter: UInt8
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var line = 1
    private var startedReading = false
    private var fileSize = 0
    private var consumed = 0
    /// Share of the file handed out so far.
    public var progress: Double? { fileSize > 0 ? Swift.min(1, Double(consumed - (buffer.count - position)) / Double(fileSize)) : nil }

    /// Opens a file for reading.
    /// - Throws: ``ImportError/unreadableFile(path:reason:)``.
    public init(path: String, delimiter: Character = ",") throws {
        (handle, fileSize) = try openDump(path)
        self.delimiter = delimiter.asciiValue ?? UInt8(ascii: ",")
    }

    private mutating func refill() -> Bool {
        if atEnd { return false }
        let chunk = handle.readData(ofLength: 1 << 20)
        if chunk.isEmpty { atEnd = true; return false }
        consumed += chunk.count
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        buffer.append(contentsOf: chunk)
        if !startedReading {
            startedReading = true
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        }
        return true
    }

    /// The next record, or nil at the end of the file. A blank line is skipped.
    public mutating func next() -> Record? {
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var sawAnything = false
        var startLine = line
        while true {
            if position >= buffer.count {
                if !refill() {
                    if !sawAnything { return nil }
                    fields.append(String(decoding: field, as: UTF8.self))
                    return Record(fields: fields, line: startLine)
                }
            }
            let byte = buffer[position]
            position += 1
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if position >= buffer.count { _ = refill() }
                    if position < buffer.count && buffer[position] == UInt8(ascii: "\"") {
                        field.append(byte)
                        position += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if byte == 0x0A { line += 1 }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inQuotes = true
                sawAnything = true
            case delimiter:
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                sawAnything = true
            case 0x0A:
                line += 1
                if !sawAnything && field.isEmpty {  // blank line
                    startLine = line
                    continue
                }
                fields.append(String(decoding: field, as: UTF8.self))
                return Record(fields: fields, line: startLine)
            case 0x0D:
                continue
            default:
                field.append(byte)
                sawAnything = true
            }
        }
    }
}
