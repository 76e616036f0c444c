import Foundation
import GeoCore
import GeoQueryWire
import PlaceImport
import PlaceModel
import PlaceQuery
import PlaceStore

// `make bench`: builds a deterministic synthetic index of 1 000 000 places clustered around the
// shipped cities and prints load rate, file size and query latencies, library against the raw
// engine baseline (RawBaseline.swift) on the same file in the same run.
//
// Then the import rows (ImportBench.swift): the same places as CSV and GeoJSONSeq files
// imported into fresh indexes, the CSV again with 1 % changed, and ogr2ogr on the same files
// when it is installed.
//
// Options: --places N (default 1000000), --queries N per row (default 2000), --db PATH,
// --keep (reuse an existing bench index of the right size), --no-import (skip the import rows),
// --no-routes (skip the routing rows), --routes-only (only them; RouteBench.swift), --quick,
// --imports-only (only the import rows), --route-seeds (the spread over seeds; RouteSeeds.swift),
// --no-service / --service-only (the JSON rows and `geoquery serve` under wrk; ServiceBench.swift),
// --availability-only (only the service's availability rows: AvailabilityBench.swift),
// --no-gems / --gems-only (100 000 gems, gems near under wrk, account throughput, a soak of
// --soak-seconds, default 60; GemBench.swift; then gem writes during a 1 M-row import,
// GemImportBench.swift, unless --no-gem-import),
// --service-seconds N (per service row, default 10), --json-only (only the JSON rows),
// --osm-only (only the OSM reading rows: OSMBench.swift),
// --no-postgis / --postgis-only (the PostGIS rows on a throwaway cluster: PostGISBench.swift),
// --no-trips / --trips-only (meeting times and day ordering with time windows: TripBench.swift).

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let placeCount = Int(option("--places") ?? "") ?? 1_000_000
let queryCount = Int(option("--queries") ?? "") ?? 2000
let path = option("--db") ?? ".build/bench-\(placeCount).sqlite"
let keep = arguments.contains("--keep")
try FileManager.default.createDirectory(
    atPath: (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent,
    withIntermediateDirectories: true)

@inline(never) func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func micros(_ ns: Double) -> String {
    ns >= 1_000_000 ? String(format: "%.2f ms", ns / 1_000_000) : String(format: "%.1f µs", ns / 1000)
}

if arguments.contains("--route-seeds") {
    try RouteSeeds.run(arguments: arguments, fixtures: "Tests/RoutingTests/Fixtures")
    exit(0)
}
if arguments.contains("--trips-only") {
    TripBench.run()
    exit(0)
}
if arguments.contains("--routes-only") {
    try RouteBench.run(
        fixtures: "Tests/RoutingTests/Fixtures", quick: arguments.contains("--quick"),
        exactOnly: arguments.contains("--exact-only"))
    exit(0)
}

print("GeoQuery benchmark: \(placeCount) places, \(queryCount) queries per row, index \(path)")
if !arguments.contains("--no-trips") && !arguments.contains("--availability-only") { TripBench.run() }
let cities = try SyntheticPlaces.loadCities("geodata/cities15000.csv")
let weightExponent = Double(option("--weight-exponent") ?? "") ?? 0.5
let places = SyntheticPlaces.generate(count: placeCount, cities: cities, seed: 42, weightExponent: weightExponent)

if arguments.contains("--osm-only") {
    try OSMBench.report(directory: (path as NSString).deletingLastPathComponent + "/bench-import")
    exit(0)
}
if arguments.contains("--imports-only") {
    try ImportBench.report(places: places, directory: (path as NSString).deletingLastPathComponent + "/bench-import")
    try OSMBench.report(directory: (path as NSString).deletingLastPathComponent + "/bench-import")
    exit(0)
}

var loadLine = "reused existing index"
if !(keep && FileManager.default.fileExists(atPath: path)) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let index = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
    let start = now()
    try index.write { writer in
        var offset = 0
        while offset < places.count {
            let end = min(offset + 50_000, places.count)
            try writer.upsert(Array(places[offset..<end]))
            offset = end
        }
    }
    let seconds = Double(now() - start) / 1e9
    loadLine = String(
        format: "load: %d places in %.1f s = %.0f rows/s (spatial index, category index and FTS included)",
        placeCount, seconds, Double(placeCount) / seconds)
    // The shipped cities too, for the service's autocomplete row (3 % more places).
    _ = try PlaceImporter.importFile("geodata/cities15000.csv", format: .geonamesCSV, into: index)
}
let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
print(loadLine)
print(String(format: "file size: %.1f MB", Double(size) / 1_000_000))

