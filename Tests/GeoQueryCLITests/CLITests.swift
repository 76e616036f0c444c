import Foundation
import PlaceModel
import ProviderTestSupport
import Testing

/// Runs the built `geoquery` executable (next to the test bundle in .build/…/debug).
struct CLI {
    static let executable: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for directory in candidates {
            let url = directory.appendingPathComponent("geoquery")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return candidates[0].appendingPathComponent("geoquery")
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] ?? [:] }
    }

    /// Runs `geoquery` with `arguments` (in `folder` when given, else where the tests run).
    static func run(_ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "GEOQUERY_DB")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A small index built through the CLI itself from a handful of real cities and airports.
final class CLIFixture: @unchecked Sendable {
    let directory: URL
    let db: String

    init() throws {
        directory = try TemporaryDirectories.make("geoquery-cli")
        db = directory.appendingPathComponent("cli.sqlite").path
        let cities = """
            geonameid,name,lat,lon,country_code,admin1,population,timezone
            2988507,Paris,48.85341,2.3488,FR,11,2138551,Europe/Paris
            2990611,Neuilly-sur-Seine,48.8846,2.26965,FR,11,60501,Europe/Paris
            2970761,Vanves,48.82345,2.29025,FR,11,27414,Europe/Paris
            5391959,San Francisco,37.77493,-122.41942,US,CA,864816,America/Los_Angeles
            4180439,"Atlanta, GA test",33.749,-84.38798,US,GA,463878,America/New_York
            2193733,Auckland,-36.84853,174.76349,NZ,E7,417910,Pacific/Auckland
            4032243,Nuku'alofa,-21.13938,-175.2018,TO,04,22400,Pacific/Tongatapu
            """
        let airports = """
            icao,iata,name,city,subd,country,elevation,lat,lon,tz,lid
            "LFPG","CDG","Charles de Gaulle International Airport","Paris","Ile-de-France","FR",392,49.0127983093,2.5499999523,"Europe/Paris",""
            "LFPO","ORY","Paris-Orly Airport","Paris","Ile-de-France","FR",291,48.7233333,2.3794444,"Europe/Paris",""
            "KSFO","SFO","San Francisco International Airport","San Francisco","California","US",13,37.6189994812,-122.375,"America/Los_Angeles","SFO"
            """
        try Data(cities.utf8).write(to: directory.appendingPathComponent("cities.csv"))
        try Data(airports.utf8).write(to: directory.appendingPathComponent("airports.csv"))
        for (file, format) in [("cities.csv", "geonames-csv"), ("airports.csv", "airports-csv")] {
            let result = try CLI.run(["import", directory.appendingPathComponent(file).path, "--format", format, "--db", db])
            precondition(result.status == 0, "import failed: \(result.stderr)")
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

@Suite(.serialized, .waitsOnProcesses) struct CLITests {
    static let fixture = Result { try CLIFixture() }
    var db: String { get throws { try Self.fixture.get().db } }

    @Test func nearAsJSONFollowsTheContract() throws {
        let result = try CLI.run(["near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "20mi", "--format", "json", "--db", try db])
        #expect(result.status == 0, "\(result.stderr)")
        let json = result.json
        let places = try #require(json["places"] as? [[String: Any]])
        #expect(json["count"] as? Int == places.count && places.count == 5)
        #expect(places.map { $0["id"] as? String } == ["geonames:2990611", "geonames:2970761", "geonames:2988507", "airport:LFPO", "airport:LFPG"])
        let first = places[0]
        for key in ["id", "name", "lat", "lon", "distance_m", "categories", "source"] { #expect(first[key] != nil, "\(key)") }
        #expect(first["categories"] as? [String] == ["city"] && first["source"] as? String == "geonames")
        let distances = places.compactMap { $0["distance_m"] as? Double }
        #expect(distances == distances.sorted() && distances.count == 5)
        #expect(json["next_cursor"] is NSNull)
        let query = try #require(json["query"] as? [String: Any])
        #expect(query["radius_m"] as? Double == 32186.88 && query["kind"] as? String == "near")
    }

    @Test func jsonMembersComeInContractOrder() throws {
        let result = try CLI.run([
            "near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "5km", "--limit", "1", "--format", "json", "--db", try db,
        ])
        func position(_ key: String) -> Int {
            result.stdout.range(of: "\"\(key)\":").map { result.stdout.distance(from: result.stdout.startIndex, to: $0.lowerBound) } ?? -1
        }
        let top = ["query", "count", "places", "next_cursor"].map(position)
        #expect(top.allSatisfy { $0 >= 0 } && top == top.sorted(), "\(top)")
        let place = [
            "\"id\": \"geonames", "\"name\": \"Neuilly", "\"lat\": 48.8846", "\"lon\": 2.26965", "\"distance_m\"", "\"categories\"", "\"source\"",
        ]
        .map { result.stdout.range(of: $0).map { result.stdout.distance(from: result.stdout.startIndex, to: $0.lowerBound) } ?? -1 }
        #expect(place.allSatisfy { $0 >= 0 } && place == place.sorted(), "\(place)")
        // Same query, same bytes.
        let again = try CLI.run([
            "near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "5km", "--limit", "1", "--format", "json", "--db", try db,
        ])
        #expect(again.stdout == result.stdout)
    }

    @Test func categoryAndTextFiltersAndPaging() throws {
        let airports = try CLI.run([
            "near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "50km", "--category", "transport",
            "--format", "json", "--db", try db,
        ])
        #expect((airports.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["airport:LFPO", "airport:LFPG"])
        let text = try CLI.run([
            "near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "50km", "--query", "orly", "--format", "json", "--db", try db,
        ])
        #expect((text.json["places"] as? [[String: Any]])?.count == 1)
        let first = try CLI.run([
            "near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "20mi", "--limit", "2", "--format", "json", "--db", try db,
        ])
        let cursor = try #require(first.json["next_cursor"] as? String)
        let second = try CLI.run([
            "near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "20mi", "--limit", "2", "--cursor", cursor,
            "--format", "json", "--db", try db,
        ])
        #expect((second.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["geonames:2988507", "airport:LFPO"])
        // CSV pages too: its cursor goes to standard error, the rows stay clean, and it is the same cursor.
        let csv = try CLI.run(["near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "20mi", "--limit", "2", "--format", "csv", "--db", try db])
        #expect(csv.status == 0 && csv.stderr.contains("geoquery: more with --cursor \(cursor)") && !csv.stdout.contains(cursor), "\(csv.stderr)")
    }

    /// `geoquery categories` lists what `--category` takes; a category outside it is exit 64 with
    /// the sentence the service answers.
    @Test func categoriesListWhatTheCategoryOptionTakes() throws {
        let csv = try CLI.run(["categories", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == Category.taxonomy.count && rows.contains { $0 == ["water.beach", "Beach", "water"] })
        let json = try CLI.run(["categories", "--format", "json"])
        #expect(json.json["count"] as? Int == rows.count)
        for id in ["transport", "transport.airport", "city"] {
            #expect(try CLI.run(["near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "5km", "--category", id, "--db", try db]).status == 0)
        }
        let typo = try CLI.run(["near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "5km", "--category", "transport.airprt", "--db", try db])
        #expect(
            typo.status == 64
                && typo.stderr.contains("category 'transport.airprt' is not in the taxonomy: under transport there are transport.airport, "),
            "\(typo.stderr)")
    }

    /// `geoquery where`: the country and time zone from the shipped boundaries and cities, the
    /// city a point is near (Paris, the most populous of three about 4 km off), the cities in
    /// reach nearest first; out-of-range options are exit 64 naming the value.
    @Test func whereSaysTheCountryAndTheCityAPointIsNear() throws {
        let dataDirectory = PostGISCLITests.dataDirectory
        let place = ["where", "--lat", "48.8584", "--lon", "2.2945", "--data-dir", dataDirectory, "--db", try db]
        let table = try CLI.run(place + ["--format", "table"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.hasPrefix("Near Paris (4.0 km) · France (FR), Europe · Europe/Paris\n"), "\(table.stdout)")
        let csv = try CLI.run(place + ["--format", "csv"])
        let rows = csv.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.map { String($0[1]) } == ["Neuilly-sur-Seine", "Vanves", "Paris"])
        #expect(rows.map { String($0[8]) } == ["false", "false", "true"])
        let json = try CLI.run(place + ["--format", "json", "--limit", "1"])
        #expect((json.json["city"] as? [String: Any])?["id"] as? String == "geonames:2988507")
        #expect((json.json["cities"] as? [[String: Any]])?.count == 1 && json.json["country_code"] as? String == "FR")
        let sea = try CLI.run(["where", "--lat", "30", "--lon", "-40", "--data-dir", dataDirectory, "--db", try db, "--format", "table"])
        #expect(sea.status == 0 && sea.stdout == "No city in reach · in no country\n", "\(sea.stdout)")
        for (option, value, sentence) in [
            ("--radius", "600km", "--radius '600km' is invalid: give at most 500km"),
            ("--limit", "0", "--limit 0 is invalid: it must be from 1 to 50"),
        ] {
            let refused = try CLI.run(place + [option, value])
            #expect(refused.status == 64 && refused.stderr.contains(sentence), "\(refused.stderr)")
        }
    }

    @Test func negativeCoordinatesWorkBothWays() throws {
        for arguments in [["--lat", "37.7749", "--lon", "-122.4194"], ["--lat=37.7749", "--lon=-122.4194"]] {
            let result = try CLI.run(["near"] + arguments + ["--radius", "15mi", "--format", "csv", "--db", try db])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.first == "id,name,lat,lon,distance_m,categories,source")
            #expect(lines.dropFirst().map { $0.split(separator: ",")[0] } == ["geonames:5391959", "airport:KSFO"])
        }
    }

    @Test func geojsonIsRFC7946() throws {
        let result = try CLI.run(["near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "5km", "--format", "geojson", "--db", try db])
        let json = result.json
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(features.count == 3)
        let geometry = try #require(features[0]["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [2.26965, 48.8846])
        #expect((features[0]["properties"] as? [String: Any])?["name"] as? String == "Neuilly-sur-Seine")
    }

    @Test func tableIsReadable() throws {
        let result = try CLI.run(["near", "--lat", "48.8584", "--lon", "2.2945", "--radius", "20mi", "--format", "table", "--db", try db])
        #expect(result.stdout.contains("Charles de Gaulle") && result.stdout.contains("distance"))
        #expect(result.stdout.contains("5 places"))
    }

    @Test func bboxAcrossTheAntimeridianNearestPlaceAndStats() throws {
        let box = try CLI.run(["bbox", "--bbox", "170,-40,-170,-10", "--format", "json", "--db", try db])
        #expect((box.json["places"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["geonames:2193733", "geonames:4032243"])
        #expect((box.json["places"] as? [[String: Any]])?.first?["distance_m"] is NSNull)
        let nearest = try CLI.run(["nearest", "--lat", "-21", "--lon", "179.9", "-k", "1", "--format", "json", "--db", try db])
        #expect((nearest.json["places"] as? [[String: Any]])?.first?["id"] as? String == "geonames:4032243")
        let place = try CLI.run(["place", "airport:LFPG", "--format", "json", "--db", try db])
        let cdg = try #require((place.json["places"] as? [[String: Any]])?.first)
        #expect((cdg["tags"] as? [String: String])?["iata"] == "CDG")
        let quoted = try CLI.run(["place", "geonames:4180439", "--format", "json", "--db", try db])
        #expect((quoted.json["places"] as? [[String: Any]])?.first?["name"] as? String == "Atlanta, GA test")
        let missing = try CLI.run(["place", "airport:NOPE", "--db", try db])
        #expect(missing.status == 1 && missing.stderr.contains("airport:NOPE"))
        let stats = try CLI.run(["stats", "--format", "json", "--db", try db])
        #expect((stats.json["sources"] as? [[String: Any]])?.compactMap { $0["count"] as? Int } == [3, 7])
        // snake_case, as the service answers.
        #expect(stats.json["file_size"] as? Int ?? 0 > 0 && stats.json["fileSize"] == nil, "\(stats.stdout)")
    }

    @Test func sourcesAndSnapshotImports() throws {
        let fixture = try Self.fixture.get()
        // Its own copy of the index: this test adds a source.
        let db = fixture.directory.appendingPathComponent("sources-\(UUID().uuidString).sqlite").path
        try FileManager.default.copyItem(atPath: fixture.db, toPath: db)
        let sources = try CLI.run(["sources", "--format", "json", "--db", db])
        let list = (try? JSONSerialization.jsonObject(with: Data(sources.stdout.utf8))) as? [[String: Any]] ?? []
        #expect(list.compactMap { $0["source"] as? String } == ["airport", "geonames"])
        #expect(list.compactMap { $0["places"] as? Int } == [3, 7])
        // A dump imported under its own source name adds a source and leaves the others alone.
        let extra = fixture.directory.appendingPathComponent("extra.csv")
        try Data("geonameid,name,lat,lon\n1,Extra,10,10\n".utf8).write(to: extra)
        // No --format: detected from the header.
        let imported = try CLI.run(["import", extra.path, "--source", "extra-towns", "--json", "--db", db])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = (try? JSONSerialization.jsonObject(with: Data(imported.stdout.utf8))) as? [String: Any] ?? [:]
        #expect(summary["added"] as? Int == 1 && summary["removed"] as? Int == 0 && summary["source"] as? String == "extra-towns")
        #expect(summary["format"] as? String == "geonames-csv")
        #expect(summary["rows_read"] as? Int == 1 && summary["rows_per_second"] == nil, "\(imported.stdout)")
        let again = try CLI.run(["import", extra.path, "--format", "geonames-csv", "--source", "extra-towns", "--db", db])
        #expect(again.stdout.contains("nothing changed"))
        let bad = try CLI.run(["import", extra.path, "--format", "geonames-csv", "--source", "Bad Name", "--db", db])
        #expect(bad.status == 64 && bad.stderr.contains("Bad Name"))
        // An empty dump is refused rather than emptying the source.
        let empty = fixture.directory.appendingPathComponent("remove.csv")
        try Data("geonameid,name,lat,lon\n".utf8).write(to: empty)
        #expect(try CLI.run(["import", empty.path, "--format", "geonames-csv", "--source", "extra-towns", "--db", db]).status == 65)
        let after = try CLI.run(["sources", "--format", "csv", "--db", db])
        #expect(after.stdout.contains("extra-towns,1,"))
    }

    @Test func routeThroughPlacesInTheIndex() throws {
        let ids = ["geonames:2988507", "airport:LFPG", "geonames:2970761", "airport:LFPO", "geonames:2990611"]
        let result = try CLI.run([
            "route", "--places", ids.joined(separator: ","), "--start", "geonames:2988507",
            "--end", "airport:LFPG", "--format", "table", "--db", try db,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 8 && lines[2].contains("Paris") && lines[6].contains("Charles de Gaulle"))
        #expect(lines[7].contains("5 stops, path") && lines[7].contains("proven optimal"))
        let missing = try CLI.run(["route", "--places", "geonames:2988507,geonames:1", "--db", try db])
        #expect(missing.status == 1 && missing.stderr.contains("no place with id geonames:1"))
    }

    @Test func countryAndContinentFiltersUseTheRegionsDecidedAtImport() throws {
        func names(_ extra: [String]) throws -> [String] {
            let result = try CLI.run(
                [
                    "near", "--lat", "0", "--lon", "0", "--radius", "20000km", "--limit", "all", "--format", "json",
                    "--db", try db,
                ] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            return ((result.json["places"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }.sorted()
        }
        #expect(try names(["--country", "us"]) == ["Atlanta, GA test", "San Francisco", "San Francisco International Airport"])
        #expect(try names(["--continent", "OC"]) == ["Auckland", "Nuku'alofa"])
        #expect(try names(["--country", "NZ,TO", "--continent", "oceania"]) == ["Auckland", "Nuku'alofa"])
        // Tonga lies east of the antimeridian; its zone came with the dump.
        let tonga = try CLI.run(["place", "geonames:4032243", "--format", "json", "--db", try db])
        let place = ((tonga.json["places"] as? [[String: Any]]) ?? []).first
        #expect(place?["country_code"] as? String == "TO" && place?["continent"] as? String == "OC")
        #expect(place?["time_zone"] as? String == "Pacific/Tongatapu")
        // Region data that cannot be read is an error naming it, and the index is left alone.
        let missing = try CLI.run([
            "import", CLITests.fixture.get().directory.appendingPathComponent("cities.csv").path,
            "--format", "geonames-csv", "--data-dir", "/nonexistent/geodata", "--db", try db,
        ])
        #expect(missing.status == 66 && missing.stderr.contains("/nonexistent/geodata"), "\(missing.stderr)")
    }

    /// `geoquery best`: a country's places best first (all unrated here, so by id), in pages
    /// that continue exactly; no region is a usage error naming what to give.
    @Test func bestListsARegionInPages() throws {
        let all = try CLI.run(["best", "--country", "fr", "--limit", "all", "--format", "json", "--db", try db])
        #expect(all.status == 0, "\(all.stderr)")
        let ids = ((all.json["places"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(ids == ["airport:LFPG", "airport:LFPO", "geonames:2970761", "geonames:2988507", "geonames:2990611"])
        let first = try CLI.run(["best", "--continent", "EU", "--limit", "2", "--format", "json", "--db", try db])
        let cursor = try #require(first.json["next_cursor"] as? String)
        let rest = try CLI.run(["best", "--continent", "EU", "--limit", "all", "--cursor", cursor, "--format", "json", "--db", try db])
        let paged = [first, rest].flatMap { (($0.json["places"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } }
        #expect(paged == ids)
        let none = try CLI.run(["best", "--category", "city", "--db", try db])
        #expect(none.status == 64 && none.stderr.contains("--country"), "\(none.stderr)")
    }

    @Test func emptyAnswersSucceed() throws {
        let result = try CLI.run(["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--format", "json", "--db", try db])
        #expect(result.status == 0 && result.json["count"] as? Int == 0)
        let table = try CLI.run(["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--format", "table", "--db", try db])
        #expect(table.status == 0 && table.stdout.contains("no places found"))
    }

    @Test(arguments: [
        (["near", "--lat", "91", "--lon", "0", "--radius", "1km"], "91"),
        (["near", "--lat", "0", "--lon", "-181", "--radius", "1km"], "-181"),
        (["near", "--lat", "0", "--lon", "0", "--radius", "-3km"], "-3km"),
        (["near", "--lat", "0", "--lon", "0", "--radius", "5parsecs"], "parsecs"),
        (["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--limit", "0"], "--limit"),
        (["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--category", "spaceship"], "spaceship"),
        (["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--cursor", "nonsense"], "nonsense"),
        (["bbox", "--bbox", "1,2,3"], "1,2,3"),
        (["nearest", "--lat", "0", "--lon", "0", "-k", "0"], "-k 0"),
        (["nearest", "--lat", "0", "--lon", "0", "--max-distance", "-5km"], "-5km"),
        (["import", "/nonexistent/file.csv", "--format", "kml"], "kml"),
        (["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--country", "FRA"], "--country 'FRA' is invalid"),
        (["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--continent", "Atlantis"], "--continent 'Atlantis' is invalid"),
        (["bbox", "--bbox", "1,2,3,4", "--price", "0-2"], "--price '0-2' is invalid"),
        (["nearest", "--lat", "0", "--lon", "0", "--open-at", "noon"], "--open-at 'noon' is invalid"),
        (["nearest", "--lat", "0", "--lon", "0", "--open-now", "--open-at", "2026-11-23T12:00:00Z"], "--open-now and --open-at"),
        // An option the command does not know is named before the command checks the rest.
        (["route", "--bogus", "x"], "Unknown option '--bogus'"),
        (["near", "--lat", "0", "--radius", "1km", "--lng", "2"], "Unknown option '--lng'"),
        (["serve", "--port", "99999", "--hots", "0.0.0.0"], "Unknown option '--hots'"),
        (["route"], "give exactly one of --points FILE, --matrix FILE or --places"),
    ])
    func badInputIsExit64WithAMessageNamingIt(arguments: [String], named: String) throws {
        let result = try CLI.run(arguments + ["--db", try db])
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(named), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error") && result.stdout.isEmpty)
    }

    /// Each system error a user can cause is one sentence naming the thing and the fix, with
    /// its sysexits code.
    @Test func systemErrorsSayWhatToDo() throws {
        let directory = try ServeCLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt").path
        try String(repeating: "not a database\n", count: 100).write(toFile: text, atomically: true, encoding: .utf8)
        let notADatabase = try CLI.run(["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--db", text])
        #expect(
            notADatabase.status == 66 && notADatabase.stderr.contains("\(text) is not a SQLite database")
                && !notADatabase.stderr.contains("PRAGMA"), "\(notADatabase.stderr)")
        let missingFolder = try CLI.run(["serve", "--port", "0", "--db", try db, "--users-db", "/nonexistent/dir/users.sqlite"])
        #expect(
            missingFolder.status != 0
                && missingFolder.stderr.contains("the folder /nonexistent/dir does not exist; create it (mkdir -p /nonexistent/dir)"),
            "\(missingFolder.stderr)")
        let missingInput = try CLI.run(["import", directory.appendingPathComponent("none.csv").path, "--format", "geonames-csv", "--db", try db])
        #expect(missingInput.status == 66 && missingInput.stderr.contains("no file at \(directory.path)/none.csv"), "\(missingInput.stderr)")
        let wrongFormat = try CLI.run(["import", text, "--format", "geojson", "--db", directory.appendingPathComponent("new.sqlite").path])
        #expect(
            wrongFormat.status == 65 && wrongFormat.stderr.contains("is not a geojson file") && wrongFormat.stderr.contains("Is --format right?"),
            "\(wrongFormat.stderr)")
        let airports = try CLI.run(["import", text, "--format", "airports-csv", "--db", directory.appendingPathComponent("new.sqlite").path])
        #expect(airports.stderr.contains("is not an airports-csv file"), "\(airports.stderr)")
        let weather = try CLI.run(["weather", "--lat", "1", "--lon", "1", "--format", "geojson"])
        #expect(weather.status == 64 && weather.stderr.contains("'table'") && weather.stderr.contains("'json'"), "\(weather.stderr)")
        #expect(!(try CLI.run(["weather", "--help"]).stdout.contains("geojson")), "the help lists only the formats weather writes")
    }

    /// `--version` says the version the API description says (both come from one constant).
    @Test func theVersionIsSaidOnce() throws {
        let specification = PostGISCLITests.repositoryRoot.appendingPathComponent("Sources/GeoQueryServer/Resources/openapi.json")
        let info = (try JSONSerialization.jsonObject(with: Data(contentsOf: specification)) as? [String: Any])?["info"] as? [String: Any]
        let version = try #require(info?["version"] as? String)
        let said = try CLI.run(["--version"])
        #expect(said.status == 0 && said.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == version, "\(said.stdout) \(version)")
        let changelog = try String(contentsOf: PostGISCLITests.repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## \(version)"), "CHANGELOG.md has a heading for \(version)")
    }

    @Test func aMissingIndexSaysHowToBuildOne() throws {
        let result = try CLI.run(["near", "--lat", "0", "--lon", "0", "--radius", "1km", "--db", "/nonexistent/x.sqlite"])
        #expect(result.status == 66 && result.stderr.contains("geoquery import"))
        let fromEnvironment = try CLI.run(["stats"], environment: ["GEOQUERY_DB": try db])
        #expect(fromEnvironment.status == 0 && fromEnvironment.stdout.contains("geonames"))
    }

    @Test func batchAnswersEachLineInOrder() throws {
        let fixture = try Self.fixture.get()
        let batch = fixture.directory.appendingPathComponent("batch.csv")
        try Data("48.8584,2.2945,20mi\n# comment\n37.7749,-122.4194,15mi\n91,0,1km\n0,0,1km\n".utf8).write(to: batch)
        let result = try CLI.run(["near", "--batch", batch.path, "--db", fixture.db])
        let lines = result.stdout.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
        #expect(lines.count == 4)
        #expect(lines[0]["count"] as? Int == 5 && lines[1]["count"] as? Int == 2 && lines[3]["count"] as? Int == 0)
        #expect((lines[2]["error"] as? String)?.contains("91") == true && lines[2]["line"] as? Int == 4)
        #expect((lines[1]["query"] as? [String: Any])?["line"] as? Int == 3)
        #expect(result.status == 65 && result.stderr.contains("1 line(s)"))
    }
}
