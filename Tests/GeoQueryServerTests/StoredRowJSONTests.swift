import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import PlaceStore
import PostGISStore
import PostgresTestSupport
import Testing

/// A place's JSON written from its stored row is byte for byte what the decoded place gives,
/// on the shipped data and on places made to test the edges; and the stored-row path is the
/// one taken.
@Suite struct StoredRowJSONTests {
    /// The JSON of each match both ways: from its stored row (as answers write it) and from the
    /// decoded place.
    static func bothWays(_ matches: [PlaceMatch], coordinates: Bool = true) -> [(fast: String, slow: String)] {
        matches.map { match in
            var fast = JSONWriter(), slow = JSONWriter()
            PlaceJSON.write(match, to: &fast, includeCoordinates: coordinates)
            PlaceJSON.write(match.place, distance: match.distance, to: &slow, includeCoordinates: coordinates)
            return (fast.text, slow.text)
        }
    }

    @Test func theShippedDataWritesTheSameBothWays() async throws {
        let store = try ServerFixture.shared.get().store
        let monaco = try await store.near(
            Coordinate(latitude: 43.7384, longitude: 7.4246), radius: Distance(meters: 40_000),
            filter: .none, limit: nil, cursor: nil)
        let world = try await store.within(.world, filter: PlaceFilter(sources: ["geonames", "airport"]), limit: 20_000, cursor: nil)
        #expect(monaco.matches.count + world.matches.count > 20_000)
        // Every OSM place of Monaco (the richest rows) and every fourth city and airport: enough
        // variety without holding a test thread for long.
        let matches = monaco.matches + world.matches.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
        for (fast, slow) in Self.bothWays(matches) + Self.bothWays(Array(matches.prefix(500)), coordinates: false) where fast != slow {
            Issue.record("stored-row JSON differs:\n\(fast)\n\(slow)")
            break
        }
    }

    @Test func edgeCasesWriteTheSameBothWays() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-rowjson-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("p.sqlite").path, mode: .createIfMissing)
        let at = try Coordinate(latitude: 35.6895, longitude: 139.69171)
        var places: [Place] = [
            try Place(
                id: PlaceID("t:1"), name: "Quote \" back\\slash\ttab \u{1}ctl 東京 🍣", coordinate: at,
                categories: [Category("food.restaurant"), Category("drink.bar")],
                address: Address(street: "1 Rue \"A\"", postcode: "", countryCode: "JP"),
                rating: Rating(sourceValue: 8.6, scale: 10, count: 1234), priceLevel: PriceLevel(3),
                phone: "+81 3", website: "https://example.org/?a=1&b=\"2\"",
                openingHours: OpeningHours(text: "Mo-Fr 09:00-18:00", periods: []),
                provenance: Provenance(
                    source: "other", sourceID: "x1", fetchedAt: Date(timeIntervalSince1970: 1_790_000_000.75),
                    importedAt: Date(timeIntervalSince1970: -86_401.5)),
                tags: ["amenity": "restaurant", "name:ja": "東京", "a\"b": "c\\d", "z": ""],
                region: PlaceRegion(countryCode: "JP", continent: .asia), timeZone: "Asia/Tokyo"),
            try Place(
                id: PlaceID("gem:abc"), name: "Cove", coordinate: at, categories: [Category("water.beach")],
                rating: Rating(sourceValue: 4.25, count: nil),
                gem: HiddenGem(
                    owner: "ann", visibility: .friends, description: "at dawn \"quiet\"",
                    createdAt: Date(timeIntervalSince1970: 1_790_000_000), updatedAt: Date(timeIntervalSince1970: 1_790_000_001)),
                region: PlaceRegion(countryCode: nil, continent: .asia)),
            try Place(id: PlaceID("t:2"), name: "", coordinate: at),
            try Place(id: PlaceID("t:3"), name: "Tags not ASCII", coordinate: at, tags: ["é": "1", "e": "2"]),
            try Place(
                id: PlaceID("t:4"), name: "Hours", coordinate: at,
                openingHours: OpeningHours(text: nil, periods: [.init(openDay: 1, openMinute: 540, closeDay: 1, closeMinute: 1080)]),
                photos: [PhotoReference(url: "https://example.org/p.jpg", width: 10, height: 20, attribution: "me")]),
        ]
        for n in 0..<200 {
            places.append(
                try Place(
                    id: PlaceID("t:r\(n)"), name: "R\(n)", coordinate: at, categories: [Category("landmark")],
                    rating: n % 3 == 0 ? nil : Rating(sourceValue: Double(n % 51) / 10, count: n % 2 == 0 ? n : nil),
                    priceLevel: n % 5 == 0 ? nil : PriceLevel(n % 4 + 1),
                    tags: n % 4 == 0 ? [:] : ["k\(n % 7)": "v\(n)", "k": "\(n)"]))
        }
        try index.upsert(places)
        let matches = try index.near(at, radius: Distance(meters: 10), filter: PlaceFilter(viewer: "ann")).matches
        #expect(matches.count == places.count)
        var fastRows = 0
        for match in matches where match.withStoredRow({ _ in true }) == true { fastRows += 1 }
        #expect(fastRows == places.count, "a SpatiaLite match hands out its stored row")
        for (fast, slow) in Self.bothWays(matches) where fast != slow {
            Issue.record("stored-row JSON differs:\n\(fast)\n\(slow)")
        }
        // PostgreSQL hands out its rows the same way.
        if let cluster = TestCluster.shared {
            let postgis = try await PostGISPlaceIndex.open(try cluster.get().createDatabase("rowjson"), maximumConnections: 2, timeout: .seconds(60))
            try await postgis.upsert(places)
            let stored = try await postgis.near(at, radius: Distance(meters: 10), filter: PlaceFilter(viewer: "ann"), limit: nil, cursor: nil).matches
            #expect(stored.count == places.count && stored.allSatisfy { $0.withStoredRow({ _ in true }) == true })
            for (fast, slow) in Self.bothWays(stored) where fast != slow { Issue.record("PostGIS stored-row JSON differs:\n\(fast)\n\(slow)") }
            await postgis.close()
        }
        // The decoded place agrees with what went in, so the comparison above is with the truth.
        let byID = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
        for match in matches { #expect(match.place == byID[match.id]) }
    }
}
