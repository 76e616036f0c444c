import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import Testing

@Suite struct WireFormatTests {
    func place() throws -> Place {
        var place = try Place(
            id: PlaceID("osm:n1"), name: "Caf\u{e9} \"Le\\Bon\"\n\u{1}", coordinate: Coordinate(latitude: 48.5, longitude: -2.25),
            categories: [Category("food.cafe")], rating: Rating(sourceValue: 8.6, scale: 10, count: 12))
        place.tags = ["z": "last", "a": "first"]
        place.provenance.importedAt = Date(timeIntervalSince1970: 1_795_327_866.75)
        return place
    }

    /// The writer's JSON parses back to the same values, with escapes for quotes, backslashes
    /// and control characters, and members in contract order.
    @Test func answersParseBackInContractOrder() throws {
        let answer = PlaceAnswer(
            query: QueryDescription(kind: "near", lat: 48.5, lon: -2.25, radiusMeters: 1000, limit: 10),
            page: PlacePage(
                matches: [PlaceMatch(place: try place(), distance: Distance(uncheckedMeters: 12.34567))],
                nextCursor: "abc"))
        for pretty in [false, true] {
            let bytes = answer.json(pretty: pretty)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            #expect(object["count"] as? Int == 1)
            #expect(object["next_cursor"] as? String == "abc")
            let first = try #require((object["places"] as? [[String: Any]])?.first)
            #expect(first["name"] as? String == "Caf\u{e9} \"Le\\Bon\"\n\u{1}")
            #expect(first["distance_m"] as? Double == 12.346)
            #expect(first["lon"] as? Double == -2.25)
            #expect(first["imported_at"] as? String == "2026-11-22T06:11:06Z")
            #expect((first["rating"] as? [String: Any])?["value"] as? Double == 4.3)
            let text = String(decoding: bytes, as: UTF8.self)
            let places = text.range(of: "\"places\"")!.upperBound
            let order = ["\"id\"", "\"name\"", "\"lat\"", "\"lon\"", "\"distance_m\"", "\"categories\"", "\"source\""]
                .map { text.range(of: $0, range: places..<text.endIndex)!.lowerBound }
            #expect(order == order.sorted())
            #expect(text.contains(pretty ? "\"kind\": \"near\"" : "{\"query\":{\"kind\":\"near\""))
        }
    }

