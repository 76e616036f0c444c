import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceStore
import Testing

@testable import PlaceImport

/// The repository root, found from this file's path (Tests/PlaceImportTests/…).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The project's shared real data: `$GEOQUERY_SHARED_DATA`, else `../shared/data` beside the
/// repository (where CI puts it).
let sharedData: URL =
    ProcessInfo.processInfo.environment["GEOQUERY_SHARED_DATA"].map { URL(fileURLWithPath: $0) }
    ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data")

/// Tests of samples that live only in the project's shared data (not shipped in `geodata/`) run
/// where it is — beside the repository, as CI lays it out, or at `GEOQUERY_SHARED_DATA` — and
/// are reported as skipped elsewhere (`make test` says so too).
let needsSharedData = ConditionTrait.enabled(
    if: FileManager.default.fileExists(atPath: sharedData.appendingPathComponent("README.md").path),
    "needs the project's shared/data beside the repository, or GEOQUERY_SHARED_DATA naming it")

func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-import-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

func write(_ text: String, to url: URL) throws -> String {
    try Data(text.utf8).write(to: url)
    return url.path
}

@Suite struct CSVReaderTests {
    @Test func readsQuotedFieldsEmbeddedNewlinesBOMAndCRLF() throws {
        try withTemporaryDirectory { directory in
            let path = try write(
                "\u{FEFF}a,b,c\r\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n\r\n2,\"multi\nline\",3\n4,,\n5,last",
                to: directory.appendingPathComponent("t.csv"))
            let records = Array(try CSVReader(path: path))
            #expect(
                records.map(\.fields) == [["a", "b", "c"], ["1", "x, y", "say \"hi\""], ["2", "multi\nline", "3"], ["4", "", ""], ["5", "last"]])
            #expect(records.map(\.line) == [1, 2, 4, 6, 7])
        }
    }

    @Test func handlesOtherDelimitersAndChunkBoundaries() throws {
        try withTemporaryDirectory { directory in
            // Longer than one 1 MiB chunk, with a quoted field straddling chunk edges.
            var text = "id;name\n"
            for n in 0..<60_000 { text += "\(n);\"name; \(n) \"\"q\"\"\"\n" }
            let path = try write(text, to: directory.appendingPathComponent("big.csv"))
            let records = Array(try CSVReader(path: path, delimiter: ";"))
            #expect(records.count == 60_001)
            #expect(records.last?.fields == ["59999", "name; 59999 \"q\""])
            #expect(records.allSatisfy { $0.fields.count == 2 })
        }
    }

    @Test func unreadableFilesAreErrorsNamingThePath() {
        do {
            _ = try CSVReader(path: "/nonexistent/x.csv")
            Issue.record("opened")
        } catch {
            #expect(String(describing: error).contains("/nonexistent/x.csv"))
        }
        #expect(throws: ImportError.self) { try CSVReader(path: "/tmp") }
    }
}

@Suite struct ImportTests {
    @Test func importsTheShippedCitiesAndAirports() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let cities = try PlaceImporter.importFile(
                repositoryRoot.appendingPathComponent("geodata/cities15000.csv").path,
                format: .geonamesCSV, into: index)
            #expect(cities.rowsRead == 34_006 && cities.added == 34_006 && cities.rejected == 0)
            let airports = try PlaceImporter.importFile(
                repositoryRoot.appendingPathComponent("geodata/airports.csv").path,
                format: .airportsCSV, into: index)
            #expect(airports.rowsRead == 28_298 && airports.rejected == 0)
            #expect(try index.count(source: "geonames") == 34_006 && index.count(source: "airport") == 28_298)

