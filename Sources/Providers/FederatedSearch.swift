import Foundation
import GeoCore
import PlaceModel

/// How one source fared in a federated search.
public struct ProviderStatus: Sendable, Hashable {
    public enum State: String, Sendable, Hashable { case ok, failed, timedOut = "timed_out" }

    public var provider: ProviderName
    public var state: State
    /// Places it returned (before merging).
    public var count: Int
    /// The error, when it failed; says what to change.
    public var error: ProviderError?
    /// Set when the request's radius was over the provider's cap and was cut to this.
    public var clampedRadius: Distance?
    /// HTTP requests made (0 when served from the cache or the local index).
    public var requests: Int
    public var servedFromCache: Bool
    public var seconds: Double
}

/// The answer of a federated search: merged places and every source's status.
public struct FederatedAnswer: Sendable, Hashable {
    /// Nearest first, at most the search's limit.
    public var places: [MergedPlace]
    /// One per source asked, in ``ProviderName`` order.
    public var statuses: [ProviderStatus]
}

/// Asks several providers and the local index at once and merges what they find.
///
/// Each source runs in its own child task under its own deadline; one that fails or runs out
/// of time leaves its error in ``FederatedAnswer/statuses`` and the others still answer.
/// Answers are cached only as ``CacheTerms`` allow.
public struct FederatedSearch: Sendable {
    public var sources: [any PlaceProvider]
    /// Per source, in seconds.
    public var deadline: TimeInterval
    public var merger: PlaceMerger
    public var cache: ProviderCache?

    public init(
        sources: [any PlaceProvider], deadline: TimeInterval = 8, merger: PlaceMerger = PlaceMerger(),
        cache: ProviderCache? = nil
    ) {
        self.sources = sources
        self.deadline = deadline
        self.merger = merger
        self.cache = cache
    }

    /// The adapters for `names` (every remote provider when nil), all sharing `settings`, plus
    /// the local index if given and asked for.
    public static func sources(_ names: [ProviderName], settings: ProviderSettings, localIndex: LocalIndexProvider?) -> [any PlaceProvider] {
        names.compactMap { name -> (any PlaceProvider)? in
            switch name {
            case .local: return localIndex
            case .google: return GooglePlacesAdapter(settings: settings)
            case .yelp: return YelpAdapter(settings: settings)
            case .foursquare: return FoursquareAdapter(settings: settings)
            case .here: return HEREAdapter(settings: settings)
            case .openMeteo, .openWeatherMap, .pirateWeather, .wikimediaCommons, .pixabay, .unsplash: return nil
            }
        }
    }

    /// Places within `radius` of `center`, merged, nearest first, from the sources named in
    /// `providers` (all of ``sources`` when nil).
    public func search(
        near center: Coordinate, radius: Distance, query: String? = nil, categories: [Category] = [],
        providers: Set<ProviderName>? = nil, limit: Int = 20
    ) async -> FederatedAnswer {
        let request = PlaceSearchRequest(center: center, radius: radius, query: query, categories: categories, limit: limit)
        let asked = sources.filter { providers?.contains($0.name) ?? true }
        let outcomes = await withTaskGroup(of: (ProviderStatus, ProviderResult?).self) { group in
            for source in asked {
                group.addTask { await self.ask(source, request) }
            }
            var outcomes: [(ProviderStatus, ProviderResult?)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let found = outcomes.compactMap(\.1).flatMap { result in result.places.map { (result.provider, $0) } }
        let merged = merger.merge(found).filter { $0.distance <= radius }
        return FederatedAnswer(
            places: Array(merged.prefix(request.limit)),
            statuses: outcomes.map(\.0).sorted { $0.provider < $1.provider })
    }

    private func ask(_ source: any PlaceProvider, _ request: PlaceSearchRequest) async -> (ProviderStatus, ProviderResult?) {
        let started = Date()
        func status(_ state: ProviderStatus.State, _ result: ProviderResult?, error: ProviderError?, cached: Bool = false) -> ProviderStatus {
            ProviderStatus(
                provider: source.name, state: state, count: result?.places.count ?? 0, error: error,
                clampedRadius: result?.radiusClamped == true ? result?.radiusUsed : nil,
                requests: cached ? 0 : result?.requests ?? 0, servedFromCache: cached,
                seconds: Date().timeIntervalSince(started))
        }
        if let cache, let cached = await cache.result(source.name, for: request) {
            return (status(.ok, cached, error: nil, cached: true), cached)
        }
        do {
            guard let result = try await withDeadline(seconds: deadline, { try await source.search(request) }) else {
                throw ProviderError.timedOut(provider: source.name, seconds: deadline)
            }
            await cache?.store(result, for: request)
            return (status(.ok, result, error: nil), result)
        } catch let error as ProviderError {
            if case .timedOut = error { return (status(.timedOut, nil, error: error), nil) }
            return (status(.failed, nil, error: error), nil)
        } catch {
            return (status(.failed, nil, error: .sourceFailed(provider: source.name, message: String(describing: error))), nil)
        }
    }
}
