import Discovery
import Foundation
import PlaceModel
import PlaceQuery

/// The cities of the index in memory, for the autocomplete box: every folded word of every
/// city name in one sorted array, so that a prefix is two binary searches, not a text-index
/// scan over every place whose name shares the prefix (in a million places that is most of
/// them for "par").
///
/// Built from the index on first use (every place in category `city`; the shipped GeoNames
/// table has 34 006) and rebuilt in the background when older than ``maximumAge``, so a nightly
/// import reaches it within that time.
final class CityDirectory: @unchecked Sendable {
    // @unchecked Sendable: `snapshot` and `building` are read and written only under `lock`; a
    // snapshot is immutable once built.
    private let lock = NSLock()
    private var snapshot: Snapshot?
    private var building: Task<Snapshot, any Error>?
    let maximumAge: Duration

    init(maximumAge: Duration = .seconds(600)) {
        self.maximumAge = maximumAge
    }

    struct City: Sendable {
        var place: Place
        var foldedName: String
        var population: Int
    }

    struct Snapshot: Sendable {
        var cities: [City]
        /// (folded word, city) sorted by word.
        var words: [(word: String, city: Int32)]
        /// The same cities by position, for `GET /v1/where`.
        var nearby: NearbyCities
        var built: ContinuousClock.Instant
    }

    /// Folds case and accents and splits into words, as the name index does.
    static func words(_ text: String) -> [String] {
        fold(text).split(whereSeparator: { character in
            character.isWhitespace || character.isPunctuation
                || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }).map(String.init)
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// The current snapshot, building the first one now and later ones in the background.
    func current(_ index: any PlaceIndex) async throws -> Snapshot {
        // `started` is set only for the one caller that starts a rebuild: it alone installs the
        // result, so a busy server does not queue an installer per request while a build runs.
        let (existing, task, started) = lock.withLock { () -> (Snapshot?, Task<Snapshot, any Error>?, Bool) in
            if let snapshot, ContinuousClock.now - snapshot.built < maximumAge { return (snapshot, nil, false) }
            if let building { return (snapshot, building, false) }
            let fresh = Task { try await Self.build(index) }
            building = fresh
            return (snapshot, fresh, true)
        }
        if let existing {
            if started, let task { Task { _ = try? await self.install(task) } }  // refresh behind the answer
            return existing
        }
        // No list yet: wait for the build (started here or by another caller).
        return started ? try await install(task!) : try await task!.value
    }

    @discardableResult
    private func install(_ task: Task<Snapshot, any Error>) async throws -> Snapshot {
        do {
            let fresh = try await task.value
            lock.withLock {
                snapshot = fresh
                building = nil
            }
            return fresh
        } catch {
            lock.withLock { building = nil }
            throw error
        }
    }

    static func build(_ index: any PlaceIndex) async throws -> Snapshot {
        let matches = try await index.within(.world, filter: PlaceFilter(categories: [try Category("city")]), limit: nil, cursor: nil).matches
        var cities: [City] = []
        var words: [(word: String, city: Int32)] = []
        cities.reserveCapacity(matches.count)
        for match in matches {
            let place = match.place
            let number = Int32(cities.count)
            cities.append(City(place: place, foldedName: fold(place.name), population: Int(place.tags["population"] ?? "") ?? 0))
            for word in Set(Self.words(place.name)) { words.append((word, number)) }
        }
        words.sort { $0.word < $1.word }
        return Snapshot(cities: cities, words: words, nearby: NearbyCities(cities.map(\.place)), built: .now)
    }
}

extension CityDirectory.Snapshot {
    /// Cities with a word starting with each word of `text`: names that start with `text` first,
    /// then by population, then by name. `accept` filters (country, continent).
    func search(_ text: String, limit: Int, accept: (Place) -> Bool) -> [Place] {
        let queryWords = CityDirectory.words(text)
        guard let first = queryWords.max(by: { $0.count < $1.count }) else { return [] }
        // Binary search for the first word ≥ the prefix; walk while words still start with it.
        var low = 0, high = words.count
        while low < high {
            let middle = (low + high) / 2
            if words[middle].word < first { low = middle + 1 } else { high = middle }
        }
        var seen = Set<Int32>()
        var candidates: [CityDirectory.City] = []
        let folded = CityDirectory.fold(text)
        while low < words.count, words[low].word.hasPrefix(first) {
            let number = words[low].city
            low += 1
            guard seen.insert(number).inserted else { continue }
            let city = cities[Int(number)]
            if queryWords.count > 1 {
                let nameWords = CityDirectory.words(city.place.name)
                guard queryWords.allSatisfy({ word in nameWords.contains { $0.hasPrefix(word) } }) else { continue }
            }
            guard accept(city.place) else { continue }
            candidates.append(city)
        }
        candidates.sort {
            let left = $0.foldedName.hasPrefix(folded), right = $1.foldedName.hasPrefix(folded)
            if left != right { return left }
            if $0.population != $1.population { return $0.population > $1.population }
            return $0.place.name < $1.place.name
        }
        return candidates.prefix(limit).map(\.place)
    }
}