let index = try SpatiaLitePlaceIndex(path: path, mode: .readOnly)
let raw = RawBaseline(path: path)
var random = SplitMix64(seed: 7)
let centres: [Coordinate] = (0..<queryCount).map { _ in
    // Query where people are: at a random place, moved up to 500 m.
    let place = places[Int(random.next() % UInt64(places.count))]
    return Coordinate(
        uncheckedLatitude: (place.coordinate.latitude + (random.unit() - 0.5) * 0.009).clamped(to: -90...90),
        longitude: Coordinate.normalizedLongitude(place.coordinate.longitude + (random.unit() - 0.5) * 0.009))
}

/// The JSON cost: answers of every place within 20 miles encoded by the wire format, per place
/// and in MB/s, beside finding them; the CSV encoding for comparison.
func jsonRows() throws {
    var findTimes: [Double] = [], jsonTimes: [Double] = [], csvTimes: [Double] = []
    var placesSeen = 0, bytes = 0
    for centre in centres.prefix(500) {
        let t0 = now()
        let page = try index.near(centre, radius: Distance(uncheckedMeters: 32186.88))
        let t1 = now()
        let json = PlaceAnswer(query: QueryDescription(kind: "near", lat: centre.latitude, lon: centre.longitude), page: page).json()
        let t2 = now()
        _ = PlaceAnswer(query: QueryDescription(kind: "near"), page: page).csv()
        let t3 = now()
        findTimes.append(Double(t1 - t0))
        jsonTimes.append(Double(t2 - t1))
        csvTimes.append(Double(t3 - t2))
        placesSeen += page.matches.count
        bytes += json.count
    }
    let perPlace = jsonTimes.reduce(0, +) / Double(max(placesSeen, 1))
    let findPerPlace = findTimes.reduce(0, +) / Double(max(placesSeen, 1))
    let megabytesPerSecond = Double(bytes) / (jsonTimes.reduce(0, +) / 1e9) / 1e6
    print(
        String(
            format:
                "\nJSON answers, near 20 mi, every place (%d answers, %.0f places each): find %.2f µs/place, JSON %.2f µs/place = %.0f MB/s, CSV %.2f µs/place",
            findTimes.count, Double(placesSeen) / Double(findTimes.count), findPerPlace / 1000, perPlace / 1000, megabytesPerSecond,
            csvTimes.reduce(0, +) / Double(max(placesSeen, 1)) / 1000))
    let tokyo = Coordinate(uncheckedLatitude: 35.6895, longitude: 139.69171)
    let t0 = now()
    let page = try index.near(tokyo, radius: Distance(uncheckedMeters: 32186.88))
    let t1 = now()
    let json = PlaceAnswer(query: QueryDescription(kind: "near"), page: page).json(pretty: true)
    let t2 = now()
    print(
        String(
            format: "Tokyo, 20 mi, --limit all --format json: %d places found in %@, %.1f MB of JSON in %@",
            page.matches.count, micros(Double(t1 - t0)), Double(json.count) / 1e6, micros(Double(t2 - t1))))
}

