import Foundation
import Testing

@testable import GeoCore

@Suite struct BoundingBoxTests {
    /// Every point GeographicLib puts on a circle's boundary lies inside the covering box,
    /// for centres at the poles, on the antimeridian, and random, and radii up to half the Earth.
    @Test func coveringBoxContainsEveryPointOnTheCircle() throws {
        let rows = try fixtureRows("circle_boundary")
        #expect(rows.count > 4000)
        for row in rows {
            let center = try Coordinate(latitude: Double(row[0])!, longitude: Double(row[1])!)
            let radius = try Distance(meters: Double(row[2])!)
            let box = BoundingBox.covering(center: center, radius: radius)
            let lat2 = Double(row[4])!, lon2 = Coordinate.normalizedLongitude(Double(row[5])!)
            #expect(box.contains(latitude: lat2, longitude: lon2), "box \(box) misses \(lat2),\(lon2) for \(row)")
        }
    }

    @Test func circleAcrossTheAntimeridianWraps() throws {
        let box = BoundingBox.covering(center: try Coordinate(latitude: 0, longitude: 179.95), radius: try Distance(parsing: "20km"))
        #expect(box.crossesAntimeridian)
        #expect(box.contains(latitude: 0, longitude: -179.95))
        #expect(box.contains(latitude: 0, longitude: 179.95))
        #expect(!box.contains(latitude: 0, longitude: 0))
        #expect(box.nonWrappingParts.count == 2)
        #expect(box.nonWrappingParts.allSatisfy { $0.west <= $0.east })
    }

    @Test(arguments: [89.9, -89.9, 90.0, -90.0])
    func circleReachingAPoleSpansAllLongitudes(latitude: Double) throws {
        let box = BoundingBox.covering(center: try Coordinate(latitude: latitude, longitude: 10), radius: try Distance(parsing: "50km"))
        #expect(box.west == -180 && box.east == 180)
        #expect(latitude > 0 ? box.north == 90 : box.south == -90)
    }

    @Test func zeroRadiusIsAPointBoxAndHalfTheEarthIsTheWorld() throws {
        let center = try Coordinate(latitude: 48.8584, longitude: 2.2945)
        let point = BoundingBox.covering(center: center, radius: .zero)
        #expect(point.contains(center))
        #expect(point.east - point.west < 1e-6)
        #expect(BoundingBox.covering(center: center, radius: try Distance(parsing: "20000km")) == .world)
        #expect(BoundingBox.covering(center: center, radius: .halfMeridian) == .world)
    }

    @Test func parsesAndValidates() throws {
        let box = try BoundingBox(parsing: "170,-10,-170,10")
        #expect(box.crossesAntimeridian)
        #expect(box.contains(latitude: 0, longitude: 180) && box.contains(latitude: 0, longitude: -180))
        #expect(throws: GeoCoreError.self) { try BoundingBox(parsing: "1,2,3") }
        #expect(throws: GeoCoreError.invalidLatitude(95)) { try BoundingBox(parsing: "0,0,1,95") }
        #expect(throws: GeoCoreError.self) { try BoundingBox(parsing: "0,10,1,5") }
        #expect(throws: GeoCoreError.self) { try BoundingBox(parsing: "a,0,1,5") }
        #expect(throws: GeoCoreError.invalidBoundingBox("a,0,1,5", reason: "the west edge 'a' is not a number")) {
            try BoundingBox(parsing: "a,0,1,5")
        }
        #expect(
            throws: GeoCoreError.invalidBoundingBox(
                "1,,3,4", reason: "the south edge is missing; expected four numbers W,S,E,N, e.g. 2.2,48.8,2.4,48.9")
        ) {
            try BoundingBox(parsing: "1,,3,4")
        }
    }

    @Test func antimeridianIsOneMeridian() throws {
        let east = try BoundingBox(west: 170, south: -1, east: 180, north: 1)
        #expect(east.contains(latitude: 0, longitude: -180))
        let west = try BoundingBox(west: -180, south: -1, east: -170, north: 1)
        #expect(west.contains(latitude: 0, longitude: 180))
        #expect(!west.contains(latitude: 0, longitude: 179.9))
    }
}

@Suite struct CoordinateAndDistanceTests {
    @Test(arguments: [91.0, -90.5, .nan, .infinity])
    func rejectsBadLatitudesNamingThem(latitude: Double) {
        #expect(throws: GeoCoreError.self) { try Coordinate(latitude: latitude, longitude: 0) }
        do { _ = try Coordinate(latitude: latitude, longitude: 0) } catch {
            #expect(String(describing: error).contains(GeoCoreError.format(latitude)))
            #expect(String(describing: error).contains("-90 to 90"))
        }
    }

