import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import Testing

@testable import PlaceStore

/// Rows written one at a time (gems, a nightly import's new places) are stored by their
/// position: their pks follow the Hilbert curve, so neighbours share pages as a bulk load's do.
@Suite struct RowOrderTests {
    static func storedOrder(_ index: SpatiaLitePlaceIndex) throws -> [(pk: Int64, id: String, hilbert: UInt32)] {
        try index.locked {
            let rows = try index.connection.prepare("SELECT pk, id, lat, lon FROM places ORDER BY pk")
            var result: [(Int64, String, UInt32)] = []
            while try rows.step() {
                result.append((rows.int64(0), rows.text(1) ?? "", HilbertCurve.index(latitude: rows.double(2), longitude: rows.double(3))))
            }
            return result
        }
    }

    @Test func placesAddedOneAtATimeAreStoredInHilbertOrder() throws {
        try withTemporaryIndex { index, _ in
            var generator = SplitMix64(seed: 21)
            var places: [Place] = []
            for n in 0..<400 {  // the poles and the antimeridian included
                let latitude = n < 4 ? [90.0, -90, 0, 0][n] : Double.random(in: -89.9...89.9, using: &generator)
                let longitude = n < 4 ? [0.0, 0, 180, -180][n] : Double.random(in: -180...180, using: &generator)
                places.append(try makePlace("t:\(n)", latitude, longitude, categories: ["food"]))
            }
            places.append(try makePlace("t:near0", places[10].coordinate.latitude, places[10].coordinate.longitude + 1e-6))
            for place in places.shuffled(using: &generator) { #expect(try index.upsert([place]) == 1) }

            let stored = try Self.storedOrder(index)
            #expect(stored.count == places.count)
            #expect(zip(stored, stored.dropFirst()).allSatisfy { $0.hilbert <= $1.hilbert }, "pk order is Hilbert order")
            let sameCell = stored.filter {
                $0.hilbert
                    == HilbertCurve.index(
                        latitude: places[10].coordinate.latitude,
                        longitude: places[10].coordinate.longitude)
            }
            #expect(sameCell.count == 2 && sameCell[1].pk == sameCell[0].pk + 1, "two places of one cell get consecutive pks")

            // An update keeps the row's pk and replaces its categories; the count is unchanged.
            let before = try #require(stored.first { $0.id == "t:7" })
            let renamed = try makePlace("t:7", places[7].coordinate.latitude, places[7].coordinate.longitude, name: "Renamed", categories: ["nature"])
            let counts = try index.write { try $0.upsertCounting(try EncodedBatch([renamed])) }
            #expect(counts.inserted == 0 && counts.updated == 1)
            #expect(try Self.storedOrder(index).first { $0.id == "t:7" }?.pk == before.pk)
            let page = try index.near(
                places[7].coordinate, radius: try Distance(parsing: "1m"),
                filter: PlaceFilter(categories: [Category("nature")]))
            #expect(page.matches.map(\.id.rawValue) == ["t:7"])
            let food = try index.near(places[7].coordinate, radius: try Distance(parsing: "1m"), filter: PlaceFilter(categories: [Category("food")]))
            #expect(food.matches.isEmpty, "the old category is gone")
            try index.locked { () throws in
                #expect(try index.connection.scalarText("SELECT rtreecheck('idx_places_geom')") == "ok")
                #expect(try index.connection.scalarInt("SELECT CheckSpatialIndex('places', 'geom')") == 1)
            }
        }
    }

    /// A cell whose keys are all taken sends its next row after the table's highest pk.
    @Test func aFullCellSpillsToTheEndOfTheTable() throws {
        try withTemporaryIndex { index, _ in
            let paris = try makePlace("t:paris", 48.8566, 2.3522)
            let sydney = try makePlace("t:sydney", -33.8688, 151.2093)
            #expect(try index.upsert([sydney]) == 1)
            let cell = HilbertCurve.index(latitude: 48.8566, longitude: 2.3522)
            let lastKey = PlaceWriter.positionKeyBase + Int64(cell) * PlaceWriter.keysPerCell + PlaceWriter.keysPerCell - 1
            try index.locked {
                try index.connection.execute(
                    """
                    INSERT INTO places (pk, id, source, name, lat, lon, geom) VALUES
                    (\(lastKey), 't:louvre', 't', 'Louvre', 48.8606, 2.3376, MakePoint(2.3376, 48.8606, 4326))
                    """)
            }
            let highestBefore = try #require(try Self.storedOrder(index).map(\.pk).max())
            #expect(try index.upsert([paris]) == 1)
            let stored = try Self.storedOrder(index)
            #expect(stored.first { $0.id == "t:paris" }?.pk == highestBefore + 1, "\(stored)")
            let near = try index.near(paris.coordinate, radius: try Distance(parsing: "2km"))
            #expect(near.matches.map(\.id.rawValue) == ["t:paris", "t:louvre"])
        }
    }
}
