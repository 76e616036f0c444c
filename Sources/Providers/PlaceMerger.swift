import Foundation
import GeoCore
import PlaceModel

/// One real place as a federated search reports it: the fields chosen from every source that
/// knows it, and which source each field came from.
public struct MergedPlace: Sendable, Hashable {
    /// The merged fields; its id is the most trusted source's.
    public var place: Place
    public var distance: Distance
    /// Every source's id for this place, most trusted first.
    public var sourceIDs: [PlaceID]
    /// Field name (`name`, `coordinate`, `address`, `rating`, `price_level`, `phone`, `website`,
    /// `opening_hours`, `photos`, `categories`) → the provider it was taken from.
    public var fieldSources: [String: ProviderName]
    public var isOpenNow: Bool?
    public var businessStatus: BusinessStatus
    /// Each provider's page for the place (attribution links).
    public var providerURLs: [ProviderName: String]
    public var timeZone: String?
}

/// Decides which answers are the same real place and merges them.
///
/// The rule: two places from **different** sources are one when a source says so (HERE lists
/// Yelp's id in `references`), or when they lie within ``maximumDistance`` of each other and
/// their names agree: equal after folding case, accents, punctuation and articles, or one's
/// words contain all of the other's distinctive words ("Sightglass Coffee" and "Sightglass
/// Coffee Roastery"), or their letter pairs overlap by at least ``minimumNameSimilarity``
/// (Dice coefficient). Two answers from one provider are never merged: it has told them apart.
///
/// Fields are taken from the most trusted source that has them (the local index, then Google,
/// Yelp, Foursquare, HERE); the rating from the source with the most ratings, never an average.
public struct PlaceMerger: Sendable {
    public var maximumDistance: Distance
    public var minimumNameSimilarity: Double

    public init(maximumDistance: Distance = Distance(uncheckedMeters: 75), minimumNameSimilarity: Double = 0.8) {
        self.maximumDistance = maximumDistance
        self.minimumNameSimilarity = minimumNameSimilarity
    }

    /// Merges answers (any order) into places sorted by distance, then id.
    public func merge(_ found: [(ProviderName, ProviderPlace)]) -> [MergedPlace] {
        let ordered = found.sorted { ($0.0, $0.1.distance, $0.1.place.id) < ($1.0, $1.1.distance, $1.1.place.id) }
        var clusters: [[(ProviderName, ProviderPlace)]] = []
        let names = ordered.map { NameKey($0.1.place.name) }
        var clusterNames: [[NameKey]] = []
        for (index, candidate) in ordered.enumerated() {
            let match = clusters.indices.first { cluster in
                !clusters[cluster].contains { $0.0 == candidate.0 }
                    && zip(clusters[cluster], clusterNames[cluster]).contains { member, name in
                        isSamePlace(member.1, name, candidate.1, names[index])
                    }
            }
            if let match {
                clusters[match].append(candidate)
                clusterNames[match].append(names[index])
            } else {
                clusters.append([candidate])
                clusterNames.append([names[index]])
            }
        }
        return clusters.map(combine).sorted { ($0.distance, $0.place.id) < ($1.distance, $1.place.id) }
    }

    private func isSamePlace(_ a: ProviderPlace, _ aName: NameKey, _ b: ProviderPlace, _ bName: NameKey) -> Bool {
        if a.crossReferences.contains(b.place.id) || b.crossReferences.contains(a.place.id) { return true }
        guard Geodesic.distance(a.place.coordinate, b.place.coordinate) <= maximumDistance.meters else { return false }
        return aName.agrees(with: bName, minimumSimilarity: minimumNameSimilarity)
    }