    @Test func rejectsBadLongitudesAndNormalises() throws {
        #expect(throws: GeoCoreError.invalidLongitude(181)) { try Coordinate(latitude: 0, longitude: 181) }
        #expect(Coordinate.normalizedLongitude(190) == -170)
        #expect(Coordinate.normalizedLongitude(-190) == 170)
        #expect(Coordinate.normalizedLongitude(180) == -180)
        #expect(Coordinate.normalizedLongitude(540) == -180)
        #expect(try Coordinate(latitude: 1, normalizingLongitude: 361).longitude == 1)
    }

    @Test(arguments: [
        ("20mi", 32186.88), ("32.2km", 32200.0), ("800m", 800.0), ("1200ft", 365.76),
        ("0.5nmi", 926.0), ("1500", 1500.0), ("5 KM", 5000.0), ("1e3m", 1000.0), ("0", 0.0),
    ])
    func parsesUnits(text: String, meters: Double) throws {
        #expect(abs(try Distance(parsing: text).meters - meters) < 1e-9)
    }

    @Test(arguments: ["-3km", "5parsecs", "", "km", "nan", "inf", "1..2km"])
    func rejectsBadDistancesNamingTheInput(text: String) {
        do {
            _ = try Distance(parsing: text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(String(describing: error).contains("'\(text)'"))
        }
    }

    @Test func unknownUnitListsTheValidOnes() {
        do {
            _ = try Distance(parsing: "5parsecs")
            Issue.record("parsed")
        } catch {
            #expect(String(describing: error).contains("m, km, mi, ft, yd, nmi"))
        }
    }

    @Test func formatsAndParsesBack() throws {
        let distance = try Distance(parsing: "20mi")
        #expect(distance.formatted(in: .miles) == "20mi")
        #expect(distance.formatted(in: .kilometers) == "32.187km")
        #expect(try Distance(parsing: distance.formatted(in: .miles)) == distance)
        #expect(try Distance(meters: 800).description == "800m")
        #expect(throws: GeoCoreError.self) { try Distance(meters: -1) }
    }
}

@Suite struct GeoJSONTests {
    @Test func pointsAreLongitudeFirst() throws {
        let point = GeoJSON.Point(try Coordinate(latitude: 48.8584, longitude: 2.2945))
        let json = String(decoding: try JSONEncoder().encode(point), as: UTF8.self)
        #expect(json.contains("[2.2945,48.8584]"))
        let decoded = try JSONDecoder().decode(GeoJSON.Point.self, from: Data(#"{"type":"Point","coordinates":[-122.4194,37.7749,12]}"#.utf8))
        #expect(decoded.coordinate.latitude == 37.7749 && decoded.coordinate.longitude == -122.4194 && decoded.altitude == 12)
    }

    @Test func featureCollectionsRoundTripAndTypesAreChecked() throws {
        let text =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[1.5,42.5]},"properties":{"name":"Andorra","pop":77000,"capital":true,"tags":["a"]}},{"type":"Feature","geometry":null,"properties":null}]}"#
        let collection = try JSONDecoder().decode(GeoJSON.FeatureCollection.self, from: Data(text.utf8))
        #expect(collection.features.count == 2)
        #expect(collection.features[0].id == "7")
        #expect(collection.features[0].properties?["pop"] == .int(77000))
        #expect(collection.features[1].geometry == nil)
        let again = try JSONDecoder().decode(GeoJSON.FeatureCollection.self, from: try JSONEncoder().encode(collection))
        #expect(again == collection)
        let encoded = String(decoding: try JSONEncoder().encode(collection), as: UTF8.self)
        #expect(encoded.contains(#""geometry":null"#))
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(GeoJSON.Point.self, from: Data(#"{"type":"LineString","coordinates":[1,2]}"#.utf8))
        }
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(GeoJSON.Point.self, from: Data(#"{"type":"Point","coordinates":[200,2]}"#.utf8))
        }
    }

    @Test func hilbertOrderKeepsNeighboursClose() {
        let a = HilbertCurve.index(latitude: 48.85, longitude: 2.29)
        let b = HilbertCurve.index(latitude: 48.851, longitude: 2.291)
        let far = HilbertCurve.index(latitude: -33.8, longitude: 151.2)
        #expect(abs(Int64(a) - Int64(b)) < abs(Int64(a) - Int64(far)))
    }
}
