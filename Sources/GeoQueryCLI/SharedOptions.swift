import ArgumentParser
import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import PlaceStore
import PostGISStore

/// `--db`: which index: a SpatiaLite file, or a PostgreSQL database by URL.
struct IndexOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Index file, or a PostgreSQL/PostGIS database as postgres://user@host:5432/name.",
            discussion: "Default: $GEOQUERY_DB, else geodata/places.sqlite."))
    var db: String?

    var path: String {
        if let db { return db }
        if let environment = ProcessInfo.processInfo.environment["GEOQUERY_DB"], !environment.isEmpty { return environment }
        return "geodata/places.sqlite"
    }

    /// Whether `--db` names a PostgreSQL database.
    var isDatabaseURL: Bool { PostGISLocation.isDatabaseURL(path) }

    /// The index to query, file or database (a database is migrated to the newest schema).
    func open() async throws -> OpenIndex {
        if isDatabaseURL { return .database(try await openDatabase()) }
        return .file(try openIndex())
    }

    /// The PostgreSQL database `--db` names.
    func openDatabase(maximumConnections: Int = 4) async throws -> PostGISPlaceIndex {
        try await reportingFailures { try await PostGISPlaceIndex.open(path, maximumConnections: maximumConnections) }
    }

    func openIndex() throws -> SpatiaLitePlaceIndex {
        try reportingFailures { try SpatiaLitePlaceIndex(path: path, mode: .readOnly) }
    }

    /// The index for async callers (search, serve): its calls run on a thread pool of its own.
    func openStore(threads: Int? = nil) throws -> SpatiaLitePlaceStore {
        try reportingFailures { try SpatiaLitePlaceStore(path: path, threads: threads) }
    }
}

/// Output format of a query.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, geojson, csv
}

/// `--format`: table on a terminal, JSON otherwise.
struct OutputOptions: ParsableArguments {
    @Option(help: "Output format: table, json, geojson or csv (default: table on a terminal, else json).")
    var format: OutputFormat?

    var resolved: OutputFormat {
        format ?? (isatty(STDOUT_FILENO) != 0 ? .table : .json)
    }
}

/// Filters shared by the query commands.
struct FilterOptions: ParsableArguments {
    @Option(
        name: .customLong("category"), help: "Keep places in this category or its children (repeatable: any of; `geoquery categories` lists them).")
    var categories: [String] = []

    @Option(name: .customLong("query"), help: "Words that must begin words of the name (case and accents ignored).")
    var text: String?

    @Option(name: .customLong("source"), help: "Keep places from this source (repeatable), e.g. geonames, airport.")
    var sources: [String] = []

    @Option(name: .customLong("min-rating"), help: "Minimum rating, 0 to 5.")
    var minimumRating: Double?

    @Option(help: "Price level 1 to 4, or a range such as 1-3.")
    var price: String?

    @Option(name: .customLong("country"), help: "Keep places in this country, ISO 3166-1 alpha-2 (repeatable or comma-separated: any of).")
    var countries: [String] = []

    @Option(name: .customLong("continent"), help: "Keep places on this continent: AF, AN, AS, EU, NA, OC or SA (repeatable: any of).")
    var continents: [String] = []

    @Flag(name: .customLong("open-now"), help: "Keep places open now, by their opening hours in their time zone.")
    var openNow = false

    @Option(name: .customLong("open-at"), help: "Keep places open at this time, e.g. 2026-11-23T18:30:00+01:00.")
    var openAt: String?

    func filter() throws -> PlaceFilter {
        let categories = try categories.map { text in
            do { return try Category(text) } catch { throw ValidationError(String(describing: error)) }
        }
        if let minimumRating, !(0...5).contains(minimumRating) {
            throw ValidationError("--min-rating \(minimumRating) is invalid: it must be from 0 to 5")
        }
        func split(_ values: [String]) -> [String] {
            values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        }
        do {
            let prices = try price.map { text throws(FilterInputError) in try FilterInput.priceLevels(text, name: "--price") }
            let countries = try FilterInput.countries(split(countries), name: "--country", known: nil)
            let continents = try FilterInput.continents(split(continents), name: "--continent")
            var instant = try openAt.map { text throws(FilterInputError) in try FilterInput.instant(text, name: "--open-at") }
            if openNow {
                guard instant == nil else { throw FilterInputError("--open-now and --open-at are both given: give one") }
                instant = Date()
            }
            return PlaceFilter(
                categories: categories, text: text, minimumRating: minimumRating, priceLevels: prices,
                sources: sources, countries: countries, continents: continents, openAt: instant)
        } catch let error as FilterInputError {
            throw ValidationError(error.description)
        }
    }
}

/// `--limit N|all` and `--cursor`.
struct PagingOptions: ParsableArguments {
    @Option(help: "Most places to return: a number from 1, or 'all'.")
    var limit: String = "50"

    @Option(help: "The next_cursor of the previous page of the same query.")
    var cursor: String?

    func parsedLimit() throws -> Int? {
        if limit.lowercased() == "all" { return nil }
        guard let value = Int(limit), value >= 1 else {
            throw ValidationError("--limit '\(limit)' is invalid: use a whole number from 1, or 'all'")
        }
        return value
    }
}

/// Parses a latitude/longitude pair as a validated coordinate, with messages naming the option.
func parseCoordinate(latitude: Double, longitude: Double) throws -> Coordinate {
    do {
        return try Coordinate(latitude: latitude, longitude: longitude)
    } catch let error as GeoCoreError {
        switch error {
        case .invalidLatitude: throw ValidationError("--lat: \(error)")
        case .invalidLongitude: throw ValidationError("--lon: \(error)")
        default: throw ValidationError(error.description)
        }
    }
}

func parseDistance(_ text: String, option: String) throws -> Distance {
    do { return try Distance(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
}

/// The data folder a command reads (boundaries, countries, cities): `--data-dir` when given,
/// else `$GEOQUERY_DATA_DIR` when set and not empty, else `geodata`.
func resolvedDataDirectory(_ option: String?) -> String {
    option ?? ProcessInfo.processInfo.environment["GEOQUERY_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "geodata"
}
