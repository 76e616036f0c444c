import Foundation

/// What each provider's terms let GeoQuery keep, and for how long (providers.md §7). The one
/// table the caches and any future write to the index consult.
public struct CacheTerms: Sendable, Hashable {
    /// What may outlive the response cache.
    public enum Retention: Sendable, Hashable {
        /// Nothing at all.
        case nothing
        /// The provider's place ids only (for matching and refreshing), never names, addresses,
        /// ratings, hours or photos.
        case identifiersOnly
        /// Everything, with attribution.
        case everything
    }

    public var provider: ProviderName
    /// How long a whole answer may be kept and served again; 0 = never cached.
    public var responseLifetime: TimeInterval
    /// What may be written to the index.
    public var indexRetention: Retention
    /// Where the rule comes from.
    public var basis: String

    /// The table. Google: ids only (coordinates ≤ 30 days are allowed but not needed); Yelp:
    /// content ≤ 24 h, ids for matching; Foursquare (pay-as-you-go): no content caching, ids
    /// unlimited; HERE: no caching without a contract; Open-Meteo: CC BY 4.0, kept briefly for
    /// freshness; OpenWeatherMap and Pirate Weather: no restriction found, kept 10 minutes.
    public static let table: [ProviderName: CacheTerms] = [
        .local: CacheTerms(provider: .local, responseLifetime: 0, indexRetention: .everything, basis: "GeoQuery's own index"),
        .google: CacheTerms(
            provider: .google, responseLifetime: 0, indexRetention: .identifiersOnly,
            basis: "Google Maps Platform Service Specific Terms: place_id exempt; no other Places content stored"),
        .yelp: CacheTerms(
            provider: .yelp, responseLifetime: 24 * 3600, indexRetention: .identifiersOnly,
            basis: "Yelp API Terms: content at most 24 hours; business ids for back-end matching"),
        .foursquare: CacheTerms(
            provider: .foursquare, responseLifetime: 0, indexRetention: .identifiersOnly,
            basis: "Foursquare usage guidelines (pay-as-you-go): no caching beyond fsq ids and photo ids"),
        .here: CacheTerms(
            provider: .here, responseLifetime: 0, indexRetention: .nothing,
            basis: "HERE terms: no persistent caching without a contract"),
        .openMeteo: CacheTerms(
            provider: .openMeteo, responseLifetime: 15 * 60, indexRetention: .everything,
            basis: "Open-Meteo data CC BY 4.0, with attribution"),
        .openWeatherMap: CacheTerms(
            provider: .openWeatherMap, responseLifetime: 10 * 60, indexRetention: .nothing,
            basis: "no caching restriction found; kept 10 minutes for freshness"),
        .pirateWeather: CacheTerms(
            provider: .pirateWeather, responseLifetime: 10 * 60, indexRetention: .nothing,
            basis: "no caching restriction found; kept 10 minutes for freshness"),
        .wikimediaCommons: CacheTerms(
            provider: .wikimediaCommons, responseLifetime: 24 * 3600, indexRetention: .everything,
            basis: "Wikimedia Commons files are freely licensed; each image keeps its author, licence and file page"),
        .pixabay: CacheTerms(
            provider: .pixabay, responseLifetime: 24 * 3600, indexRetention: .nothing,
            basis: "Pixabay API terms: cache requests for 24 hours; no permanent hotlinking of image URLs"),
        .unsplash: CacheTerms(
            provider: .unsplash, responseLifetime: 3600, indexRetention: .nothing,
            basis: "Unsplash API guidelines: hotlink the returned image URLs and credit the photographer; answers kept 1 hour"),
    ]

    public static func terms(for provider: ProviderName) -> CacheTerms { table[provider]! }
}

/// Answers kept in memory for as long as ``CacheTerms`` allow, and never longer.
public actor ProviderCache {
    private struct Entry {
        var result: ProviderResult?
        var weather: Weather?
        var images: [PlaceImage]?
        var expires: Date
    }

    private var entries: [String: Entry] = [:]
    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = { Date() }) { self.now = now }

    /// A cached answer for `request` from `provider`, if its terms allow one and it is fresh.
    public func result(_ provider: ProviderName, for request: PlaceSearchRequest) -> ProviderResult? {
        fresh(Self.key(provider, request))?.result
    }

    /// Keeps `result` as long as its provider's terms allow (not at all for most).
    public func store(_ result: ProviderResult, for request: PlaceSearchRequest) {
        let lifetime = CacheTerms.terms(for: result.provider).responseLifetime
        guard lifetime > 0 else { return }
        entries[Self.key(result.provider, request)] = Entry(result: result, expires: now().addingTimeInterval(lifetime))
    }

    public func weather(_ provider: ProviderName, at key: String) -> Weather? { fresh(provider.rawValue + "|" + key)?.weather }

    public func store(_ weather: Weather, at key: String) {
        let lifetime = CacheTerms.terms(for: weather.provider).responseLifetime
        guard lifetime > 0 else { return }
        entries[weather.provider.rawValue + "|" + key] = Entry(weather: weather, expires: now().addingTimeInterval(lifetime))
    }

    /// Cached images from `provider` for `query`, if fresh.
    public func images(_ provider: ProviderName, for query: ImageQuery) -> [PlaceImage]? {
        fresh(provider.rawValue + "|" + query.cacheKey)?.images
    }

    /// Keeps `images` as long as `provider`'s terms allow.
    public func store(_ images: [PlaceImage], from provider: ProviderName, for query: ImageQuery) {
        let lifetime = CacheTerms.terms(for: provider).responseLifetime
        guard lifetime > 0 else { return }
        // Anyone can ask for pictures of any point: bound the memory that costs.
        if entries.count >= Self.capacity {
            let moment = now()
            entries = entries.filter { $0.value.expires > moment }
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        }
        entries[provider.rawValue + "|" + query.cacheKey] = Entry(images: images, expires: now().addingTimeInterval(lifetime))
    }

    /// At most this many answers are held; past it the expired ones go, and if that is not
    /// enough, all of them.
    static let capacity = 20_000

    /// How many answers are held.
    public var count: Int { entries.count }

    private func fresh(_ key: String) -> Entry? {
        guard let entry = entries[key] else { return nil }
        if entry.expires <= now() {
            entries[key] = nil
            return nil
        }
        return entry
    }

    private static func key(_ provider: ProviderName, _ request: PlaceSearchRequest) -> String {
        "\(provider.rawValue)|\(request.center.latitude),\(request.center.longitude)|\(request.radius.meters)|\(request.query ?? "")|"
            + request.categories.map(\.identifier).sorted().joined(separator: ",") + "|\(request.limit)"
    }
}