    private func combine(_ members: [(ProviderName, ProviderPlace)]) -> MergedPlace {
        let first = members[0].1
        var place = first.place
        var sources: [String: ProviderName] = ["name": members[0].0, "coordinate": members[0].0]
        func take<Value>(_ field: String, _ keyPath: KeyPath<Place, Value?>, into target: WritableKeyPath<Place, Value?>) {
            if let (provider, value) = members.lazy.compactMap({ member in member.1.place[keyPath: keyPath].map { (member.0, $0) } }).first {
                place[keyPath: target] = value
                sources[field] = provider
            }
        }
        take("address", \.address, into: \.address)
        take("price_level", \.priceLevel, into: \.priceLevel)
        take("phone", \.phone, into: \.phone)
        take("website", \.website, into: \.website)
        take("opening_hours", \.openingHours, into: \.openingHours)
        if let best = members.filter({ $0.1.place.rating != nil })
            .max(by: { ($0.1.place.rating!.count ?? 0, -$0.0.priority) < ($1.1.place.rating!.count ?? 0, -$1.0.priority) })
        {
            place.rating = best.1.place.rating
            sources["rating"] = best.0
        }
        if let withCategories = members.first(where: { !$0.1.place.categories.isEmpty }) {
            var seen = Set<Category>()
            place.categories = members.flatMap(\.1.place.categories).filter { seen.insert($0).inserted }
            sources["categories"] = withCategories.0
        }
        if let withPhotos = members.first(where: { !$0.1.place.photos.isEmpty }) {
            place.photos = members.flatMap(\.1.place.photos)
            sources["photos"] = withPhotos.0
        }
        for member in members.dropFirst() {
            place.tags.merge(member.1.place.tags) { kept, _ in kept }
        }
        var urls: [ProviderName: String] = [:]
        for (provider, found) in members { if let url = found.providerURL { urls[provider] = url } }
        let status = members.lazy.map(\.1.businessStatus).first { $0 != .unknown } ?? .unknown
        return MergedPlace(
            place: place, distance: first.distance, sourceIDs: members.map(\.1.place.id), fieldSources: sources,
            isOpenNow: members.lazy.compactMap(\.1.isOpenNow).first, businessStatus: status,
            providerURLs: urls, timeZone: members.lazy.compactMap(\.1.timeZone).first)
    }
}

/// A name reduced for comparison: folded words without articles, and their letter pairs.
struct NameKey: Sendable {
    static let articles: Set<String> = [
        "the", "a", "an", "le", "la", "les", "l", "el", "los", "las", "il", "lo", "de", "du",
        "des", "der", "die", "das", "and", "et", "y", "und", "s",
    ]
    /// Words that say what a place is, not which one it is.
    static let generic: Set<String> = [
        "cafe", "coffee", "restaurant", "bar", "pub", "hotel", "bakery", "shop", "store",
        "kitchen", "house", "grill", "bistro", "roastery", "roasters", "co", "company", "inc",
    ]
    let words: [String]
    let joined: String
    let pairs: [String: Int]

    init(_ name: String) {
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        let cleaned = String(folded.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : " " })
        words = cleaned.split(separator: " ").map(String.init).filter { !Self.articles.contains($0) }
        joined = words.joined(separator: " ")
        let letters = Array(words.joined())
        var pairs: [String: Int] = [:]
        if letters.count >= 2 { for index in 0..<(letters.count - 1) { pairs[String(letters[index...index + 1]), default: 0] += 1 } }
        self.pairs = pairs
    }

    func agrees(with other: NameKey, minimumSimilarity: Double) -> Bool {
        if joined.isEmpty || other.joined.isEmpty { return false }
        if joined == other.joined { return true }
        let (small, large) = words.count <= other.words.count ? (self, other) : (other, self)
        let distinctive = small.words.filter { !Self.generic.contains($0) }
        if !distinctive.isEmpty, Set(small.words).isSubset(of: Set(large.words)) { return true }
        return dice(other) >= minimumSimilarity
    }

    /// Dice coefficient of letter-pair multisets.
    func dice(_ other: NameKey) -> Double {
        let total = pairs.values.reduce(0, +) + other.pairs.values.reduce(0, +)
        guard total > 0 else { return 0 }
        let shared = pairs.reduce(0) { $0 + min($1.value, other.pairs[$1.key] ?? 0) }
        return 2 * Double(shared) / Double(total)
    }
}
