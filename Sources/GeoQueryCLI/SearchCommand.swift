import ArgumentParser
import Foundation
import GeoCore
import GeoQueryWire
import PlaceModel
import PlaceQuery
import PlaceStore
import Providers

/// `geoquery search`: one answer from the chosen providers and the local index, merged.
struct Search: AsyncParsableCommand, CheckedAfterParsing {
    static let configuration = CommandConfiguration(
        abstract: "Places around a point from Google, Yelp, Foursquare, HERE and the local index, merged into one answer.",
        discussion: """
            Example: geoquery search --lat 37.7793 --lon -122.4193 --radius 1km --query coffee --provider yelp,foursquare
            Keys come from GOOGLE_PLACES_API_KEY, YELP_API_KEY, FOURSQUARE_API_KEY and HERE_API_KEY; a provider \
            without its key reports the missing variable in "providers" and the others still answer. \
            --provider all (the default) asks the local index and every remote provider.
            The same real place found by several sources is one entry listing every source id \
            ("sources") and where each field came from ("field_sources"). Radii over a provider's \
            cap (Google 50 km, Yelp 40 km, Foursquare 100 km) are cut to it and "providers" says so.
            Exit codes: 0 when at least one source answered, 69 when every source failed, 64 for bad options.
            """)

    @Option(parsing: .unconditional, help: "Latitude of the centre, -90 to 90.") var lat: Double
    @Option(parsing: .unconditional, help: "Longitude of the centre, -180 to 180.") var lon: Double
    @Option(parsing: .unconditional, help: "Radius, e.g. 1km, 800m, 2mi.") var radius: String
    @Option(help: "Free text: a name or what you want (\"ramen\").") var query: String?
    @Option(
        name: .customLong("category"),
        help: "Only places in this category of the taxonomy or its children (repeatable; `geoquery categories` lists them).")
    var categories: [String] = []
    @Option(name: .customLong("provider"), help: "google, yelp, foursquare, here, local or all (repeatable or comma-separated).")
    var providers: [String] = ["all"]
    @Option(help: "At most this many places (1–240).") var limit: Int = 20
    @Option(help: "Per-provider deadline, e.g. 8s, 1500ms.") var deadline: String = "8s"
    @OptionGroup var output: OutputOptions
    @OptionGroup var index: IndexOptions

    func check() throws {
        _ = try parseCoordinate(latitude: lat, longitude: lon)
        _ = try parseDistance(radius, option: "--radius")
        _ = try chosenProviders()
        _ = try parsedCategories()
        _ = try parseDuration(deadline, option: "--deadline")
        guard (1...240).contains(limit) else { throw ValidationError("--limit \(limit) is invalid: it must be from 1 to 240") }
    }

    func chosenProviders() throws -> [ProviderName] {
        var chosen: [ProviderName] = []
        for word in providers.flatMap({ $0.split(separator: ",") }).map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            if word == "all" {
                chosen += ProviderName.places
                continue
            }
            guard let name = ProviderName(rawValue: word), ProviderName.places.contains(name) else {
                throw ValidationError("--provider \(word) is unknown; use google, yelp, foursquare, here, local or all")
            }
            chosen.append(name)
        }
        return ProviderName.places.filter(chosen.contains)
    }

    func parsedCategories() throws -> [Category] {
        try categories.map { text in
            do { return try Category(text) } catch { throw ValidationError(String(describing: error)) }
        }
    }

    func run() async throws {
        let center = try parseCoordinate(latitude: lat, longitude: lon)
        let radiusValue = try parseDistance(radius, option: "--radius")
        let names = try chosenProviders()
        var settings = ProviderSettings()
        let seconds = try parseDuration(deadline, option: "--deadline")
        settings.timeout = seconds
        var sources = FederatedSearch.sources(names.filter { $0 != .local }, settings: settings, localIndex: nil)
        if names.contains(.local) {
            do {
                sources.insert(LocalIndexProvider(index: try index.openStore()), at: 0)
            } catch let failure as CLIFailure {
                sources.insert(UnavailableSource(name: .local, message: failure.message), at: 0)
            }
        }
        let categories = try parsedCategories()
        let search = FederatedSearch(sources: sources, deadline: seconds)
        let answer = await search.search(near: center, radius: radiusValue, query: query, categories: categories, limit: limit)
        for status in answer.statuses where status.state != .ok {
            FileHandle.standardError.write(Data("geoquery: warning: \(status.error?.description ?? status.state.rawValue)\n".utf8))
        }
        let description = QueryDescription(
            kind: "search", lat: center.latitude, lon: center.longitude, radiusMeters: radiusValue.meters,
            filter: PlaceFilter(categories: categories, text: query), limit: limit)
        let format = output.resolved
        switch format {
        case .json: Renderer.emit(SearchAnswer(query: description, answer: answer).json(pretty: true))
        case .geojson: Renderer.emit(SearchAnswer(query: description, answer: answer).geoJSON(pretty: true))
        case .table, .csv: Renderer.emit(searchTable(answer))
        }
        if !answer.statuses.isEmpty, answer.statuses.allSatisfy({ $0.state != .ok }) {
            throw CLIFailure(
                "no source answered: " + answer.statuses.compactMap { $0.error?.description }.joined(separator: "; "),
                exitCode: CLIFailure.unavailable)
        }
    }
}

/// A source that could not be set up (no local index): it fails with the reason when asked.
private struct UnavailableSource: PlaceProvider {
    let name: ProviderName
    let message: String
    var maximumRadius: Distance? { nil }
    func search(_ request: PlaceSearchRequest) async throws -> ProviderResult {
        throw ProviderError.sourceFailed(provider: name, message: message)
    }
}

/// `8s`, `1500ms`, `2m`, or bare seconds.
func parseDuration(_ text: String, option: String) throws -> TimeInterval {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
    for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
        if let value = Double(trimmed.dropLast(suffix.count)), value > 0, value.isFinite { return value * scale }
    }
    if let value = Double(trimmed), value > 0, value.isFinite { return value }
    throw ValidationError("\(option) \(text) is invalid: give a positive duration such as 8s, 1500ms or 2m")
}

// MARK: Rendering

func searchTable(_ answer: FederatedAnswer) -> String {
    var out = ""
    if answer.places.isEmpty {
        out = "no places found\n"
    } else {
        let rows = answer.places.enumerated().map { offset, merged -> [String] in
            [
                String(offset + 1), Renderer.formatDistance(merged.distance), merged.place.name,
                merged.place.categories.first?.identifier ?? "",
                merged.place.rating.map { String(format: "%.1f", $0.value) } ?? "",
                merged.sourceIDs.map(\.source).joined(separator: "+"),
            ]
        }
        out = TextTable(headers: ["#", "distance", "name", "category", "rating", "sources"], rows: rows, rightAligned: [0, 1, 4]).rendered
    }
    for status in answer.statuses {
        var line = "\(status.provider.rawValue): \(status.state.rawValue), \(status.count) place\(status.count == 1 ? "" : "s")"
        if let clamped = status.clampedRadius { line += ", radius cut to \(Renderer.formatDistance(clamped))" }
        if let error = status.error { line += " — \(error.description)" }
        out += line + "\n"
    }
    return out
}
