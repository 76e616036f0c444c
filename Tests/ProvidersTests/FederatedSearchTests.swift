import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceStore
import ProviderTestSupport
import Testing

@testable import Providers

/// Merging rules on hand-built answers.
@Suite struct PlaceMergerTests {
    func found(
        _ provider: ProviderName, _ id: String, _ name: String, _ latitude: Double, _ longitude: Double,
        phone: String? = nil, rating: Rating? = nil, references: [PlaceID] = []
    ) throws -> (ProviderName, ProviderPlace) {
        let coordinate = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
        let place = Place(
            id: try PlaceID(source: provider.rawValue, localID: id), name: name, coordinate: coordinate,
            rating: rating, phone: phone)
        return (
            provider,
            ProviderPlace(
                place: place, distance: Distance(uncheckedMeters: Geodesic.distance(mintPlaza, coordinate)),
                crossReferences: references)
        )
    }

    @Test func theSameCafeFromYelpAndFoursquareBecomesOne() throws {
        let merged = PlaceMerger().merge([
            try found(
                .yelp, "WavvLdfdP6g8aZTtbBQHTw", "Blue Bottle Coffee", 37.78246, -122.40771, phone: "+15106533394",
                rating: try Rating(sourceValue: 4, count: 2812)),
            try found(
                .foursquare, "4b5a7b2cf964a520c0c128e3", "Blue Bottle Coffee", 37.78253, -122.40765,
                rating: try Rating(sourceValue: 8.6, scale: 10, count: 1021)),
        ])
        #expect(merged.count == 1)
        let cafe = try #require(merged.first)
        #expect(cafe.sourceIDs.map(\.rawValue) == ["yelp:WavvLdfdP6g8aZTtbBQHTw", "foursquare:4b5a7b2cf964a520c0c128e3"])
        #expect(cafe.place.id.rawValue == "yelp:WavvLdfdP6g8aZTtbBQHTw")
        #expect(cafe.fieldSources["phone"] == .yelp && cafe.fieldSources["rating"] == .yelp, "the rating with more ratings wins")
        #expect(cafe.place.rating?.value == 4, "never an average")
    }

    @Test func twoDifferentCafesNextDoorStayApart() throws {
        let merged = PlaceMerger().merge([
            try found(.yelp, "a", "Blue Bottle Coffee", 37.78246, -122.40771),
            try found(.foursquare, "b", "Philz Coffee", 37.78262, -122.40795),
        ])
        #expect(merged.count == 2, "28 m apart but different names")
    }

    @Test func aChainFarApartStaysApartAndOneProviderIsNeverMergedWithItself() throws {
        #expect(
            PlaceMerger().merge([
                try found(.yelp, "a", "Blue Bottle Coffee", 37.78246, -122.40771),
                try found(.foursquare, "b", "Blue Bottle Coffee", 37.7925, -122.4075),
            ]).count == 2, "same name, 1.1 km apart")
        #expect(
            PlaceMerger().merge([
                try found(.yelp, "a", "Starbucks", 37.78246, -122.40771),
                try found(.yelp, "b", "Starbucks", 37.78250, -122.40775),
            ]).count == 2, "Yelp knows they are two")
    }

    @Test func namesAgreeAcrossSpellings() {
        let agree = { (a: String, b: String) in NameKey(a).agrees(with: NameKey(b), minimumSimilarity: 0.8) }
        #expect(agree("Café de Flore", "CAFE DE FLORE"))
        #expect(agree("Sightglass Coffee", "Sightglass Coffee Roastery"))
        #expect(agree("The Ritz-Carlton, San Francisco", "Ritz Carlton San Francisco"))
        #expect(agree("Tartine Bakery", "Tartine Bakery & Cafe"))
        #expect(!agree("Coffee", "Coffee Bar"), "generic words alone do not make two places one")
        #expect(!agree("Blue Bottle Coffee", "Philz Coffee"))
        #expect(!agree("Chez Papa Resto", "Chez Panisse"))
    }

    @Test func aCrossReferenceMergesDespiteDifferentNames() throws {
        let merged = PlaceMerger().merge([
            try found(.yelp, "WavvLdfdP6g8aZTtbBQHTw", "Blue Bottle Coffee", 37.78246, -122.40771),
            try found(
                .here, "here:pds:place:1", "Blue Bottle Coffee Mint Plaza Kiosk", 37.7830, -122.4083,
                references: [try PlaceID("yelp:WavvLdfdP6g8aZTtbBQHTw")]),
        ])
        #expect(merged.count == 1 && merged[0].sourceIDs.count == 2)
    }
}

