import Foundation
import GeoCore
import PlaceModel
import PlaceStore
import Testing
@testable import PlaceImport

/// The repository root, found from this file's path (Tests/PlaceImportTests/…).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
            let path = try write("\u{FEFF}a,b,c\r\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n\r\n2,\"multi\nline\",3\n4,,\n5,last", to: directory.appendingPathComponent("t.csv"))
            let records = Array(try CSVReader(path: path))
            #expect(records.map(\.fields) == [["a", "b", "c"], ["1", "x, y", "say \"hi\""], ["2", "multi\nline", "3"], ["4", "", ""], ["5", "last"]])
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
        do { _ = try CSVReader(path: "/nonexistent/x.csv"); Issue.record("opened") } catch {
            #expect(String(describing: error).contains("/nonexistent/x.csv"))
        }
        #expect(throws: ImportError.self) { try CSVReader(path: "/tmp") }
    }
}

@Suite struct ImportTests {
    @Test func importsTheShippedCitiesAndAirports() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let cities = try PlaceImporter.importFile(repositoryRoot.appendingPathComponent("geodata/cities15000.csv").path,
                                                      format: .geonamesCSV, into: index)
            #expect(cities.rowsRead == 34_006 && cities.imported == 34_006 && cities.rejected == 0)
            let airports = try PlaceImporter.importFile(repositoryRoot.appendingPathComponent("geodata/airports.csv").path,
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
            let windhoek = try index.near(try Coordinate(latitude: -22.5594, longitude: 17.0832), radius: try Distance(parsing: "10km"),
                                          filter: PlaceFilter(categories: [.city])).matches.first
            #expect(windhoek?.place.address?.countryCode == "NA")
            // Re-importing the same file changes nothing.
            let again = try PlaceImporter.importFile(repositoryRoot.appendingPathComponent("geodata/cities15000.csv").path,
                                                     format: .geonamesCSV, into: index)
            #expect(again.imported == 34_006)
            #expect(try index.count() == 34_006 + 28_298)
            #expect(try index.statistics().sources.map(\.name) == ["airport", "geonames"])
        }
    }

    @Test func badRowsAreCountedWithTheirLineNumbers() throws {
        try withTemporaryDirectory { directory in
            var text = "geonameid,name,lat,lon,country_code,admin1,population,timezone\n"
            for n in 1...300 { text += "\(n),Town \(n),\(Double(n) / 10),\(Double(n) / 20),FR,11,1000,Europe/Paris\n" }
            text += "301,Bad lat,91.5,0,FR,11,1,Europe/Paris\n"     // line 302
            text += "302,Short,1,2\n"                                  // line 303
            let path = try write(text, to: directory.appendingPathComponent("c.csv"))
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let summary = try PlaceImporter.importFile(path, format: .geonamesCSV, into: index)
            #expect(summary.rowsRead == 302 && summary.imported == 300 && summary.rejected == 2)
            #expect(summary.problems.count == 2)
            #expect(summary.problems[0].hasPrefix("line 302:") && summary.problems[0].contains("91.5"))
            #expect(summary.problems[1].hasPrefix("line 303:") && summary.problems[1].contains("expected 8 fields, found 4"))
            #expect(summary.line.contains("2 rejected"))
        }
    }

    @Test func tooManyBadRowsOrStrictModeChangeNothing() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let good = try write("icao,iata,name,city,subd,country,elevation,lat,lon,tz,lid\nAAAA,AAA,A,,,FR,10,1,1,,\n",
                                 to: directory.appendingPathComponent("good.csv"))
            _ = try PlaceImporter.importFile(good, format: .airportsCSV, into: index)
            let bad = try write("icao,iata,name,city,subd,country,elevation,lat,lon,tz,lid\nBBBB,,B,,,FR,10,2,2,,\nCCCC,,C,,,FR,high,3,3,,\n",
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
            #expect(try tolerated.imported == 1 && index.count() == 2)
        }
    }

    @Test func wrongHeaderOrEmptyFileAreClearErrors() throws {
        try withTemporaryDirectory { directory in
            let index = try SpatiaLitePlaceIndex(path: directory.appendingPathComponent("i.sqlite").path, mode: .createIfMissing)
            let airports = repositoryRoot.appendingPathComponent("geodata/airports.csv").path
            do { _ = try PlaceImporter.importFile(airports, format: .geonamesCSV, into: index); Issue.record("imported") } catch {
                #expect(String(describing: error).contains("missing column(s) geonameid"))
            }
            let empty = try write("", to: directory.appendingPathComponent("empty.csv"))
            #expect(throws: ImportError.self) { try PlaceImporter.importFile(empty, format: .geonamesCSV, into: index) }
            #expect(throws: ImportError.self) { try ImportFormat(name: "shapefile") }
            #expect(try index.count() == 0)
        }
    }
}
