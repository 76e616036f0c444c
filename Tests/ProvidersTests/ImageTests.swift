import Foundation
import GeoCore
import ProviderTestSupport
import Testing

@testable import Providers

@Suite(.ownThreads) struct ImageTests {
    let lisbon = Coordinate(uncheckedLatitude: 38.7077, longitude: -9.1366)

    @Test func commonsByPointKeepsOrderLicenceAndAuthor() async throws {
        try await withServer([.recorded("commons_geosearch.json")]) { server in
            let query = try ImageQuery(coordinate: lisbon, radius: Distance(uncheckedMeters: 50_000), limit: 5)
            let images = try await WikimediaCommonsAdapter(settings: settings(server, .wikimediaCommons)).images(for: query)
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/w/api.php" && sent.query["generator"] == "geosearch" && sent.query["ggsnamespace"] == "6")
            #expect(sent.query["ggscoord"] == "38.7077|-9.1366")
            #expect(sent.query["ggsradius"] == "10000", "Commons caps the radius at 10 km")
            #expect(sent.query["formatversion"] == "2" && sent.query["iiprop"] == "url|size|extmetadata")
            #expect(sent.headers["user-agent"]?.hasPrefix("GeoQuery/") == true, "Wikimedia asks for a descriptive User-Agent")

            // The generator's `index` orders them; the PDF and the unlicensed file are left out.
            #expect(images.count == 2)
            #expect(images[0].sourceURL.absoluteString == "https://commons.wikimedia.org/wiki/File:Arco_da_Rua_Augusta_tram.jpg")
            #expect(images[0].author == "Jane Q. Example & friends" && images[0].licence == "CC BY 2.0")
            #expect(images[0].title == "Arco da Rua Augusta & tram", "the file name without namespace and extension")
            #expect(images[1].author == "Example Photographer", "the artist's HTML link is reduced to its text")
            #expect(images[1].title == "Praça do Comércio at dusk" && images[1].licence == "CC BY-SA 4.0")
            #expect(images[1].licenceURL?.absoluteString == "https://creativecommons.org/licenses/by-sa/4.0")
            #expect(images[1].width == 1024 && images[1].height == 683 && images[1].url.absoluteString.contains("1024px-"))
            #expect(images.allSatisfy { $0.provider == .wikimediaCommons })
        }
    }

    @Test func commonsByTitleSearchesFiles() async throws {
        try await withServer([.recorded("commons_geosearch.json")]) { server in
            let images = try await WikimediaCommonsAdapter(settings: settings(server, .wikimediaCommons))
                .images(for: try ImageQuery(title: "Lisbon Portugal", limit: 1))
            let sent = try #require(await server.requests.first)
            #expect(sent.query["generator"] == "search" && sent.query["gsrsearch"] == "Lisbon Portugal filetype:bitmap")
            #expect(sent.query["gsrnamespace"] == "6" && sent.query["ggscoord"] == nil)
            #expect(images.count == 1, "the limit holds")
        }
    }