            let paris = try #require(try index.place(PlaceID("geonames:2988507")))
            #expect(paris.name == "Paris" && paris.categories == [.city] && paris.address?.countryCode == "FR")
            #expect(paris.tags["timezone"] == "Europe/Paris" && Int(paris.tags["population"] ?? "") ?? 0 > 2_000_000)
            let cdg = try #require(try index.place(PlaceID("airport:LFPG")))
            #expect(cdg.tags["iata"] == "CDG" && cdg.tags["icao"] == "LFPG" && cdg.tags["elevation_ft"] != nil)
            #expect(cdg.categories == [.airport] && cdg.address?.countryCode == "FR")
            // Namibia stays Namibia: "NA" is read as text.
            let windhoek = try index.near(
                try Coordinate(latitude: -22.5594, longitude: 17.0832), radius: try Distance(parsing: "10km"),
                filter: PlaceFilter(categories: [.city])
            ).matches.first
            #expect(windhoek?.place.address?.countryCode == "NA")
            // Re-importing the same file changes nothing, and says so.
            let again = try PlaceImporter.importFile(
                repositoryRoot.appendingPathComponent("geodata/cities15000.csv").path,
                format: .geonamesCSV, into: index)
            #expect(again.unchanged == 34_006 && !again.changedAnything && again.line.contains("nothing changed"))
            #expect(try index.count() == 34_006 + 28_298)
            #expect(try index.statistics().sources.map(\.name) == ["airport", "geonames"])
        }
    }

    @Test func badRowsAreCountedWithTheirLineNumbers() throws {
        try withTemporaryDirectory { directory in
            var text = "geonameid,name,lat,lon,country_code,admin1,population,timezone\n"
            for n in 1...300 { text += "\(n),Town \(n),\(Double(n) / 10),\(Double(n) / 20),FR,11,1000,Europe/Paris\n" }
            text += "301,Bad lat,91.5,0,FR,11,1,Europe/Paris\n"  // line 302
            text += "302,Short,1,2\n"  // line 303
            let path = try write(text, to: directory.appendingPathComponent("c.csv"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(path, format: .geonamesCSV, into: index)
            #expect(summary.rowsRead == 302 && summary.added == 300 && summary.rejected == 2)
            #expect(summary.problems.count == 2)
            #expect(summary.problems[0].hasPrefix("line 302:") && summary.problems[0].contains("91.5"))
            #expect(summary.problems[1].hasPrefix("line 303:") && summary.problems[1].contains("expected 8 fields, found 4"))
            #expect(summary.line.contains("2 rejected"))
        }
    }

    @Test func tooManyBadRowsOrStrictModeChangeNothing() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let good = try write(
                "icao,iata,name,city,subd,country,elevation,lat,lon,tz,lid\nAAAA,AAA,A,,,FR,10,1,1,,\n",
                to: directory.appendingPathComponent("good.csv"))
            _ = try PlaceImporter.importFile(good, format: .airportsCSV, into: index)
            let bad = try write(
                "icao,iata,name,city,subd,country,elevation,lat,lon,tz,lid\nBBBB,,B,,,FR,10,2,2,,\nCCCC,,C,,,FR,high,3,3,,\n",
                to: directory.appendingPathComponent("bad.csv"))
            do {
                _ = try PlaceImporter.importFile(bad, format: .airportsCSV, into: index)
                Issue.record("imported")
            } catch let error as ImportError {
                #expect(error.description.contains("rejected 1 of 2 rows") && error.description.contains("line 3"))
            }
            #expect(try index.count() == 1 && index.place(PlaceID("airport:BBBB")) == nil)
            #expect(throws: ImportError.self) {
                try PlaceImporter.importFile(bad, format: .airportsCSV, into: index, options: ImportOptions(maximumRejectRatio: 1, strict: true))
            }
            #expect(try index.count() == 1)
            let tolerated = try PlaceImporter.importFile(bad, format: .airportsCSV, into: index, options: ImportOptions(maximumRejectRatio: 0.5))
            // The tolerated import is the snapshot of airports: BBBB in, AAAA (not in this dump) out.
            #expect(try tolerated.added == 1 && tolerated.removed == 1 && index.count() == 1)
        }
    }

    @Test func wrongHeaderOrEmptyFileAreClearErrors() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let airports = repositoryRoot.appendingPathComponent("geodata/airports.csv").path
            do {
                _ = try PlaceImporter.importFile(airports, format: .geonamesCSV, into: index)
                Issue.record("imported")
            } catch {
                #expect(String(describing: error).contains("missing column(s) geonameid"))
            }
            let empty = try write("", to: directory.appendingPathComponent("empty.csv"))
            #expect(throws: ImportError.self) { try PlaceImporter.importFile(empty, format: .geonamesCSV, into: index) }
            let headerOnly = try write("geonameid,name,lat,lon\n", to: directory.appendingPathComponent("header.csv"))
            #expect(throws: ImportError.self) { try PlaceImporter.importFile(headerOnly, format: .geonamesCSV, into: index) }
            #expect(throws: ImportError.self) { try ImportFormat(name: "shapefile") }
            #expect(try index.count() == 0)
        }
    }
}