func serviceRows(availabilityOnly: Bool = false) async throws {
    let names = try String(contentsOfFile: "geodata/cities15000.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        .compactMap { $0.split(separator: ",").dropFirst().first.map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } }
    var pick = SplitMix64(seed: 11)
    let ids = (0..<2000).map { _ in places[Int(pick.next() % UInt64(places.count))].id.rawValue }
    try await ServiceBench.run(
        indexPath: path, centres: centres, cityNames: names.shuffled(using: &pick), placeIDs: ids,
        seconds: Int(option("--service-seconds") ?? "") ?? 10, availabilityOnly: availabilityOnly)
}

if arguments.contains("--gem-import-only") {
    let directory = (path as NSString).deletingLastPathComponent + "/bench-gems"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("geoquery").path
    try GemImportBench.run(binary: binary, indexPath: path, places: places, directory: directory)
    exit(0)
}
if arguments.contains("--json-only") {
    try jsonRows()
    exit(0)
}
func gemRows() async throws {
    try await GemBench.run(
        indexPath: path, centres: centres, seconds: Int(option("--service-seconds") ?? "") ?? 10,
        soakSeconds: Int(option("--soak-seconds") ?? "") ?? 60)
    if !arguments.contains("--no-gem-import") {
        let directory = (path as NSString).deletingLastPathComponent + "/bench-gems"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("geoquery").path
        try GemImportBench.run(binary: binary, indexPath: path, places: places, directory: directory)
    }
}

/// Lists of places by id on the async SpatiaLite store the service reads through.
func idListRows() async throws {
    let store = try SpatiaLitePlaceStore(path: path)
    try await IDListBench.run(store, label: "\nplaces by id on SpatiaLite", ids: places.map(\.id))
    try await store.shutdown()
}

func postGISRows() async throws {
    try await PostGISBench.run(
        places: places, centres: centres, spatiaLitePath: path,
        seconds: Int(option("--service-seconds") ?? "") ?? 10)
}

if arguments.contains("--postgis-only") {
    try await postGISRows()
    exit(0)
}
if arguments.contains("--gems-only") {
    try await gemRows()
    exit(0)
}
if arguments.contains("--availability-only") {
    try await serviceRows(availabilityOnly: true)
    exit(0)
}
if arguments.contains("--service-only") {
    try jsonRows()
    try await idListRows()
    try await serviceRows()
    exit(0)
}

if let probeLimit = option("--probe") {
    try probe(index: index, centres: centres, limit: Int(probeLimit), meters: Double(option("--probe-radius") ?? "") ?? 32186.88)
    exit(0)
}

struct Row {
    var name: String
    var library: [Double]
    var raw: [Double]?
    var results: Double
}
var rows: [Row] = []
var mismatches = 0

for (label, meters) in [("1 km", 1000.0), ("5 km", 5000.0), ("20 mi", 32186.88)] {
    let radius = Distance(uncheckedMeters: meters)
    // Warm both paths over every centre (hot cache), then alternate which goes first.
    for centre in centres {
        _ = try index.near(centre, radius: radius)
        _ = raw.near(centre, radius: meters)
    }
    var libraryTimes: [Double] = [], rawTimes: [Double] = [], total = 0
    for (n, centre) in centres.enumerated() {
        var baseline: [RawBaseline.Row] = []
        var rawNanoseconds: UInt64 = 0
        func runRaw() {
            let start = now()
            baseline = raw.near(centre, radius: meters)
            rawNanoseconds = now() - start
        }
        if n % 2 == 1 { runRaw() }
        // Both sides produce what the raw baseline returns: id, name and distance of every match.
        let t0 = now()
        let page = try index.near(centre, radius: radius)
        var produced: [(String, String, Double)] = []
        produced.reserveCapacity(page.matches.count)
        for match in page.matches { produced.append((match.id.rawValue, match.name, match.distance!.meters)) }
        let t1 = now()
        if n % 2 == 0 { runRaw() }
        libraryTimes.append(Double(t1 - t0))
        rawTimes.append(Double(rawNanoseconds))
        total += produced.count
        if produced.map(\.0) != baseline.map(\.id) || produced.map(\.1) != baseline.map(\.name) { mismatches += 1 }
    }
    rows.append(Row(name: "near \(label)", library: libraryTimes, raw: rawTimes, results: Double(total) / Double(centres.count)))
}

for (label, meters) in [("1 km", 1000.0), ("5 km", 5000.0), ("20 mi", 32186.88)] {
    var times: [Double] = [], total = 0
    for centre in centres {
        let box = BoundingBox.covering(center: centre, radius: Distance(uncheckedMeters: meters))
        let t0 = now()
        let page = try index.within(box)
        times.append(Double(now() - t0))
        total += page.matches.count
    }
    rows.append(Row(name: "within box ±\(label)", library: times, raw: nil, results: Double(total) / Double(centres.count)))
}

var nearestTimes: [Double] = []
for centre in centres {
    let t0 = now()
    _ = try index.nearest(centre, count: 10)
    nearestTimes.append(Double(now() - t0))
}
rows.append(Row(name: "nearest k=10", library: nearestTimes, raw: nil, results: 10))

var pagedTimes: [Double] = [], pagedTotal = 0
for centre in centres {
    let t0 = now()
    pagedTotal += try index.near(centre, radius: Distance(uncheckedMeters: 32186.88), limit: 50).matches.count
    pagedTimes.append(Double(now() - t0))
}
rows.append(Row(name: "near 20 mi, first 50", library: pagedTimes, raw: nil, results: Double(pagedTotal) / Double(centres.count)))

var decodedTimes: [Double] = [], decodedTotal = 0
for centre in centres {
    let t0 = now()
    let places = try index.near(centre, radius: Distance(uncheckedMeters: 32186.88)).matches.map(\.place)
    decodedTimes.append(Double(now() - t0))
    decodedTotal += places.count
}
rows.append(Row(name: "near 20 mi, every Place", library: decodedTimes, raw: nil, results: Double(decodedTotal) / Double(centres.count)))

var filteredTimes: [Double] = [], filteredTotal = 0
let filter = PlaceFilter(categories: [try Category("food")], minimumRating: 3)
for centre in centres {
    let t0 = now()
    filteredTotal += try index.near(centre, radius: Distance(uncheckedMeters: 5000), filter: filter).matches.count
    filteredTimes.append(Double(now() - t0))
}
rows.append(Row(name: "near 5 km food ★≥3", library: filteredTimes, raw: nil, results: Double(filteredTotal) / Double(centres.count)))

// Places of a region, best first (PlaceIndex.ranked): the first page of 50 of a country and of
// a continent, beside the hand-written statement on the same rank index (the raw baseline).
let regionPlaces = (0..<min(queryCount, 500)).map { _ in places[Int(random.next() % UInt64(places.count))] }
for (label, byContinent) in [("country", false), ("continent", true)] {
    var times: [Double] = [], rawTimes: [Double] = [], total = 0
    for place in regionPlaces {
        guard let region = place.region, let continent = region.continent, let country = region.countryCode else { continue }
        let filter = byContinent ? PlaceFilter(continents: [continent]) : PlaceFilter(countries: [country])
        let t0 = now()
        let page = try index.ranked(filter: filter, limit: 50)
        let t1 = now()
        let rawCount = raw.ranked(column: byContinent ? "continent" : "country", value: byContinent ? continent.rawValue : country, limit: 51)
        rawTimes.append(Double(now() - t1))
        times.append(Double(t1 - t0))
        total += page.matches.count
        if page.matches.count != min(50, rawCount) { mismatches += 1 }
    }
    rows.append(Row(name: "\(label), best 50", library: times, raw: rawTimes, results: Double(total) / Double(max(times.count, 1))))
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return right ? padding + text : text + padding
}
print("")
print(
    [
        pad("query", 22), pad("results", 8, right: true), pad("p50", 10, right: true), pad("p95", 10, right: true),
        pad("raw p50", 10, right: true), pad("raw p95", 10, right: true), pad("lib/raw", 8, right: true),
    ].joined(separator: "  "))
for row in rows {
    let p50 = percentile(row.library, 0.5), p95 = percentile(row.library, 0.95)
    var cells = [
        pad(row.name, 22), pad(String(format: "%.1f", row.results), 8, right: true),
        pad(micros(p50), 10, right: true), pad(micros(p95), 10, right: true),
    ]
    if let rawTimes = row.raw {
        let r50 = percentile(rawTimes, 0.5)
        cells += [
            pad(micros(r50), 10, right: true), pad(micros(percentile(rawTimes, 0.95)), 10, right: true),
            pad(String(format: "%.2f×", p50 / r50), 8, right: true),
        ]
    }
    print(cells.joined(separator: "  "))
}
print("")
print("library and raw baseline answers differ in \(mismatches) of \(centres.count * 3) near queries (must be 0)")
if mismatches > 0 { exit(1) }

try jsonRows()
try await idListRows()
if !arguments.contains("--no-service") { try await serviceRows() }
if !arguments.contains("--no-gems") { try await gemRows() }
if !arguments.contains("--no-postgis") { try await postGISRows() }

if !arguments.contains("--no-import") {
    try ImportBench.report(places: places, directory: (path as NSString).deletingLastPathComponent + "/bench-import")
    try OSMBench.report(directory: (path as NSString).deletingLastPathComponent + "/bench-import")
}

if !arguments.contains("--no-routes") {
    try RouteBench.run(fixtures: "Tests/RoutingTests/Fixtures", quick: arguments.contains("--quick"))
}
