import Foundation
import ProviderTestSupport
import Testing

/// `geoquery route` as a user runs it.
@Suite(.waitsOnProcesses) struct RouteCLITests {
    let directory: URL

    init() throws {
        directory = try TemporaryDirectories.make("geoquery-route")
    }

    func write(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let parisCSV = """
        id,name,lat,lon
        hotel,Hotel du Louvre,48.8627,2.3353
        eiffel,Eiffel Tower,48.8584,2.2945
        notre,Notre-Dame,48.8530,2.3499
        sacre,Sacré-Cœur,48.8867,2.3431
        arc,Arc de Triomphe,48.8738,2.2950
        orsay,Musée d'Orsay,48.8600,2.3266
        station,Gare de Lyon,48.8443,2.3744
        """

    @Test func pathFromHotelToStationAsJSON() throws {
        let file = try write("stops.csv", Self.parisCSV)
        let result = try CLI.run(["route", "--points", file, "--start", "hotel", "--end", "station", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = result.json
        let order = try #require(json["order"] as? [String])
        #expect(order.first == "hotel" && order.last == "station" && Set(order).count == 7)
        #expect(json["unit"] as? String == "m" && json["proven_optimal"] as? Bool == true && json["closed"] as? Bool == false)
        let legs = try #require(json["legs"] as? [[String: Any]])
        #expect(legs.count == 6 && legs.first?["from"] as? String == "hotel" && legs.last?["to"] as? String == "station")
        let length = try #require(json["length"] as? Double)
        #expect(abs(legs.compactMap { $0["length"] as? Double }.reduce(0, +) - length) < 1e-6)
        #expect(json["lower_bound"] as? Double == length)
        #expect(length > 8_000 && length < 20_000)
    }

    @Test func roundTripAsGeoJSONClosesTheLine() throws {
        let features = Self.parisCSV.split(separator: "\n").dropFirst().map { line -> String in
            let f = line.split(separator: ",")
            return
                #"{"type":"Feature","id":"\#(f[0])","properties":{"name":"\#(f[1])"},"geometry":{"type":"Point","coordinates":[\#(f[3]),\#(f[2])]}}"#
        }
        let file = try write("stops.geojson", #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
        let result = try CLI.run(["route", "--points", file, "--closed", "--start", "eiffel", "--format", "geojson"])
        #expect(result.status == 0, "\(result.stderr)")
        let features2 = try #require(result.json["features"] as? [[String: Any]])
        #expect(features2.count == 8)
        let line = try #require((features2[0]["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(line.count == 8 && line.first == line.last && line.first == [2.2945, 48.8584])
        let visits = features2.dropFirst().compactMap { ($0["properties"] as? [String: Any])?["visit"] as? Int }
        #expect(visits == Array(1...7))
    }

    @Test func tsplibMatrixReproducesThePublishedOptimum() throws {
        let tsp = """
            NAME: burma14
            TYPE: TSP
            DIMENSION: 14
            EDGE_WEIGHT_TYPE: GEO
            NODE_COORD_SECTION
               1  16.47       96.10
               2  16.47       94.44
               3  20.09       92.54
               4  22.39       93.37
               5  25.23       97.24
               6  22.00       96.05
               7  20.47       97.02
               8  17.20       96.29
               9  16.30       97.38
              10  14.05       98.12
              11  16.53       97.38
              12  21.52       95.59
              13  19.41       97.13
              14  20.09       94.55
            EOF
            """
        let file = try write("burma14.tsp", tsp)
        let result = try CLI.run(["route", "--matrix", file, "--closed", "--start", "1", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json["length"] as? Double == 3323 && result.json["unit"] as? String == "matrix")
        #expect((result.json["order"] as? [String])?.first == "1" && result.json["proven_optimal"] as? Bool == true)
        let table = try CLI.run(["route", "--matrix", file, "--closed", "--format", "table"])
        #expect(table.stdout.contains("14 stops, round trip 3323, proven optimal"))
    }

    @Test func asymmetricJSONMatrixWithMissingEdges() throws {
        let file = try write("matrix.json", #"{"ids":["depot","a","b","c"],"distances":[[0,4,null,9],[null,0,2,null],[7,null,0,1],[3,5,null,0]]}"#)
        let result = try CLI.run(["route", "--matrix", file, "--closed", "--start", "depot", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json["order"] as? [String] == ["depot", "a", "b", "c"] && result.json["length"] as? Double == 10)
    }

    @Test func badInputNamesTheValue() throws {
        let file = try write("stops.csv", Self.parisCSV)
        let unknown = try CLI.run(["route", "--points", file, "--start", "louvre"])
        #expect(unknown.status == 64 && unknown.stderr.contains("--start 'louvre' is not one of the 7 stops"))
        let both = try CLI.run(["route", "--points", file, "--matrix", file])
        #expect(both.status == 64 && both.stderr.contains("exactly one of --points"))
        let deadline = try CLI.run(["route", "--points", file, "--deadline", "soon"])
        #expect(deadline.status == 64 && deadline.stderr.contains("--deadline 'soon' is not a duration"))
        let badLine = try write("bad.csv", "id,lat,lon\na,48.1,2.3\nb,91,2.3\n")
        let latitude = try CLI.run(["route", "--points", badLine])
        #expect(latitude.status == 65 && latitude.stderr.contains("line 3") && latitude.stderr.contains("latitude 91"))
        let lineString = try write(
            "line.geojson",
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}"#
        )
        let notPoints = try CLI.run(["route", "--points", lineString])
        #expect(notPoints.status == 65 && notPoints.stderr.contains("expected type Point, found LineString"))
        let dead = try write("dead.json", #"{"distances":[[0,null],[null,0]]}"#)
        let infeasible = try CLI.run(["route", "--matrix", dead, "--closed"])
        #expect(infeasible.status == 65 && infeasible.stderr.contains("no order of the stops avoids"))
        let geojson = try CLI.run(["route", "--matrix", dead, "--format", "geojson"])
        #expect(geojson.status != 0)
    }
}
