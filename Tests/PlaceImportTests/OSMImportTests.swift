import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceStore
import Testing

@testable import PlaceImport

/// Haversine with R = 6371.0088 km, as `shared/data/README.md` counts its distances.
func haversineKilometres(_ a: Coordinate, _ b: Coordinate) -> Double {
    let radius = 6371.0088, rad = Double.pi / 180
    let dLat = (b.latitude - a.latitude) * rad, dLon = (b.longitude - a.longitude) * rad
    let h = pow(sin(dLat / 2), 2) + cos(a.latitude * rad) * cos(b.latitude * rad) * pow(sin(dLon / 2), 2)
    return 2 * radius * asin(min(1, h.squareRoot()))
}

@Suite struct OSMTagMappingTests {
    @Test(
        arguments: [
            (["amenity": "restaurant"], ["food.restaurant"]),
            (["natural": "beach"], ["water.beach"]),
            (["historic": "castle"], ["historic.castle"]),
            (["tourism": "hotel"], ["lodging.hotel"]),
            (["aeroway": "aerodrome"], ["transport.airport"]),
            (["railway": "station"], ["transport.station"]),
            (["waterway": "waterfall"], ["water.waterfall"]),
            (["place": "village"], ["city.village"]),
            (["amenity": "place_of_worship", "religion": "muslim"], ["religious.mosque"]),
            (["amenity": "place_of_worship", "religion": "pastafarian"], ["religious"]),
            (["shop": "surfboards"], ["shopping"]),  // unlisted value: the key's default
            (["tourism": "attraction", "historic": "castle"], ["landmark.attraction", "historic.castle"]),
            (["natural": "tree"], []),  // natural: listed values only
            (["railway": "rail"], []),
            (["amenity": "no"], []),
            (["highway": "bus_stop"], []),
        ] as [([String: String], [String])])
    func tagsMapToTheTaxonomy(tags: [String: String], expected: [String]) throws {
        #expect(OSMTags.categories(tags).map(\.identifier) == expected)
        // Every category the table yields is a valid taxonomy id.
        for category in OSMTags.categories(tags) { _ = try Category(category.identifier) }
    }

    @Test func everyTableEntryIsAValidCategory() throws {
        for identifier in Set(OSMTags.table.values).union(OSMTags.keyDefaults.values).union(OSMTags.religions.values) {
            _ = try Category(identifier)
        }
    }
}

@Suite struct OSMImportTests {
    static let fixture = Bundle.module.url(forResource: "Fixtures/osm_sample", withExtension: "osm")!

    func importSample(_ path: String, into directory: URL) throws -> (ImportSummary, SpatiaLitePlaceIndex) {
        let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
        let summary = try PlaceImporter.importFile(
            path, format: try ImportFormat.detect(path: path), into: index,
            options: ImportOptions(maximumRejectRatio: 0.5))
        return (summary, index)
    }

