import CBzip2
import Foundation

/// bzip2 decompression with libbz2, for `.osm.bz2` dumps. Handles multi-stream files (as
/// `pbzip2` and `lbzip2` write them): each stream is decompressed in turn.
enum Bzip2 {
    /// Decompresses `source` into a new file at `destination`, 1 MiB at a time.
    /// - Throws: ``ImportError/corruptDump(path:reason:)`` when the data is not valid bzip2.
    static func decompress(_ source: String, to destination: String) throws {
        let input = try openDump(source).handle
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: destination, contents: nil),
            let output = FileHandle(forWritingAtPath: destination)
        else {
            throw ImportError.unreadableFile(path: destination, reason: "cannot create a temporary file to decompress into")
        }
        defer { try? output.close() }

        var stream = bz_stream()
        guard BZ2_bzDecompressInit(&stream, 0, 0) == BZ_OK else {
            throw ImportError.corruptDump(path: source, reason: "bzip2 could not start")
        }
        defer { BZ2_bzDecompressEnd(&stream) }
        let chunk = 1 << 20
        var inputBuffer = [UInt8]()
        var inputOffset = 0
        var outputBuffer = [UInt8](repeating: 0, count: chunk)
        var sawData = false
        while true {
            if inputOffset == inputBuffer.count {
                inputBuffer = [UInt8](input.readData(ofLength: chunk))
                inputOffset = 0
                if inputBuffer.isEmpty {
                    guard sawData else { throw ImportError.emptyFile(path: source) }
                    // The stream must have ended exactly at the end of the file.
                    throw ImportError.corruptDump(path: source, reason: "the bzip2 data ends early (is the download truncated?)")
                }
            }
            sawData = true
            let status: Int32 = inputBuffer.withUnsafeMutableBufferPointer { inBytes in
                outputBuffer.withUnsafeMutableBufferPointer { outBytes in
                    inBytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: inBytes.count) { inChars in
                        outBytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: outBytes.count) { outChars in
                            stream.next_in = inChars + inputOffset
                            stream.avail_in = UInt32(inBytes.count - inputOffset)
                            stream.next_out = outChars
                            stream.avail_out = UInt32(outBytes.count)
                            return BZ2_bzDecompress(&stream)
                        }
                    }
                }
            }
            inputOffset = inputBuffer.count - Int(stream.avail_in)
            let produced = chunk - Int(stream.avail_out)
            if produced > 0 { output.write(Data(outputBuffer[0..<produced])) }
            switch status {
            case BZ_OK: continue
            case BZ_STREAM_END:
                // Another stream may follow (multi-stream files); otherwise this is the end.
                if inputOffset == inputBuffer.count {
                    inputBuffer = [UInt8](input.readData(ofLength: chunk))
                    inputOffset = 0
                    if inputBuffer.isEmpty { return }
                }
                BZ2_bzDecompressEnd(&stream)
                stream = bz_stream()
                guard BZ2_bzDecompressInit(&stream, 0, 0) == BZ_OK else {
                    throw ImportError.corruptDump(path: source, reason: "bzip2 could not start")
                }
            case BZ_DATA_ERROR, BZ_DATA_ERROR_MAGIC:
                throw ImportError.corruptDump(path: source, reason: "damaged bzip2 data")
            default:
                throw ImportError.corruptDump(path: source, reason: "bzip2 error \(status)")
            }
        }
    }
}
