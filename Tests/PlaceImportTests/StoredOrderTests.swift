import Foundation
import GeoCore
import Testing

@testable import PlaceImport
@testable import PlaceStore

/// An import stores each batch in Hilbert-curve order, whatever the dump's order, so that
/// places near each other share pages. The shipped cities (34 006 rows, ordered by GeoNames id,
/// which is not the map's order) fit in one batch of the default size, so all of them are stored
/// in map order.
@Suite struct StoredOrderTests {
    /// The Hilbert index of every stored place, in the order SQLite stores them (pk order).
    static func hilbertIndexesInStoredOrder(_ index: SpatiaLitePlaceIndex) throws -> [UInt32] {
        try index.locked {
            let rows = try index.connection.prepare("SELECT lat, lon FROM places ORDER BY pk")
            var result: [UInt32] = []
            while try rows.step() { result.append(HilbertCurve.index(latitude: rows.double(0), longitude: rows.double(1))) }
            return result
        }
    }

    @Test func aDumpInNoSpatialOrderIsStoredInMapOrder() throws {
        try withTemporaryDirectory { directory in
            let path = repositoryRoot.appendingPathComponent("geodata/cities15000.csv").path
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(path, format: .geonamesCSV, into: index)
            #expect(summary.added == 34_006)
            let stored = try Self.hilbertIndexesInStoredOrder(index)
            #expect(stored.count == 34_006)
            #expect(zip(stored, stored.dropFirst()).allSatisfy { $0 <= $1 }, "every place stored in Hilbert order")

            // The same dump in batches of 10 000 (the earlier default) is in order only within
            // each of its four batches: the dump itself is not in map order.
            let small = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("small.sqlite").path, mode: .createIfMissing)
            var options = ImportOptions()
            options.batchSize = 10_000
            _ = try PlaceImporter.importFile(path, format: .geonamesCSV, into: small, options: options)
            let batched = try Self.hilbertIndexesInStoredOrder(small)
            #expect(zip(batched, batched.dropFirst()).filter { $0 > $1 }.count == 3, "one break between batches")
        }
    }
}