@Suite struct SnapshotTests {
    static let header = "geonameid,name,lat,lon,country_code,admin1,population,timezone\n"
    static func row(_ id: Int, _ name: String, population: Int = 1000) -> String {
        "\(id),\(name),\(Double(id) / 100),\(Double(id) / 50),FR,11,\(population),Europe/Paris\n"
    }

    @Test func anImportMakesTheSourceExactlyTheDump() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            // Another source that must survive every geonames import untouched.
            let airports = try write(
                "icao,iata,name,city,subd,country,elevation,lat,lon,tz,lid\nAAAA,AAA,A,,,FR,10,1,1,,\n",
                to: directory.appendingPathComponent("airports.csv"))
            _ = try PlaceImporter.importFile(airports, format: .airportsCSV, into: index)
            let a = try write(Self.header + (1...5).map { Self.row($0, "Town \($0)") }.joined(), to: directory.appendingPathComponent("a.csv"))
            let first = try PlaceImporter.importFile(a, format: .geonamesCSV, into: index)
            #expect(first.added == 5 && first.updated == 0 && first.removed == 0)
            let keptTime = try #require(try index.place(PlaceID("geonames:2"))?.provenance.importedAt)

            // A′: town 6 added, town 3 renamed, town 5 gone.
            var rows = (1...4).map { Self.row($0, $0 == 3 ? "Renamed" : "Town \($0)") }
            rows.append(Self.row(6, "Town 6"))
            let aPrime = try write(Self.header + rows.joined(), to: directory.appendingPathComponent("a2.csv"))
            let second = try PlaceImporter.importFile(aPrime, format: .geonamesCSV, into: index)
            #expect(second.added == 1 && second.updated == 1 && second.unchanged == 3 && second.removed == 1)
            #expect(try index.count(source: "geonames") == 5 && index.count(source: "airport") == 1)
            #expect(try index.place(PlaceID("geonames:5")) == nil)
            #expect(try index.place(PlaceID("geonames:3"))?.name == "Renamed")
            #expect(try index.near(try Coordinate(latitude: 0.05, longitude: 0.1), radius: try Distance(parsing: "1km")).matches.isEmpty)
            #expect(
                try index.near(
                    try Coordinate(latitude: 0.03, longitude: 0.06), radius: try Distance(parsing: "1km"),
                    filter: PlaceFilter(text: "renamed")
                ).matches.count == 1)
            // Unchanged rows were not rewritten: they keep the import time of the first import.
            #expect(try index.place(PlaceID("geonames:2"))?.provenance.importedAt == keptTime)

            // The same dump again changes nothing.
            let third = try PlaceImporter.importFile(aPrime, format: .geonamesCSV, into: index)
            #expect(!third.changedAnything && third.unchanged == 5)
            #expect(try index.count() == 6)
        }
    }

    @Test func anIdRepeatedInADumpIsOnePlaceAndTheLastRowWins() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let dump = try write(
                Self.header + Self.row(1, "First") + Self.row(2, "Other") + Self.row(1, "Second"),
                to: directory.appendingPathComponent("a.csv"))
            // A fresh source (written straight away) and a re-import (compared row by row) agree.
            let fresh = try PlaceImporter.importFile(dump, format: .geonamesCSV, into: index)
            #expect(fresh.rowsRead == 3 && fresh.added == 2 && fresh.updated == 1)
            #expect(try index.place(PlaceID("geonames:1"))?.name == "Second" && index.count() == 2)
            let changed = try write(
                Self.header + Self.row(1, "Third") + Self.row(2, "Other") + Self.row(3, "New") + Self.row(3, "Newer"),
                to: directory.appendingPathComponent("b.csv"))
            let again = try PlaceImporter.importFile(changed, format: .geonamesCSV, into: index)
            #expect(again.added == 1 && again.updated == 2 && again.unchanged == 1 && again.removed == 0)
            #expect(try index.place(PlaceID("geonames:3"))?.name == "Newer" && index.place(PlaceID("geonames:1"))?.name == "Third")
            #expect(try index.count() == 3)
        }
    }

    @Test func aSourceNameScopesTheSnapshot() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let north = try write(Self.header + Self.row(1, "North"), to: directory.appendingPathComponent("n.csv"))
            let south = try write(Self.header + Self.row(2, "South"), to: directory.appendingPathComponent("s.csv"))
            _ = try PlaceImporter.importFile(north, format: .geonamesCSV, into: index, source: "geonames-north")
            let summary = try PlaceImporter.importFile(south, format: .geonamesCSV, into: index, source: "geonames-south")
            #expect(summary.removed == 0 && summary.added == 1)
            #expect(try index.count(source: "geonames-north") == 1 && index.count(source: "geonames-south") == 1)
            #expect(try index.place(PlaceID("geonames:1"))?.provenance.source == "geonames-north")
        }
    }
}