/// Several real servers and a real index, asked at once.
@Suite(.ownThreads) struct FederatedSearchTests {
    func localIndex() throws -> (SpatiaLitePlaceIndex, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("federated-\(UUID().uuidString).sqlite").path
        let index = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
        try index.upsert([
            Place(
                id: try PlaceID("gem:7"), name: "Blue Bottle Coffee", coordinate: Coordinate(uncheckedLatitude: 37.78248, longitude: -122.40769),
                categories: [try Category("food.cafe")], tags: ["note": "ask for the Gibraltar"],
                gem: HiddenGem(owner: "ana", visibility: .public)),
            Place(
                id: try PlaceID("osm:n42"), name: "Mint Plaza Fountain", coordinate: Coordinate(uncheckedLatitude: 37.78240, longitude: -122.40750),
                categories: [try Category("landmark.fountain")]),
        ])
        return (index, path)
    }

    @Test func oneAnswerFromManySourcesWithEveryStatus() async throws {
        let yelp = try await LoopbackServer.start(replies: [.recorded("yelp_search.json")])
        let foursquare = try await LoopbackServer.start(replies: [.recorded("foursquare_places_page1.json")])
        let google = try await LoopbackServer.start(replies: [
            .json(#"{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}"#, status: 500)
        ])
        defer {
            Task {
                await yelp.stop()
                await foursquare.stop()
                await google.stop()
            }
        }
        let (index, path) = try localIndex()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let before = try index.count()
        let search = FederatedSearch(
            sources: [
                LocalIndexProvider(index: try SpatiaLitePlaceStore(path: path)),
                GooglePlacesAdapter(settings: settings(google, .google)),
                YelpAdapter(settings: settings(yelp, .yelp)),
                FoursquareAdapter(settings: settings(foursquare, .foursquare)),
            ], deadline: 30)  // generous: with every suite running at once, three loopback attempts took over 5 s
        let answer = await search.search(near: mintPlaza, radius: Distance(uncheckedMeters: 200))

        #expect(answer.statuses.map(\.provider) == [.local, .google, .yelp, .foursquare])
        #expect(answer.statuses.map(\.state) == [.ok, .failed, .ok, .ok])
        #expect(answer.statuses[1].error == .serverError(provider: .google, status: 500, attempts: 3, message: "Internal error"))
        #expect(answer.statuses[2].count == 2 && answer.statuses[3].count == 2 && answer.statuses[0].count == 2)

        let cafe = try #require(answer.places.first { $0.place.name == "Blue Bottle Coffee" })
        #expect(cafe.sourceIDs.map(\.rawValue) == ["gem:7", "yelp:WavvLdfdP6g8aZTtbBQHTw", "foursquare:4b5a7b2cf964a520c0c128e3"])
        #expect(cafe.place.id.rawValue == "gem:7", "the local index is trusted first")
        #expect(cafe.fieldSources["name"] == .local && cafe.fieldSources["phone"] == .yelp && cafe.fieldSources["website"] == .foursquare)
        #expect(cafe.fieldSources["opening_hours"] == .foursquare && cafe.fieldSources["rating"] == .yelp)
        #expect(cafe.place.tags["note"] == "ask for the Gibraltar" && cafe.place.gem?.owner == "ana")
        #expect(cafe.providerURLs[.yelp] != nil && cafe.providerURLs[.foursquare] != nil)
        #expect(answer.places.contains { $0.place.name == "Philz Coffee" && $0.sourceIDs.count == 1 }, "the other café stays apart")
        #expect(
            answer.places.map(\.place.name).sorted() == ["Blue Bottle Coffee", "Chez Papa Resto", "Mint Plaza Fountain", "Philz Coffee"],
            "each real place once; Yelp's permanently closed bakery is not an answer")
        #expect(answer.places.map(\.distance) == answer.places.map(\.distance).sorted(), "nearest first")
        #expect(try index.count() == before, "nothing from a provider was written to the index")
    }

