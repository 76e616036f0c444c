import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// The rows one query matched, copied byte for byte into a single buffer, so that collecting a
/// match costs a `memcpy` rather than a dozen allocations. A ``PlaceMatch`` points into it and
/// decodes its ``Place`` only when asked.
///
/// Layout of one row at `offset`: latitude and longitude as 8-byte doubles, then three 4-byte
/// lengths and the bytes of id, name and details (length `UInt32.max` = NULL).
final class RowArena: PlaceRowStorage, @unchecked Sendable {
    // @unchecked Sendable: the bytes are written only by the `Builder` that creates the arena,
    // before any `PlaceMatch` can see it, and never again.
    private let base: UnsafeMutableRawPointer?
    private let count: Int

    private init(base: UnsafeMutableRawPointer?, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { free(base) }

    static let headerSize = 8 * 2 + 4 * 3
    static let null = UInt32.max

    enum Field: Int { case id = 0, name, details }

    /// The arena's bytes, for reading.
    @inline(__always)
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Appends rows into a growing buffer (doubling), then hands it over to an arena without
    /// copying.
    struct Builder: ~Copyable {
        private var base: UnsafeMutableRawPointer?
        private var capacity = 0
        private(set) var count = 0

        init() {}

        deinit { free(base) }

        @inline(__always)
        private mutating func reserve(_ extra: Int) {
            guard count + extra > capacity else { return }
            capacity = max(65_536, capacity * 2, count + extra)
            base = realloc(base, capacity)
            precondition(base != nil, "out of memory collecting query results")
        }

        @inline(__always)
        private mutating func put<T>(_ value: T) {
            base!.storeBytes(of: value, toByteOffset: count, as: T.self)
            count += MemoryLayout<T>.size
        }

        @inline(__always)
        private mutating func copy(_ field: UnsafeRawBufferPointer?) {
            guard let field, field.count > 0 else { return }
            (base! + count).copyMemory(from: field.baseAddress!, byteCount: field.count)
            count += field.count
        }

        /// Copies the current row of a statement whose columns are ``Schema/selectColumns``; the
        /// caller passes the coordinates it has already read.
        /// - Returns: the row's offset.
        @inline(__always)
        mutating func append(_ row: SQLiteStatement, latitude: Double, longitude: Double) -> Int {
            let offset = count
            // id and name are NOT NULL columns; details is never an empty blob.
            let id = row.textBytes(3), name = row.textBytes(4), details = row.nonEmptyBlob(5)
            reserve(RowArena.headerSize + id.count + name.count + (details?.count ?? 0))
            put(latitude.bitPattern.littleEndian)
            put(longitude.bitPattern.littleEndian)
            put(UInt32(id.count).littleEndian)
            put(UInt32(name.count).littleEndian)
            put((details.map { UInt32($0.count) } ?? RowArena.null).littleEndian)
            copy(id)
            copy(name)
            copy(details)
            return offset
        }

        /// The arena holding everything appended.
        consuming func finish() -> RowArena {
            let arena = RowArena(base: base, count: count)
            base = nil
            return arena
        }
    }

    // MARK: Reading

    @inline(__always)
    static func double(_ buffer: UnsafeRawBufferPointer, _ at: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
    }

    /// The bytes of a field of the row at `offset`, or nil for NULL.
    @inline(__always)
    static func field(_ field: Field, in buffer: UnsafeRawBufferPointer, at offset: Int) -> UnsafeRawBufferPointer? {
        var start = offset + headerSize
        let lengths = offset + 16
        for index in 0..<field.rawValue {
            let length = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: lengths + 4 * index, as: UInt32.self))
            if length != null { start += Int(length) }
        }
        let length = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: lengths + 4 * field.rawValue, as: UInt32.self))
        if length == null { return nil }
        return UnsafeRawBufferPointer(rebasing: buffer[start..<(start + Int(length))])
    }

    func text(_ field: Field, at offset: Int) -> String? {
        withBytes { buffer in
            RowArena.field(field, in: buffer, at: offset).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    func id(at offset: Int) -> PlaceID { PlaceID(trustedRawValue: text(.id, at: offset) ?? "") }

    func name(at offset: Int) -> String { text(.name, at: offset) ?? "" }

    func coordinate(at offset: Int) -> Coordinate {
        withBytes { buffer in
            Coordinate(uncheckedLatitude: RowArena.double(buffer, offset), longitude: RowArena.double(buffer, offset + 8))
        }
    }

    /// Byte order of two rows' ids (SQLite's BINARY collation).
    @inline(__always)
    static func idPrecedes(_ buffer: UnsafeRawBufferPointer, _ a: Int, _ b: Int) -> Bool {
        let left = field(.id, in: buffer, at: a)!, right = field(.id, in: buffer, at: b)!
        let common = min(left.count, right.count)
        if common > 0 {
            let order = memcmp(left.baseAddress!, right.baseAddress!, common)
            if order != 0 { return order < 0 }
        }
        return left.count < right.count
    }

    func withStoredRow<R>(at offset: Int, _ body: (StoredPlaceRow) throws -> R) rethrows -> R? {
        try withBytes { buffer in
            let empty = UnsafeRawBufferPointer(start: nil, count: 0)
            return try body(
                StoredPlaceRow(
                    id: RowArena.field(.id, in: buffer, at: offset) ?? empty,
                    name: RowArena.field(.name, in: buffer, at: offset) ?? empty,
                    latitude: RowArena.double(buffer, offset), longitude: RowArena.double(buffer, offset + 8),
                    details: RowArena.field(.details, in: buffer, at: offset) ?? empty))
        }
    }

    /// The whole place stored at `offset`.
    func place(at offset: Int) -> Place {
        withBytes { buffer in
            func text(_ field: Field) -> String? {
                RowArena.field(field, in: buffer, at: offset).map { String(decoding: $0, as: UTF8.self) }
            }
            let idText = text(.id) ?? ""
            let id = PlaceID(trustedRawValue: idText)
            // A details record this build cannot read loses those fields, not the place.
            let details = RowArena.field(.details, in: buffer, at: offset).flatMap {
                try? PlaceDetailsCodec.decode($0, id: idText)
            }
            return PlaceDetailsCodec.place(
                id: id, name: text(.name) ?? "",
                coordinate: Coordinate(
                    uncheckedLatitude: RowArena.double(buffer, offset),
                    longitude: RowArena.double(buffer, offset + 8)),
                details: details)
        }
    }
}
