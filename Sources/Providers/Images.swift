import Foundation
import GeoCore

/// A picture of a place from an image source, with what its licence asks a user of it to show.
///
/// Every image names its author (as the source gives it), its licence and the page it came
/// from; an app that shows the image shows those beside it.
public struct PlaceImage: Sendable, Hashable, Codable {
    /// The image itself, at a size fit for a card (about 640–1 280 px wide).
    public var url: URL
    /// A small version, when the source has one.
    public var thumbnailURL: URL?
    public var width: Int?
    public var height: Int?
    /// The source's title or description of the picture.
    public var title: String?
    /// The author or photographer, as plain text.
    public var author: String?
    /// The author's page at the source, when there is one.
    public var authorURL: URL?
    /// The licence's short name (`CC BY-SA 4.0`, `Pixabay Content License`, `Unsplash License`).
    public var licence: String
    public var licenceURL: URL?
    /// The picture's page at the source, which attribution links to.
    public var sourceURL: URL
    public var provider: ProviderName

    public init(
        url: URL, thumbnailURL: URL? = nil, width: Int? = nil, height: Int? = nil, title: String? = nil, author: String? = nil,
        authorURL: URL? = nil, licence: String, licenceURL: URL? = nil, sourceURL: URL, provider: ProviderName
    ) {
        self.url = url
        self.thumbnailURL = thumbnailURL
        self.width = width
        self.height = height
        self.title = title
        self.author = author
        self.authorURL = authorURL
        self.licence = licence
        self.licenceURL = licenceURL
        self.sourceURL = sourceURL
        self.provider = provider
    }
}

/// What to find pictures of: a point, a name, or both. Sources that search by text alone
/// (Pixabay, Unsplash) use ``title``; Wikimedia Commons uses the point when there is one.
public struct ImageQuery: Sendable, Hashable {
    public var coordinate: Coordinate?
    /// A name to search for (`Lisbon Portugal`).
    public var title: String?
    /// Search within this distance of ``coordinate`` (sources cap it: Commons at 10 km).
    public var radius: Distance
    public var limit: Int

    /// - Throws: ``ProviderError/invalidQuery(_:)`` when neither a point nor a non-blank title
    ///   is given, or the limit is outside 1…50.
    public init(
        coordinate: Coordinate? = nil, title: String? = nil, radius: Distance = Distance(uncheckedMeters: 2_000),
        limit: Int = 5
    ) throws {
        let trimmed = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard coordinate != nil || !(trimmed ?? "").isEmpty else {
            throw ProviderError.invalidQuery("an image search needs a point or a title")
        }
        guard (1...50).contains(limit) else {
            throw ProviderError.invalidQuery("image limit \(limit) is outside 1…50")
        }
        self.coordinate = coordinate
        self.title = (trimmed?.isEmpty ?? true) ? nil : trimmed
        self.radius = radius
        self.limit = limit
    }

    /// The text of a cache key: same key, same answer.
    var cacheKey: String {
        "\(coordinate.map { "\($0.latitude),\($0.longitude)" } ?? "-")|\(title ?? "")|\(radius.meters)|\(limit)"
    }
}

/// A source of pictures.
public protocol ImageProvider: Sendable {
    var name: ProviderName { get }
    /// Up to `query.limit` images, best first; empty when the source has none.
    func images(for query: ImageQuery) async throws -> [PlaceImage]
}

/// The image sources a deployment can use: Wikimedia Commons always (no key), then Pixabay and
/// Unsplash when their keys are set; answers are cached as each source's terms allow
/// (``CacheTerms``).
public struct ImageSearch: Sendable {
    public let providers: [any ImageProvider]
    let cache: ProviderCache

    public init(providers: [any ImageProvider], cache: ProviderCache = ProviderCache()) {
        self.providers = providers
        self.cache = cache
    }

    /// The sources `settings` allow: Commons, then each keyed source whose key is set.
    public init(settings: ProviderSettings, cache: ProviderCache = ProviderCache()) {
        var providers: [any ImageProvider] = [WikimediaCommonsAdapter(settings: settings)]
        if (try? settings.environment.key(for: .pixabay)) != nil { providers.append(PixabayAdapter(settings: settings)) }
        if (try? settings.environment.key(for: .unsplash)) != nil { providers.append(UnsplashAdapter(settings: settings)) }
        self.init(providers: providers, cache: cache)
    }

    /// The same sources under other settings (a shorter timeout, no retries), sharing this cache.
    public func adjusted(_ settings: ProviderSettings) -> ImageSearch {
        var providers: [any ImageProvider] = []
        for name in self.providers.map(\.name) {
            switch name {
            case .pixabay: providers.append(PixabayAdapter(settings: settings))
            case .unsplash: providers.append(UnsplashAdapter(settings: settings))
            default: providers.append(WikimediaCommonsAdapter(settings: settings))
            }
        }
        return ImageSearch(providers: providers, cache: cache)
    }

    /// Images from one source, from the cache when its terms allow.
    public func images(from provider: any ImageProvider, for query: ImageQuery) async throws -> [PlaceImage] {
        if let cached = await cache.images(provider.name, for: query) { return cached }
        let images = try await provider.images(for: query)
        await cache.store(images, from: provider.name, for: query)
        return images
    }

    /// The first source's images that answers with any, trying the sources in order; the
    /// errors of those that failed, by source. Never throws: a picture is a nicety.
    public func firstImages(for query: ImageQuery) async -> (images: [PlaceImage], failures: [ProviderName: ProviderError]) {
        var failures: [ProviderName: ProviderError] = [:]
        for provider in providers {
            do {
                let images = try await images(from: provider, for: query)
                if !images.isEmpty { return (images, failures) }
            } catch let error as ProviderError {
                failures[provider.name] = error
            } catch {
                failures[provider.name] = .connectionFailed(provider: provider.name, message: String(describing: error))
            }
            if Task.isCancelled { break }
        }
        return ([], failures)
    }
}

extension String {
    /// Plain text from a fragment of HTML as Commons metadata has it (`<a href=…>Jane</a>`):
    /// tags dropped, the common entities decoded, white space collapsed.
    var plainTextFromHTML: String {
        var text = ""
        var inTag = false
        for character in self {
            if character == "<" {
                inTag = true
                continue
            }
            if character == ">" {
                inTag = false
                continue
            }
            if !inTag { text.append(character) }
        }
        for (entity, value) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " ")] {
            text = text.replacingOccurrences(of: entity, with: value)
        }
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
