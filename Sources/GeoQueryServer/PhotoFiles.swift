import Accounts
import Foundation

/// A deployment's photo files: one file per photo in the photo folder (`photos/` beside the
/// user data file), named by the SHA-256 of its bytes under a folder of its first two hex
/// digits. A photo never changes: the same bytes are the same file.
public enum PhotoFiles {
    /// Where photo `id` lives in `directory`.
    public static func path(_ id: String, in directory: String) -> String {
        "\(directory)/\(id.prefix(2))/\(id)"
    }

    /// Where the variant of the photo at `path` at most `width` pixels wide is kept.
    public static func variantPath(_ path: String, width: Int) -> String { "\(path).w\(width)" }

    /// What ``copy(_:from:to:)`` did.
    public struct CopySummary: Sendable, Equatable {
        /// Files copied.
        public var copied = 0
        /// Their bytes.
        public var bytes = 0
        /// Ids with no file in the source folder (a photo deleted after the records were read).
        public var missing: [String] = []
        /// Ids whose file's bytes do not hash to the id (damaged on disk); copied as they are.
        public var damaged: [String] = []
    }

    /// Copies the files of `ids` from the photo folder `source` into the photo folder
    /// `destination` (created when missing), checking each file's bytes against its id. A file
    /// already in `destination` is left as it is: its name is its content.
    /// - Throws: a file system error (a full disk, a folder that cannot be written).
    public static func copy(_ ids: [String], from source: String, to destination: String) throws -> CopySummary {
        var summary = CopySummary()
        for id in ids where id.count == 64 && id.allSatisfy(\.isHexDigit) {
            let target = path(id, in: destination)
            guard let bytes = FileManager.default.contents(atPath: path(id, in: source)) else {
                summary.missing.append(id)
                continue
            }
            if SessionToken.sha256Hex(bytes) != id { summary.damaged.append(id) }
            if !FileManager.default.fileExists(atPath: target) {
                try FileManager.default.createDirectory(
                    atPath: (target as NSString).deletingLastPathComponent,
                    withIntermediateDirectories: true)
                try bytes.write(to: URL(fileURLWithPath: target), options: .atomic)
            }
            summary.copied += 1
            summary.bytes += bytes.count
        }
        return summary
    }
}