    @Test func commonsErrorInsideA200IsAnError() async throws {
        try await withServer([.recorded("commons_error.json")]) { server in
            await #expect(
                throws: ProviderError.providerStatus(
                    provider: .wikimediaCommons, status: "invalid-coord",
                    message: "Invalid coordinate provided")
            ) {
                try await WikimediaCommonsAdapter(settings: settings(server, .wikimediaCommons)).images(for: try ImageQuery(coordinate: lisbon))
            }
        }
    }

    @Test func pixabayNeedsItsKeyAndCreditsTheUser() async throws {
        try await withServer([.recorded("pixabay_search.json")]) { server in
            let adapter = PixabayAdapter(settings: settings(server, .pixabay, key: "pixabay-secret-123"))
            let images = try await adapter.images(for: try ImageQuery(title: "Lisbon", limit: 1))
            let sent = try #require(await server.requests.first)
            #expect(sent.path.hasPrefix("/api"), "path \(sent.path)")
            #expect(sent.query["key"] == "pixabay-secret-123" && sent.query["q"] == "Lisbon")
            #expect(sent.query["per_page"] == "3", "Pixabay's smallest page is 3")
            #expect(sent.query["safesearch"] == "true" && sent.query["image_type"] == "photo")
            #expect(images.count == 1)
            let image = try #require(images.first)
            #expect(image.author == "ExampleUser" && image.authorURL?.absoluteString == "https://pixabay.com/users/ExampleUser-424242/")
            #expect(image.licence == "Pixabay Content License" && image.sourceURL.absoluteString.hasPrefix("https://pixabay.com/photos/"))
            #expect(image.width == 640 && image.title == "lisbon, tram, alfama")
        }
        let unset = ProviderSettings(environment: ProviderEnvironment([:]))
        await #expect(throws: ProviderError.missingKey(provider: .pixabay, variable: "PIXABAY_API_KEY")) {
            try await PixabayAdapter(settings: unset).images(for: try ImageQuery(title: "Lisbon"))
        }
        await #expect(throws: ProviderError.self) {
            try await PixabayAdapter(settings: unset).images(for: try ImageQuery(coordinate: lisbon))
        }
    }

    @Test func unsplashSendsClientIDAndReferralLinks() async throws {
        try await withServer([.recorded("unsplash_search.json")]) { server in
            let images = try await UnsplashAdapter(settings: settings(server, .unsplash, key: "unsplash-access-456"))
                .images(for: try ImageQuery(title: "Lisbon", limit: 4))
            let sent = try #require(await server.requests.first)
            #expect(sent.path == "/search/photos" && sent.query["query"] == "Lisbon" && sent.query["per_page"] == "4")
            #expect(sent.headers["authorization"] == "Client-ID unsplash-access-456" && sent.headers["accept-version"] == "v1")
            let image = try #require(images.first)
            #expect(image.url.absoluteString.hasSuffix("w=1080") && image.thumbnailURL?.absoluteString.hasSuffix("w=200") == true)
            #expect(image.title == "yellow tram on a street in Lisbon", "alt text when there is no description")
            #expect(image.author == "Example Photographer")
            #expect(image.authorURL?.absoluteString == "https://unsplash.com/@examplephotographer?utm_source=geoquery&utm_medium=referral")
            #expect(image.sourceURL.absoluteString == "https://unsplash.com/photos/AbCdEf12345?utm_source=geoquery&utm_medium=referral")
        }
    }

    @Test func unsplashErrorsNameTheReasonAndHideTheKey() async throws {
        try await withServer([.recorded("unsplash_error_401.json", status: 401)]) { server in
            do {
                _ = try await UnsplashAdapter(settings: settings(server, .unsplash, key: "unsplash-access-456"))
                    .images(for: try ImageQuery(title: "Lisbon"))
                Issue.record("a 401 must throw")
            } catch let error as ProviderError {
                #expect(error == .rejected(provider: .unsplash, status: 401, code: nil, message: "OAuth error: The access token is invalid"))
                #expect(!error.description.contains("unsplash-access-456"))
            }
        }
    }

    @Test func searchFallsThroughSourcesAndCachesByTerms() async throws {
        // Commons answers with nothing; Pixabay (key set) answers; a second ask comes from the cache.
        let empty = LoopbackServer.Reply.json(#"{"batchcomplete": true}"#)
        try await withServer([empty]) { commons in
            try await withServer([.recorded("pixabay_search.json")]) { pixabay in
                let variables = [
                    "GEOQUERY_COMMONS_BASE_URL": commons.baseURL.absoluteString,
                    "GEOQUERY_PIXABAY_BASE_URL": pixabay.baseURL.absoluteString, "PIXABAY_API_KEY": "k-0123456789",
                ]
                let shared = ProviderSettings(environment: ProviderEnvironment(variables), retry: fastRetry, timeout: 30, now: { fixedNow })
                let search = ImageSearch(settings: shared)
                #expect(search.providers.map(\.name) == [.wikimediaCommons, .pixabay], "Unsplash has no key")
                let query = try ImageQuery(coordinate: lisbon, title: "Lisbon", limit: 2)
                let first = await search.firstImages(for: query)
                #expect(first.images.count == 2 && first.images.allSatisfy { $0.provider == .pixabay } && first.failures.isEmpty)
                let again = await search.firstImages(for: query)
                #expect(again.images == first.images)
                #expect(await pixabay.requests.count == 1, "Pixabay's answer is kept for 24 hours")
                #expect(await commons.requests.count == 1, "Commons' empty answer is kept too")
            }
        }
    }

    @Test func queryNeedsAPointOrATitle() {
        #expect(throws: ProviderError.invalidQuery("an image search needs a point or a title")) { try ImageQuery(title: "  ") }
        #expect(throws: ProviderError.self) { try ImageQuery(title: "x", limit: 0) }
    }
}
