import Foundation
import GeoCore

/// Facts about an index: where it is, its schema version, its size on disk, and each source.
public struct IndexStatistics: Sendable, Hashable, Codable {
    public struct Source: Sendable, Hashable, Codable {
        public var name: String
        public var count: Int
        /// The box holding every place of the source.
        public var extent: BoundingBox
        /// ISO 8601 time of the last import, if one was recorded.
        public var lastImport: String?

        public init(name: String, count: Int, extent: BoundingBox, lastImport: String?) {
            self.name = name
            self.count = count
            self.extent = extent
            self.lastImport = lastImport
        }
    }

    public var path: String
    public var schemaVersion: Int
    public var fileSize: Int
    public var sources: [Source]
    public var total: Int { sources.reduce(0) { $0 + $1.count } }

    public init(path: String, schemaVersion: Int, fileSize: Int, sources: [Source]) {
        self.path = path
        self.schemaVersion = schemaVersion
        self.fileSize = fileSize
        self.sources = sources
    }
}
