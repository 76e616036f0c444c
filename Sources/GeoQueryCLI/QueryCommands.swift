import ArgumentParser
import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import PlaceStore
import PostGISStore

/// `geoquery near`: places within a radius, nearest first.
struct Near: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        abstract: "Places within a radius of a point, nearest first (WGS84 ellipsoidal distance).",
        discussion: """
            Example: geoquery near --lat 48.8584 --lon 2.2945 --radius 20mi --limit 15
            Radius units: m, km, mi, ft, yd, nmi; a bare number is metres.
            With --batch FILE, each line of FILE is `lat,lon,radius` and the output is one JSON \
            answer per line, in input order.
            """)

    @Option(parsing: .unconditional, help: "Latitude of the centre, -90 to 90.") var lat: Double?
    @Option(parsing: .unconditional, help: "Longitude of the centre, -180 to 180.") var lon: Double?
    @Option(parsing: .unconditional, help: "Radius, e.g. 20mi, 5km, 800m.") var radius: String?
    @Option(help: "CSV file of `lat,lon,radius` queries; answers as JSON Lines.") var batch: String?
    @OptionGroup var filters: FilterOptions
    @OptionGroup var paging: PagingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func check() throws {
        if batch != nil {
            if lat != nil || lon != nil || radius != nil {
                throw ValidationError("--batch reads lat, lon and radius from the file; do not also give --lat, --lon or --radius")
            }
        } else {
            guard let lat, let lon, let radius else {
                throw ValidationError("give --lat, --lon and --radius (or --batch FILE)")
            }
            _ = try parseCoordinate(latitude: lat, longitude: lon)
            _ = try parseDistance(radius, option: "--radius")
        }
        _ = try paging.parsedLimit()
        _ = try filters.filter()
    }

    func run() async throws {
        let filter = try filters.filter()
        let limit = try paging.parsedLimit()
        let index = try await index.open()
        if let batch { return try await runBatch(batch, index: index, filter: filter, limit: limit) }
        let center = try parseCoordinate(latitude: lat!, longitude: lon!)
        let radiusValue = try parseDistance(radius!, option: "--radius")
        let page = try await reportingFailures {
            try await index.near(center, radius: radiusValue, filter: filter, limit: limit, cursor: paging.cursor)
        }
        let query = QueryDescription(
            kind: "near", lat: center.latitude, lon: center.longitude,
            radiusMeters: radiusValue.meters, filter: filter, limit: limit)
        try Renderer.write(PlaceAnswer(query: query, page: page), format: output.resolved)
    }

    private func runBatch(_ path: String, index: OpenIndex, filter: PlaceFilter, limit: Int?) async throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CLIFailure("cannot read --batch file \(path): no such file or not UTF-8 text", exitCode: CLIFailure.usage)
        }
        var output = ""
        var badLines = 0
        let stdout = FileHandle.standardOutput
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            do {
                let parts = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 3, let latitude = Double(parts[0]), let longitude = Double(parts[1]) else {
                    throw CLIFailure("expected lat,lon,radius, found '\(line)'", exitCode: CLIFailure.dataError)
                }
                let center = try Coordinate(latitude: latitude, longitude: longitude)
                let radiusValue = try Distance(parsing: parts[2])
                let page = try await index.near(center, radius: radiusValue, filter: filter, limit: limit, cursor: nil)
                let query = QueryDescription(
                    kind: "near", lat: latitude, lon: longitude,
                    radiusMeters: radiusValue.meters, filter: filter, limit: limit, line: offset + 1)
                output += String(decoding: PlaceAnswer(query: query, page: page).json(), as: UTF8.self)
            } catch {
                badLines += 1
                let message = (error as? CLIFailure)?.message ?? CLIFailure(error).message
                output += OrderedJSON.object([("line", .int(offset + 1)), ("error", .string(message))]).rendered(pretty: false)
            }
            output += "\n"
            if output.utf8.count > 1 << 16 {
                stdout.write(Data(output.utf8))
                output = ""
            }
        }
        stdout.write(Data(output.utf8))
        if badLines > 0 {
            throw CLIFailure(
                "\(badLines) line(s) of \(path) were not valid queries (see their \"error\" answers)",
                exitCode: CLIFailure.dataError)
        }
    }
}

/// `geoquery bbox`: places in a box.
struct BBox: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        commandName: "bbox",
        abstract: "Places inside a box W,S,E,N (W > E crosses the antimeridian), sorted by id.")

    @Option(parsing: .unconditional, help: "The box as west,south,east,north in degrees, e.g. 2.2,48.8,2.4,48.9.")
    var bbox: String
    @OptionGroup var filters: FilterOptions
    @OptionGroup var paging: PagingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func check() throws {
        do { _ = try BoundingBox(parsing: bbox) } catch { throw ValidationError("--bbox: \(error)") }
        _ = try paging.parsedLimit()
        _ = try filters.filter()
    }

    func run() async throws {
        let box = try BoundingBox(parsing: bbox)
        let filter = try filters.filter()
        let limit = try paging.parsedLimit()
        let index = try await index.open()
        let page = try await reportingFailures { try await index.within(box, filter: filter, limit: limit, cursor: paging.cursor) }
        let query = QueryDescription(kind: "bbox", bbox: [box.west, box.south, box.east, box.north], filter: filter, limit: limit)
        try Renderer.write(PlaceAnswer(query: query, page: page), format: output.resolved)
    }
}