    @Test func nodesWaysAndMultipolygonsFromXML() throws {
        try withTemporaryDirectory { directory in
            let (summary, index) = try importSample(Self.fixture.path, into: directory)
            #expect(summary.format == "osm" && summary.source == "osm")
            #expect(summary.rowsRead == 12 && summary.added == 7 && summary.rejected == 2 && summary.skipped == 3)
            #expect(
                summary.problems.contains("node 4: latitude 95.0 is out of range: valid latitudes are -90…90")
                    || summary.problems.contains { $0.hasPrefix("node 4: ") && $0.contains("95") })
            #expect(summary.problems.contains("way 102: none of its 2 nodes is in the file"))

            let restaurant = try #require(try index.place(PlaceID("osm:n1")))
            #expect(restaurant.name == "Chez Test" && restaurant.categories == [Category(trustedIdentifier: "food.restaurant")])
            #expect(restaurant.coordinate == (try Coordinate(latitude: 43.73, longitude: 7.42)))
            #expect(restaurant.openingHours?.text == "Mo-Sa 12:00-14:30,19:00-22:30")
            #expect(restaurant.website == "https://example.org/chez-test" && restaurant.phone == "+377 93 00 00 00")
            #expect(restaurant.address == Address(street: "12 Rue Grimaldi", locality: "Monaco", postcode: "98000", countryCode: "MC"))
            #expect(restaurant.tags["name:it"] == "Da Test" && restaurant.tags["cuisine"] == "french")
            #expect(restaurant.tags["wheelchair"] == "yes" && restaurant.tags["wikidata"] == "Q1" && restaurant.tags["amenity"] == "restaurant")
            #expect(restaurant.tags["created_by"] == nil && restaurant.tags["opening_hours"] == nil)

            #expect(try index.place(PlaceID("osm:n5"))?.categories.map(\.identifier) == ["nature.peak"])
            #expect(try index.place(PlaceID("osm:n5"))?.tags["ele"] == "1163")
            #expect(try index.place(PlaceID("osm:n6"))?.categories.map(\.identifier) == ["religious.mosque"])
            #expect(try index.place(PlaceID("osm:n7"))?.name == "English Only Cafe")
            for missing in ["osm:n2", "osm:n3", "osm:n4", "osm:w102", "osm:w105", "osm:r201"] {
                #expect(try index.place(PlaceID(missing)) == nil, "\(missing)")
            }

            // A closed way at its area centroid, an open one at the middle of its line, a
            // multipolygon of two outer ways joined into one ring at the ring's centroid.
            let castle = try #require(try index.place(PlaceID("osm:w100")))
            #expect(castle.categories.map(\.identifier) == ["landmark.attraction", "historic.castle"])
            #expect(abs(castle.coordinate.latitude - 43.71) < 1e-9 && abs(castle.coordinate.longitude - 7.41) < 1e-9)
            let wall = try #require(try index.place(PlaceID("osm:w101")))
            #expect(abs(wall.coordinate.latitude - 43.70) < 1e-9 && abs(wall.coordinate.longitude - 7.41) < 1e-9)
            let park = try #require(try index.place(PlaceID("osm:r200")))
            #expect(park.name == "Split Park" && park.categories.map(\.identifier) == ["nature.park"])
            #expect(abs(park.coordinate.latitude - 43.62) < 1e-9 && abs(park.coordinate.longitude - 7.32) < 1e-9)
        }
    }

    @Test func multiStreamBzip2GivesTheSamePlaces() throws {
        let bzip2 = Bundle.module.url(forResource: "Fixtures/osm_sample.osm", withExtension: "bz2")!
        #expect(try ImportFormat.detect(path: bzip2.path) == .osm)
        try withTemporaryDirectory { directory in
            let (summary, index) = try importSample(bzip2.path, into: directory)
            #expect(summary.added == 7 && summary.rejected == 2 && summary.skipped == 3)
            #expect(try index.place(PlaceID("osm:r200"))?.name == "Split Park")
        }
        // The decompressed copy is gone once the dump is read out. (Whether it still exists
        // right after the reader starts is a race with the reading thread, which may already
        // have read a small file to the end and removed it: CI caught exactly that.)
        let reader = try OSMDumpReader(path: bzip2.path, importedAt: Date())
        let copy = try #require(reader.temporaryDirectory)
        #expect(copy.path.hasPrefix(FileManager.default.temporaryDirectory.path))
        var records = 0
        while try reader.next() != nil { records += 1 }
        #expect(records == 12 && !FileManager.default.fileExists(atPath: copy.path))
    }

    /// `geodata/monaco.osm.pbf` is a byte-for-byte copy of `shared/data/osm/monaco.osm.pbf`.
    /// `shared/data/README.md`: 495 named POI nodes (amenity, tourism, shop, historic, leisure)
    /// in Monaco, 96 / 160 / 283 / 495 of them within 0.25 / 0.5 / 1 / 2 km of the Casino.
    @Test func monacoMatchesTheCountsOfTheDataReadme() throws {
        try withTemporaryDirectory { directory in
            let path = repositoryRoot.appendingPathComponent("geodata/monaco.osm.pbf").path
            #expect(try ImportFormat.detect(path: path) == .osm)
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(path, format: .osm, into: index, source: "osm-monaco")
            #expect(summary.rejected == 0 && summary.added > 495)
            let casino = try Coordinate(latitude: 43.7396, longitude: 7.4276)
            let all = try index.near(casino, radius: try Distance(parsing: "20km")).matches.map(\.place)
            #expect(all.count == summary.added)
            let poiKeys = ["amenity", "tourism", "shop", "historic", "leisure"]
            let poiNodes = all.filter { place in place.id.localID.hasPrefix("n") && poiKeys.contains { place.tags[$0] != nil } }
            let counts = [0.25, 0.5, 1, 2].map { radius in poiNodes.filter { haversineKilometres(casino, $0.coordinate) <= radius }.count }
            #expect(counts == [96, 160, 283, 495])
            // Ways are there too, placed inside Monaco.
            let ways = all.filter { $0.id.localID.hasPrefix("w") }
            #expect(
                !ways.isEmpty && ways.allSatisfy { (43.5...43.8).contains($0.coordinate.latitude) && (7.3...7.5).contains($0.coordinate.longitude) })
            #expect(all.allSatisfy { $0.provenance.source == "osm-monaco" && !$0.categories.isEmpty })
            // The same dump again changes nothing.
            let again = try PlaceImporter.importFile(path, format: .osm, into: index, source: "osm-monaco")
            #expect(!again.changedAnything && again.unchanged == summary.added)
        }
    }

    /// Andorra: 768 POI nodes with a `name`, 48 / 78 / 177 / 296 / 372 within 0.25 / 0.5 / 1 / 2 /
    /// 5 km of Andorra la Vella (`shared/data/README.md`). GeoQuery also takes the 12 that have
    /// only `name:en` (the Hard Rock Cafe among them): 3 / 4 / 7 / 10 / 10 of them in those radii,
    /// as pyosmium counts them.
    @Test func andorraMatchesTheCountsOfTheDataReadme() throws {
        try withTemporaryDirectory { directory in
            let path = repositoryRoot.appendingPathComponent("geodata/andorra.osm.pbf").path
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(path, format: .osm, into: index, source: "osm-andorra")
            #expect(summary.rejected == 0)
            let centre = try Coordinate(latitude: 42.5063, longitude: 1.5218)
            let all = try index.near(centre, radius: try Distance(parsing: "100km")).matches.map(\.place)
            let poiKeys = ["amenity", "tourism", "shop", "historic", "leisure"]
            let poiNodes = all.filter { place in place.id.localID.hasPrefix("n") && poiKeys.contains { place.tags[$0] != nil } }
            #expect(poiNodes.count == 768 + 12)
            let counts = [0.25, 0.5, 1, 2, 5].map { radius in poiNodes.filter { haversineKilometres(centre, $0.coordinate) <= radius }.count }
            #expect(counts == zip([48, 78, 177, 296, 372], [3, 4, 7, 10, 10]).map { $0 + $1 })
            #expect(poiNodes.contains { $0.name == "Hard Rock Cafe Andorra" })
            // The nearest food place, found through the category index, is one.
            let nearest = try index.nearest(centre, count: 1, filter: PlaceFilter(categories: [Category(trustedIdentifier: "food")]))
            #expect(nearest.first?.place.categories.contains { $0.isWithin(.food) } == true)
        }
    }

    @Test func damagedOrForeignFilesChangeNothing() throws {
        try withTemporaryDirectory { directory in
            let (_, index) = try importSample(Self.fixture.path, into: directory)
            let before = try index.count()
            // A truncated PBF.
            let pbf = try Data(contentsOf: repositoryRoot.appendingPathComponent("geodata/monaco.osm.pbf"))
            let truncated = directory.appendingPathComponent("truncated.osm.pbf")
            try pbf.prefix(200_000).write(to: truncated)
            #expect(throws: ImportError.self) {
                try PlaceImporter.importFile(truncated.path, format: .osm, into: index)
            }
            // Damaged bzip2, and a file that is no OSM at all.
            let damaged = directory.appendingPathComponent("damaged.osm.bz2")
            var bytes = [UInt8](try Data(contentsOf: Bundle.module.url(forResource: "Fixtures/osm_sample.osm", withExtension: "bz2")!))
            for offset in stride(from: 100, to: 400, by: 7) { bytes[offset] ^= 0x5A }
            try Data(bytes).write(to: damaged)
            #expect(throws: ImportError.self) { try PlaceImporter.importFile(damaged.path, format: .osm, into: index) }
            let text = try write("id,name,lat,lon\n", to: directory.appendingPathComponent("not.osm"))
            do {
                _ = try PlaceImporter.importFile(text, format: .osm, into: index)
                Issue.record("a CSV file imported as OSM")
            } catch let error as ImportError {
                #expect(error.description.contains("not an OpenStreetMap file"))
            }
            #expect(try index.count() == before && index.place(PlaceID("osm:n1")) != nil)
        }
    }

    @Test func ringsAreJoinedFromWaysInAnyDirection() {
        let (rings, lines) = OSMScan.assembleRings([[1, 2, 3], [5, 1], [3, 4], [5, 4], [7, 8]])
        #expect(rings.count == 1 && rings[0].count == 6 && rings[0].first == rings[0].last && Set(rings[0]) == [1, 2, 3, 4, 5])
        #expect(lines == [[7, 8]])
    }
}

@Suite struct JSONScannerTests {
    func parse(_ text: String) throws -> JSONValue { try JSONScanner.parse(Array(text.utf8)) }

    @Test func parsesWhatRFC8259Allows() throws {
        #expect(
            try parse(#" {"a": [1, -2.5e3, true, false, null, "x"], "b": {}} "#)
                == .object(["a": .array([.int(1), .double(-2500), .bool(true), .bool(false), .null, .string("x")]), "b": .object([:])]))
        #expect(try parse(#""tab\there \"q\" \\ \/ \u00e9 \ud83d\ude00""#) == .string("tab\there \"q\" \\ / é 😀"))
        #expect(try parse("[]") == .array([]) && parse("0") == .int(0) && parse("-0.0") == .double(-0.0))
        #expect(try parse("12345678901234567890") == .double(1.2345678901234567e19))  // too big for Int64
        #expect(try parse(#""Zürich""#) == .string("Zürich"))
    }

    @Test(arguments: ["", "{", #"{"a" 1}"#, #"{"a":1,}"#, "[1 2]", "tru", #""open"#, "01x", "-", #"{"a":1} x"#, #""\q""#, "\"a\u{01}b\"", "1e999"])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: JSONScanner.SyntaxError.self) { try parse(text) }
    }
}