    @Test func aSlowProviderTimesOutAndTheOthersStillAnswer() async throws {
        // Generous times: on a two-core machine other suites' synchronous tests can hold the
        // threads the loopback servers answer on for a few seconds.
        let slow = try await LoopbackServer.start(replies: [LoopbackServer.Reply(body: Recorded.data("here_browse.json"), delay: 90)])
        let yelp = try await LoopbackServer.start(replies: [.recorded("yelp_search.json")])
        defer {
            Task {
                await slow.stop()
                await yelp.stop()
            }
        }
        let started = Date()
        let answer = await FederatedSearch(
            sources: [HEREAdapter(settings: settings(slow, .here)), YelpAdapter(settings: settings(yelp, .yelp))],
            deadline: 15
        ).search(near: mintPlaza, radius: Distance(uncheckedMeters: 500))
        #expect(Date().timeIntervalSince(started) < 75, "did not wait for the 90 s server")
        #expect(answer.statuses.map(\.state) == [.ok, .timedOut])
        #expect(answer.statuses[1].error == .timedOut(provider: .here, seconds: 15))
        #expect(answer.places.count == 2)
    }

    @Test func onlyTheProvidersAskedFor() async throws {
        let yelp = try await LoopbackServer.start(replies: [.recorded("yelp_search.json")])
        let here = try await LoopbackServer.start(replies: [.recorded("here_browse.json")])
        defer {
            Task {
                await yelp.stop()
                await here.stop()
            }
        }
        let search = FederatedSearch(sources: [YelpAdapter(settings: settings(yelp, .yelp)), HEREAdapter(settings: settings(here, .here))])
        let answer = await search.search(near: mintPlaza, radius: Distance(uncheckedMeters: 500), providers: [.here])
        #expect(answer.statuses.map(\.provider) == [.here])
        #expect(await yelp.requests.isEmpty && answer.places.count == 2)
    }

    @Test func radiusClampingIsReportedPerProvider() async throws {
        let yelp = try await LoopbackServer.start(replies: [.recorded("yelp_search.json")])
        defer { Task { await yelp.stop() } }
        let answer = await FederatedSearch(sources: [YelpAdapter(settings: settings(yelp, .yelp))])
            .search(near: mintPlaza, radius: Distance(uncheckedMeters: 60_000))
        #expect(answer.statuses[0].clampedRadius?.meters == 40_000)
    }

    @Test func cachingFollowsEachProvidersTerms() async throws {
        let yelp = try await LoopbackServer.start(replies: [.recorded("yelp_search.json")])
        let google = try await LoopbackServer.start(replies: [.recorded("google_searchNearby.json")])
        defer {
            Task {
                await yelp.stop()
                await google.stop()
            }
        }
        let clock = Clock(fixedNow)
        let search = FederatedSearch(
            sources: [GooglePlacesAdapter(settings: settings(google, .google)), YelpAdapter(settings: settings(yelp, .yelp))],
            cache: ProviderCache(now: { clock.now }))
        let radius = Distance(uncheckedMeters: 1000)
        _ = await search.search(near: mintPlaza, radius: radius)
        let second = await search.search(near: mintPlaza, radius: radius)
        #expect(await yelp.requests.count == 1, "Yelp content may be kept up to 24 h")
        #expect(second.statuses.first { $0.provider == .yelp }?.servedFromCache == true)
        #expect(await google.requests.count == 2, "Google content is never cached")
        clock.now = fixedNow.addingTimeInterval(24 * 3600 + 1)
        _ = await search.search(near: mintPlaza, radius: radius)
        #expect(await yelp.requests.count == 2, "after 24 h Yelp is asked again")
    }

    @Test func theTermsTable() {
        #expect(CacheTerms.terms(for: .google).responseLifetime == 0 && CacheTerms.terms(for: .google).indexRetention == .identifiersOnly)
        #expect(CacheTerms.terms(for: .foursquare).responseLifetime == 0 && CacheTerms.terms(for: .foursquare).indexRetention == .identifiersOnly)
        #expect(CacheTerms.terms(for: .yelp).responseLifetime == 24 * 3600)
        #expect(CacheTerms.terms(for: .here).indexRetention == .nothing)
        #expect(ProviderName.allCases.allSatisfy { CacheTerms.table[$0] != nil }, "every source has a row")
    }
}

/// A settable clock for cache expiry.
final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Date
    init(_ start: Date) { value = start }
    var now: Date {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