/// `geoquery best`: the places of a country or continent, best first.
struct Best: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        abstract: "The places of a country or continent (--country, --continent), best first: highest rating, then most ratings, then id.")

    @OptionGroup var filters: FilterOptions
    @OptionGroup var paging: PagingOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func check() throws {
        let filter = try filters.filter()
        guard !filter.countries.isEmpty || !filter.continents.isEmpty else {
            throw ValidationError("best needs a region: give --country (e.g. FR) or --continent (AF, AN, AS, EU, NA, OC or SA)")
        }
        _ = try paging.parsedLimit()
    }

    func run() async throws {
        let filter = try filters.filter()
        let limit = try paging.parsedLimit()
        let index = try await index.open()
        let page = try await reportingFailures { try await index.ranked(filter: filter, limit: limit, cursor: paging.cursor) }
        let query = QueryDescription(kind: "region", filter: filter, limit: limit, extra: [("order", .string("rating"))])
        try Renderer.write(PlaceAnswer(query: query, page: page), format: output.resolved)
    }
}

/// `geoquery nearest`: the k nearest places.
struct Nearest: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(abstract: "The k places nearest to a point.")

    @Option(parsing: .unconditional, help: "Latitude, -90 to 90.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude, -180 to 180.") var lon: Double
    @Option(name: .customShort("k"), help: "How many places, 1 to 10000.") var k: Int = 10
    @Option(name: .customLong("max-distance"), parsing: .unconditional, help: "Ignore places further than this, e.g. 50km.") var maxDistance: String?
    @OptionGroup var filters: FilterOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func check() throws {
        _ = try parseCoordinate(latitude: lat, longitude: lon)
        guard (1...10_000).contains(k) else { throw ValidationError("-k \(k) is invalid: it must be from 1 to 10000") }
        if let maxDistance { _ = try parseDistance(maxDistance, option: "--max-distance") }
        _ = try filters.filter()
    }

    func run() async throws {
        let center = try parseCoordinate(latitude: lat, longitude: lon)
        let ceiling = try maxDistance.map { try parseDistance($0, option: "--max-distance") }
        let filter = try filters.filter()
        let index = try await index.open()
        let matches = try await reportingFailures {
            try await index.nearest(center, count: k, maxDistance: ceiling, filter: filter)
        }
        let query = QueryDescription(
            kind: "nearest", lat: lat, lon: lon, radiusMeters: ceiling?.meters,
            filter: filter, limit: k)
        try Renderer.write(PlaceAnswer(query: query, page: PlacePage(matches: matches, nextCursor: nil)), format: output.resolved)
    }
}

/// `geoquery place ID`.
struct PlaceLookup: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(commandName: "place", abstract: "One place by id, e.g. geonames:2988507.")

    @Argument(help: "The place id, source:localId.") var id: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func check() throws {
        do { _ = try PlaceID(id) } catch { throw ValidationError(String(describing: error)) }
    }

    func run() async throws {
        let placeID = try PlaceID(id)
        let index = try await index.open()
        guard let place = try await reportingFailures({ try await index.place(placeID) }) else {
            throw CLIFailure("no place with id \(id) in \(index.location)", exitCode: 1)
        }
        let query = QueryDescription(kind: "place", id: id)
        try Renderer.write(
            PlaceAnswer(query: query, page: PlacePage(matches: [PlaceMatch(place: place, distance: nil)], nextCursor: nil)),
            format: output.resolved, detailed: true)
    }
}

/// `geoquery stats`.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "What the index holds: places per source, extent, size.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func run() async throws {
        let index = try await index.open()
        let statistics = try await reportingFailures { try await index.statistics() }
        try Renderer.write(statistics, format: output.resolved)
    }
}

/// `geoquery sources`.
struct Sources: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Each source in the index with its place count and last import time.")

    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func run() async throws {
        let index = try await index.open()
        let statistics = try await reportingFailures { try await index.statistics() }
        switch output.resolved {
        case .json, .geojson:
            Renderer.emit(
                OrderedJSON.array(
                    statistics.sources.map { source in
                        .object([
                            ("source", .string(source.name)), ("places", .int(source.count)),
                            ("last_import", .optional(source.lastImport)),
                        ])
                    }
                ).rendered(pretty: true) + "\n")
        case .table, .csv:
            let rows = statistics.sources.map { [$0.name, String($0.count), $0.lastImport ?? "-"] }
            Renderer.emit(
                output.resolved == .csv
                    ? "source,places,last_import\n" + rows.map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n"
                    : TextTable(headers: ["source", "places", "last import"], rows: rows, rightAligned: [1]).rendered)
        }
    }
}

/// `geoquery categories`: the taxonomy, what `--category` accepts.
struct Categories: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The categories --category accepts: each top level with its subcategories.")

    @OptionGroup var output: OutputOptions

    func run() async throws {
        switch output.resolved {
        case .json, .geojson:
            Renderer.emit(CategoryAnswer.json().rendered(pretty: true) + "\n")
        case .csv:
            Renderer.emit(
                "id,label,parent\n"
                    + Category.taxonomy.map { category in
                        [category.identifier, category.label, category.parent?.identifier ?? ""].joined(separator: ",")
                    }.joined(separator: "\n") + "\n")
        case .table:
            let rows = Category.taxonomy.map { [$0.parent == nil ? $0.identifier : "  " + $0.identifier, $0.label] }
            Renderer.emit(TextTable(headers: ["category", "label"], rows: rows, rightAligned: []).rendered)
        }
    }
}