    /// GeoJSON is RFC 7946: longitude first, the place's fields as properties, foreign members.
    @Test func geoJSONIsLongitudeFirst() throws {
        let answer = PlaceAnswer(
            query: QueryDescription(kind: "bbox", bbox: [-3, 48, -2, 49]),
            page: PlacePage(matches: [PlaceMatch(place: try place(), distance: nil)], nextCursor: nil))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.geoJSON())) as? [String: Any])
        let feature = try #require((object["features"] as? [[String: Any]])?.first)
        #expect((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [-2.25, 48.5])
        #expect((feature["properties"] as? [String: Any])?["distance_m"] is NSNull)
        #expect(object["next_cursor"] is NSNull)
    }

    /// Timestamps match Foundation's ISO 8601 formatter from 1621 to 2350 (before 1582 Foundation
    /// switches to the Julian calendar; ISO 8601 stays Gregorian).
    @Test func timestampsMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let seconds = Double(Int64(random.next() % 23_000_000_000) - 11_000_000_000) + Double(random.next() % 1000) / 1000
            let date = Date(timeIntervalSince1970: seconds)
            #expect(Timestamp.iso8601(date) == formatter.string(from: date), "\(seconds)")
        }
    }

    /// The writer's timestamps, digit by digit, are ``Timestamp/iso8601(_:)`` quoted, also for
    /// years that do not fit four digits.
    @Test func writtenTimestampsMatchTheText() {
        var random = SplitMix64(seed: 11)
        var dates = (0..<5_000).map { _ in Date(timeIntervalSince1970: Double(Int64(random.next() % 40_000_000_000) - 20_000_000_000) + 0.75) }
        dates += [Date(timeIntervalSince1970: -62_167_219_201), Date(timeIntervalSince1970: 253_402_300_800), Date(timeIntervalSince1970: 0)]
        for date in dates {
            var json = JSONWriter()
            json.timestamp(date)
            #expect(json.text == "\"" + Timestamp.iso8601(date) + "\"", "\(date.timeIntervalSince1970)")
        }
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: -62_167_219_201)) == "-1-12-31T23:59:59Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
    }

    /// Cursors are unpadded base64url as Foundation would write it, and decode back; text that
    /// is not base64 is refused by name.
    @Test func cursorsAreBase64URL() throws {
        var random = SplitMix64(seed: 12)
        for length in 1..<60 {
            let id = String((0..<length).map { _ in Character(UnicodeScalar(UInt8(33 + random.next() % 90))) })
            let cursor = PageCursor(distance: Double(random.next() % 1_000_000) / 7, id: id, queryFingerprint: random.next())
            let text = cursor.encoded()
            var bytes = [UInt8]()
            withUnsafeBytes(of: cursor.distance.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: cursor.queryFingerprint.bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: id.utf8)
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(text == foundation)
            #expect(try PageCursor(decoding: text, expectedFingerprint: cursor.queryFingerprint) == cursor)
            // The standard alphabet and padding mean the same bytes.
            var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while standard.count % 4 != 0 { standard += "=" }
            #expect(try PageCursor(decoding: standard, expectedFingerprint: cursor.queryFingerprint) == cursor)
        }
        for bad in ["not a cursor!", "AAAAAAAAAAAAAAAAAAAAAAAAA", "AAAA*AAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAA==="] {
            #expect(throws: PlaceQueryError.self) { try PageCursor(decoding: bad, expectedFingerprint: 0) }
        }
    }

    /// Numbers with few decimals are written digit by digit: the same text as
    /// `Double.description` for coordinates, distances and ratings of every length, for
    /// random doubles, and at the edges of the digit-by-digit range.
    @Test func shortDecimalsMatchDescription() {
        var random = SplitMix64(seed: 13)
        func unit() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var values: [Double] = [
            1e-4, 0.0001, 0.00012, 999_999.5, 999_999.999999999, 1e6 - 1e-9, 0.1, 0.2, 0.3,
            0.1 + 0.2, 1.5, -0.5, 35.6895, 139.69171, -179.999999999, 89.123456789, 1551.064,
        ]
        for _ in 0..<200_000 {
            let decimals = Double(Int(random.next() % 10))
            let scale = Double(sign: .plus, exponent: 0, significand: 1) * pow(10, decimals)
            values.append(((unit() * 360 - 180) * scale).rounded() / scale)
            values.append(((unit() * 40_000_000) * 1000).rounded() / 1000)
            values.append((unit() - 0.5) * pow(10, Double(Int(random.next() % 14)) - 6))
            values.append(Double(bitPattern: random.next()))
        }
        for value in values where value.isFinite {
            var json = JSONWriter()
            json.double(value)
            let expected = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : value.description
            if json.text != expected {
                Issue.record("\(value.bitPattern): \(json.text) != \(expected)")
                return
            }
        }
    }

    /// Numbers: integral doubles without a fraction, others shortest round-trip, non-finite null.
    @Test func numbersAndEmptyContainers() {
        var json = JSONWriter(pretty: true)
        json.beginObject()
        json.key("a")
        json.double(3)
        json.key("b")
        json.double(0.1)
        json.key("c")
        json.double(.nan)
        json.key("d")
        json.int(-42)
        json.key("e")
        json.beginArray()
        json.endArray()
        json.key("f")
        json.beginObject()
        json.endObject()
        json.endObject()
        #expect(json.text == "{\n  \"a\": 3,\n  \"b\": 0.1,\n  \"c\": null,\n  \"d\": -42,\n  \"e\": [],\n  \"f\": {}\n}")
    }

    /// Keys from literals short, long and not ASCII, and strings with and without escapes, each
    /// closed by its quote.
    @Test func keysAndStringsAreQuoted() throws {
        let scalarKey: StaticString = "\u{E9}"  // one scalar, not ASCII
        var json = JSONWriter()
        json.beginObject()
        json.key("k")
        json.string("plain")
        json.key("a longer key")
        json.string("tab\there \"quoted\" back\\slash \u{1}")
        json.key(scalarKey)
        json.string("")
        json.key(dynamic: "d\"k")
        json.string("é")
        json.endObject()
        #expect(json.text == #"{"k":"plain","a longer key":"tab\there \"quoted\" back\\slash \u0001","é":"","d\"k":"é"}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: String]
        #expect(parsed?["a longer key"] == "tab\there \"quoted\" back\\slash \u{1}")
        #expect(parsed?["d\"k"] == "é")
    }

    /// Bytes drained part-way (an answer sent in pieces) join up to what one writer writes whole:
    /// the commas and open containers carry over the drain.
    @Test func drainedPiecesJoinUpToTheWholeDocument() throws {
        func write(_ json: inout JSONWriter, drainingAfter every: Int?, into pieces: inout [UInt8]) {
            json.beginObject()
            json.key("items")
            json.beginArray()
            for number in 0..<25 {
                json.beginObject()
                json.key("n")
                json.int(number)
                json.key("name")
                json.string("item \(number)")
                json.endObject()
                if let every, number % every == every - 1 { json.drain { pieces.append(contentsOf: $0) } }
            }
            json.endArray()
            json.key("done")
            json.bool(true)
            json.endObject()
            json.drain { pieces.append(contentsOf: $0) }
        }
        var whole = JSONWriter(), wholeBytes: [UInt8] = []
        write(&whole, drainingAfter: nil, into: &wholeBytes)
        var pieced = JSONWriter(capacity: 64), piecedBytes: [UInt8] = []
        write(&pieced, drainingAfter: 4, into: &piecedBytes)
        #expect(piecedBytes == wholeBytes)
        #expect(pieced.count == 0)
        let parsed = try JSONSerialization.jsonObject(with: Data(piecedBytes)) as? [String: Any]
        #expect((parsed?["items"] as? [Any])?.count == 25 && parsed?["done"] as? Bool == true)
    }
}
