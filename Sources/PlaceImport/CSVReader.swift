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
        if chunk.isEmpty {
            atEnd = true
            return false
        }
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
        while true {
            switch nextPlainLine() {
            case .record(let record): return record
            case .blank: continue
            case .notPlain: return nextQuotedOrSplit()
            }
        }
    }

    private enum PlainLine {
        case record(Record)
        case blank
        /// The line has a quote or a carriage return inside it, or is not wholly in the buffer.
        case notPlain
    }

    /// The fast path, for the lines of most files: a whole line in the buffer with no quote and
    /// no carriage return but at its end, split at the delimiter without copying byte by byte.
    private mutating func nextPlainLine() -> PlainLine {
        if position >= buffer.count && !refill() { return .notPlain }
        var lineEnd = buffer[position...].firstIndex(of: 0x0A)
        if lineEnd == nil {
            guard refill() else { return .notPlain }  // the last line, without a newline
            lineEnd = buffer[position...].firstIndex(of: 0x0A)
            guard lineEnd != nil else { return .notPlain }
        }
        let end = lineEnd!
        let delimiter = delimiter
        let result: PlainLine = buffer.withUnsafeBufferPointer { bytes in
            var contentEnd = end
            if contentEnd > position && bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            var fields: [String] = []
            var fieldStart = position
            for index in position..<contentEnd {
                let byte = bytes[index]
                if byte == delimiter {
                    fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[fieldStart..<index]), as: UTF8.self))
                    fieldStart = index + 1
                } else if byte == UInt8(ascii: "\"") || byte == 0x0D {
                    return .notPlain
                }
            }
            if contentEnd == position { return .blank }
            fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[fieldStart..<contentEnd]), as: UTF8.self))
            return .record(Record(fields: fields, line: line))
        }
        switch result {
        case .notPlain: break
        case .blank, .record:
            position = end + 1
            line += 1
        }
        return result
    }

    /// The general path: quoted fields, embedded newlines, carriage returns anywhere.
    private mutating func nextQuotedOrSplit() -> Record? {
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