@Suite struct GeoNamesDumpTests {
    @Test(needsSharedData) func importsTheRawDump() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let dump = sharedData.appendingPathComponent("geonames/geonames_cities15000_2014.txt").path
            #expect(try ImportFormat.detect(path: dump) == .geonames)
            let summary = try PlaceImporter.importFile(dump, format: .geonames, into: index)
            #expect(summary.rowsRead == 23_355 && summary.added == 23_355 && summary.rejected == 0)
            let paris = try #require(try index.place(PlaceID("geonames:2988507")))
            #expect(paris.name == "Paris" && paris.tags["capital"] == "yes" && paris.tags["feature_code"] == "P.PPLC")
            #expect(paris.categories == [.city] && paris.address?.countryCode == "FR")
            let capitals = try index.within(.world).matches.filter { $0.place.tags["capital"] == "yes" }
            #expect(capitals.count == 241)
        }
    }

    @Test func badLinesAreCountedWithTheirLineNumbers() throws {
        try withTemporaryDirectory { directory in
            func line(_ id: String, _ name: String, _ lat: String, _ lon: String, _ cls: String = "P", _ code: String = "PPL") -> String {
                [id, name, name, "", lat, lon, cls, code, "FR", "", "11", "", "", "", "1000", "", "35", "Europe/Paris", "2014-01-01"]
                    .joined(separator: "\t") + "\n"
            }
            var text = ""
            for n in 1...200 { text += line(String(n), "Town \(n)", "45.\(n)", "5.\(n)") }
            text += line("201", "Lake", "45", "6", "H", "LK")
            text += "\n"  // line 202: blank, skipped
            text += line("x9", "Bad id", "45", "6")  // line 203
            text += line("204", "Bad lat", "95", "6")  // line 204
            text += "205\tshort\tline\n"  // line 205
            let path = try write(text, to: directory.appendingPathComponent("dump.txt"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(path, format: .geonames, into: index, options: ImportOptions(maximumRejectRatio: 0.05))
            #expect(summary.added == 201 && summary.rejected == 3)
            #expect(summary.problems.map { $0.prefix(9) } == ["line 203:", "line 204:", "line 205:"])
            #expect(try index.place(PlaceID("geonames:201"))?.categories == [try Category("water.lake")])
        }
    }

    @Test(arguments: [
        ("P", "PPLC", "city"), ("H", "LK", "water.lake"), ("S", "MUS", "culture.museum"),
        ("T", "BCH", "water.beach"), ("S", "CSTL", "historic.castle"), ("S", "AIRP", "transport.airport"),
        ("H", "XYZ", "water"), ("S", "XYZ", "landmark"),
    ])
    func featureCodesMapToTheTaxonomy(featureClass: String, featureCode: String, category: String) throws {
        #expect(GeoNamesDumpReader.category(featureClass: featureClass, featureCode: featureCode) == (try Category(category)))
    }

    @Test func administrativeAreasHaveNoCategory() {
        #expect(GeoNamesDumpReader.category(featureClass: "A", featureCode: "ADM1") == nil)
    }
}

@Suite struct GeoJSONImportTests {
    static func feature(_ id: Int, name: String, lon: Double, lat: Double, extra: String = "") -> String {
        #"{"type":"Feature","id":\#(id),"geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"name":"\#(name)","category":"food.cafe"\#(extra)}}"#
    }

    @Test func geoJSONSeqLinesRSSeparatorsAndBadLines() throws {
        try withTemporaryDirectory { directory in
            var text = ""
            for n in 1...300 { text += "\u{1E}" + Self.feature(n, name: "Cafe \(n)", lon: 2 + Double(n) / 1000, lat: 48.8) + "\n" }
            text += "\n"  // 301 blank
            text += "{not json\n"  // 302
            text += #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[]},"properties":{"name":"Park","id":"p"}}"# + "\n"  // 303
            text += #"{"type":"Feature","id":"x","geometry":{"type":"Point","coordinates":[2,48]},"properties":{}}"# + "\n"  // 304 no name
            let path = try write(text, to: directory.appendingPathComponent("cafes.geojsonl"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(
                path, format: .geojsonseq, into: index, source: "cafes",
                options: ImportOptions(maximumRejectRatio: 0.05))
            #expect(summary.added == 300 && summary.rejected == 3)
            #expect(summary.problems.count == 3)
            #expect(summary.problems[0].hasPrefix("line 302:"))
            #expect(summary.problems[1].hasPrefix("line 303:") && summary.problems[1].contains("Polygon"))
            #expect(summary.problems[2].hasPrefix("line 304:") && summary.problems[2].contains("name"))
            let cafe = try #require(try index.place(PlaceID("cafes:7")))
            #expect(try cafe.name == "Cafe 7" && cafe.categories == [Category("food.cafe")] && cafe.provenance.source == "cafes")
            #expect(abs(cafe.coordinate.longitude - 2.007) < 1e-12 && cafe.coordinate.latitude == 48.8)
        }
    }

    @Test func featureCollectionsAreStreamedAcrossChunks() throws {
        try withTemporaryDirectory { directory in
            // ~4 MB: several 1 MiB chunks, strings holding braces, brackets and escaped quotes.
            var text = #"{"type": "FeatureCollection", "name": "big {one]", "features": ["# + "\n"
            let count = 30_000
            for n in 0..<count {
                let extra = #","note":"a } tricky ] \"quoted\" {value","rating_src":\#(n % 10),"open":true,"tags":{"x":[1,2,{"y":"}"}]}"#
                text += Self.feature(n, name: "Place \(n)", lon: Double(n % 360) - 180 + 0.5, lat: Double(n % 170) - 85, extra: extra)
                text += n == count - 1 ? "\n" : ",\n"
            }
            text += "]}\n"
            let path = try write(text, to: directory.appendingPathComponent("big.geojson"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(path, format: .geojson, into: index)
            #expect(summary.added == count && summary.rejected == 0)
            let place = try #require(try index.place(PlaceID("geojson:12345")))
            #expect(place.name == "Place 12345" && place.tags["note"] == #"a } tricky ] "quoted" {value"#)
            #expect(place.tags["rating_src"] == "5" && place.tags["open"] == "true" && place.tags["tags"] == nil)
            // Same features as GeoJSONSeq give the same places: a re-import in the other format changes nothing.
            let seq = try write(
                text.split(separator: "\n").dropFirst().dropLast()
                    .map { $0.hasSuffix(",") ? String($0.dropLast()) : String($0) }.joined(separator: "\n"),
                to: directory.appendingPathComponent("big.geojsonl"))
            let again = try PlaceImporter.importFile(seq, format: .geojsonseq, into: index)
            #expect(!again.changedAnything && again.unchanged == count)
        }
    }

    @Test func propertyMappingAndCollectionsWithoutFeatures() throws {
        try withTemporaryDirectory { directory in
            let text =
                #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1.52,42.5]},"properties":{"ref":"AD-1","title":"Casa","kind":["lodging.hotel","boutique"]}},{"type":"Feature","geometry":{"type":"Point","coordinates":[1.53,42.5]},"properties":{"ref":"AD-2","title":"Ramen-ya","kind":["food.ramen","food.noodles"]}}]}"#
            let path = try write(text, to: directory.appendingPathComponent("m.geojson"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            var options = ImportOptions()
            options.mapping = PropertyMapping(idField: "ref", nameField: "title", categoryField: "kind")
            _ = try PlaceImporter.importFile(path, format: .geojson, into: index, source: "andorra", options: options)
            let place = try #require(try index.place(PlaceID("andorra:AD-1")))
            #expect(try place.name == "Casa" && place.categories == [Category("lodging.hotel")] && place.tags["source_category"] == "boutique")
            // Finer than the taxonomy: filed under the nearest category it has, and kept as written.
            let ramen = try #require(try index.place(PlaceID("andorra:AD-2")))
            #expect(ramen.categories == [.food] && ramen.tags["source_category"] == "food.ramen;food.noodles")
            let noFeatures = try write(#"{"type":"FeatureCollection","items":[]}"#, to: directory.appendingPathComponent("n.geojson"))
            #expect(throws: ImportError.self) { try PlaceImporter.importFile(noFeatures, format: .geojson, into: index) }
        }
    }
}

@Suite struct FoursquareImportTests {
    @Test(needsSharedData) func importsTheOpenSourcePlacesSample() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let path = sharedData.appendingPathComponent("places/fsq_os_places_sample.csv").path
            #expect(try ImportFormat.detect(path: path) == .foursquareCSV)
            let summary = try PlaceImporter.importFile(path, format: .foursquareCSV, into: index)
            // shared/data/README.md: 10 000 rows, 36 without coordinates, 573 closed.
            #expect(summary.rowsRead == 10_000 && summary.rejected == 36 && summary.skipped == 573 && summary.added == 9_391)
            #expect(summary.problems.allSatisfy { $0.contains("is empty") })
            #expect(try index.count(source: "foursquare") == 9_391)
            let restaurants = try index.within(.world, filter: PlaceFilter(categories: [try Category("food.restaurant")])).matches
            #expect(restaurants.count > 500)
            #expect(restaurants.allSatisfy { $0.place.tags["fsq_category_labels"]?.contains("Restaurant") == true })
        }
    }

    @Test func labelListsSplitOnlyBetweenLabels() throws {
        let text = "[Dining and Drinking > Cafe, Coffee, and Tea House > Café, Retail > Fireworks Store]"
        #expect(FoursquareCategories.labels(text) == ["Dining and Drinking > Cafe, Coffee, and Tea House > Café", "Retail > Fireworks Store"])
        #expect(try FoursquareCategories.categories(text) == [Category("food.cafe"), Category("shopping")])
        #expect(
            try FoursquareCategories.categories("[Travel and Transportation > Transport Hub > Airport > Airport Terminal]") == [
                Category("transport.airport")
            ])
        #expect(FoursquareCategories.categories("[Something New > Else]").isEmpty)
        #expect(FoursquareCategories.categories("").isEmpty)
    }
}

@Suite struct GenericCSVAndDetectionTests {
    @Test func categoryCellsParseTheSameFromTheMemoAndStopBeingRememberedAtTheLimit() throws {
        let memo = CategoryMemo(splitsCells: true, limit: 2)
        for _ in 0..<2 {
            let cell = memo.parse("food.cafe|terrace water.beach;;Food")
            #expect(try cell.categories == [Category("food.cafe"), Category("water.beach")] && cell.unknown == ["terrace", "Food"])
        }
        #expect(memo.parse("").categories.isEmpty && memo.count == 2)
        let past = memo.parse("landmark nowhere")
        #expect(try past.categories == [Category("landmark")] && past.unknown == ["nowhere"] && memo.count == 2)
        let whole = CategoryMemo(splitsCells: false)
        #expect(whole.parse("food.cafe terrace").unknown == ["food.cafe terrace"] && whole.parse("food.cafe").unknown.isEmpty)
    }

    @Test func anyCSVWithChosenColumnsDelimiterBOMAndQuotes() throws {
        try withTemporaryDirectory { directory in
            let text =
                "\u{FEFF}ref;titre;Y;X;kind;stars\r\n" + "a1;\"Plage; du \"\"Nord\"\"\";43.7;7.42;water.beach;4\r\n"
                + "a2;\"Two\nlines\";43.71;7.43;food.cafe|terrace;\r\n" + "a3;Far;91;7;landmark;1\r\n"
            let path = try write(text, to: directory.appendingPathComponent("p.csv"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            var options = ImportOptions(maximumRejectRatio: 0.5)
            options.columns = CSVColumns(id: "ref", name: "titre", category: "kind", delimiter: ";")
            let summary = try PlaceImporter.importFile(path, format: .csv, into: index, source: "monaco-csv", options: options)
            #expect(summary.added == 2 && summary.rejected == 1 && summary.problems.first?.hasPrefix("line 5:") == true)
            let beach = try #require(try index.place(PlaceID("monaco-csv:a1")))
            #expect(try beach.name == #"Plage; du "Nord""# && beach.categories == [Category("water.beach")] && beach.tags["stars"] == "4")
            let cafe = try #require(try index.place(PlaceID("monaco-csv:a2")))
            #expect(try cafe.name == "Two\nlines" && cafe.categories == [Category("food.cafe")] && cafe.tags["source_category"] == "terrace")
            var wrong = ImportOptions()
            wrong.columns = CSVColumns(latitude: "breite", delimiter: ";")
            do {
                _ = try PlaceImporter.importFile(path, format: .csv, into: index, options: wrong)
                Issue.record("imported")
            } catch {
                #expect(String(describing: error).contains("breite"))
            }
        }
    }

    @Test func formatsAreDetectedFromNameAndContent() throws {
        #expect(try ImportFormat.detect(path: repositoryRoot.appendingPathComponent("geodata/cities15000.csv").path) == .geonamesCSV)
        #expect(try ImportFormat.detect(path: repositoryRoot.appendingPathComponent("geodata/airports.csv").path) == .airportsCSV)
        try withTemporaryDirectory { (directory: URL) throws in
            let feature = #"{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"x"}}"#
            #expect(try ImportFormat.detect(path: write(feature + "\n" + feature, to: directory.appendingPathComponent("a.json"))) == .geojsonseq)
            #expect(
                try ImportFormat.detect(path: write(#"{"type":"FeatureCollection","features":[]}"#, to: directory.appendingPathComponent("b.json")))
                    == .geojson)
            #expect(
                try ImportFormat.detect(path: write("{\n \"type\": \"FeatureCollection\"}", to: directory.appendingPathComponent("c.geojson")))
                    == .geojson)
            #expect(try ImportFormat.detect(path: write("\u{1E}" + feature, to: directory.appendingPathComponent("d.txt"))) == .geojsonseq)
            #expect(try ImportFormat.detect(path: write("id,name,lat,lon\n1,a,1,1\n", to: directory.appendingPathComponent("e.csv"))) == .csv)
            #expect(throws: ImportError.self) { try ImportFormat.detect(path: write("", to: directory.appendingPathComponent("f.csv"))) }
        }
    }
}

@Suite struct CentroidTests {
    func centre(_ json: String) throws -> Coordinate {
        guard case .object(let geometry) = try JSONScanner.parse(Array(json.utf8)) else {
            throw JSONScanner.SyntaxError(offset: 0, expected: "an object")
        }
        return try Centroid.of(geometry).mapError { $0 as any Error }.get()
    }

    @Test func polygonsUseTheirAreaWeightedCentroid() throws {
        let square = try centre(#"{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}"#)
        #expect(abs(square.longitude - 1) < 1e-12 && abs(square.latitude - 1) < 1e-12)
        // An L: 2×1 bar plus a 1×1 block on its left end; the area centroid is not the vertex mean.
        let l = try centre(#"{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,1],[1,1],[1,2],[0,2],[0,0]]]}"#)
        #expect(abs(l.longitude - 5.0 / 6) < 1e-12 && abs(l.latitude - 5.0 / 6) < 1e-12)
        let multi = try centre(#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,1],[0,0]]],[[[10,0],[11,0],[11,1],[10,1],[10,0]]]]}"#)
        #expect(abs(multi.longitude - 5.5) < 1e-12 && abs(multi.latitude - 0.5) < 1e-12)
    }

    @Test func linesAndShapesAcrossTheAntimeridian() throws {
        let line = try centre(#"{"type":"LineString","coordinates":[[0,0],[3,0],[3,1]]}"#)
        // Segments (0,0)-(3,0) and (3,0)-(3,1): midpoints (1.5, 0) and (3, 0.5), weights 3 and 1.
        #expect(abs(line.longitude - 1.875) < 1e-12 && abs(line.latitude - 0.125) < 1e-12)
        let fiji = try centre(#"{"type":"Polygon","coordinates":[[[179,-17],[-179,-17],[-179,-16],[179,-16],[179,-17]]]}"#)
        #expect(abs(abs(fiji.longitude) - 180) < 1e-9 && abs(fiji.latitude + 16.5) < 1e-12)
        let points = try centre(#"{"type":"MultiPoint","coordinates":[[1,1],[3,3]]}"#)
        #expect(points.longitude == 2 && points.latitude == 2)
    }

    @Test func importedPolygonsArePlacedAtTheirCentroid() throws {
        try withTemporaryDirectory { directory in
            let text =
                #"{"type":"Feature","id":"park","geometry":{"type":"Polygon","coordinates":[[[7.40,43.70],[7.42,43.70],[7.42,43.72],[7.40,43.72],[7.40,43.70]]]},"properties":{"name":"Jardin","category":"nature.park"}}"#
            let path = try write(text + "\n", to: directory.appendingPathComponent("parks.geojsonl"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            _ = try PlaceImporter.importFile(path, format: .geojsonseq, into: index)
            let park = try #require(try index.place(PlaceID("geojson:park")))
            #expect(abs(park.coordinate.longitude - 7.41) < 1e-9 && abs(park.coordinate.latitude - 43.71) < 1e-9)
            #expect(park.tags["geometry"] == "Polygon")
        }
    }

    @Test func unsupportedGeometriesAreRejectedWithTheirType() throws {
        let geometry: [String: JSONValue] = ["type": .string("GeometryCollection"), "geometries": .array([])]
        guard case .failure(let reason) = Centroid.of(geometry) else {
            Issue.record("accepted")
            return
        }
        #expect(reason.text.contains("GeometryCollection"))
    }
}
