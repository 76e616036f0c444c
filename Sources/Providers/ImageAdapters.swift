import Foundation
import GeoCore

/// Wikimedia Commons through the MediaWiki Action API (`/w/api.php`): no key. Files near a point
/// (`generator=geosearch` in the File namespace, radius capped at the API's 10 km), or files
/// whose text matches a title (`generator=search`), each with `imageinfo` (a 1 024 px rendition
/// and a thumbnail) and its `extmetadata` (artist, licence, licence URL). Wikimedia asks API
/// clients for a descriptive User-Agent, which every request carries.
public struct WikimediaCommonsAdapter: ImageProvider {
    public let name = ProviderName.wikimediaCommons
    static let userAgent = "GeoQuery/1.0 (https://github.com/geoquery; place-discovery service)"
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    public func images(for query: ImageQuery) async throws -> [PlaceImage] {
        let base = try settings.baseURL(.wikimediaCommons, default: "https://commons.wikimedia.org")
        var parameters: [(String, String)] = [
            ("action", "query"), ("format", "json"), ("formatversion", "2"), ("prop", "imageinfo"),
            ("iiprop", "url|size|extmetadata"), ("iiurlwidth", "1024"),
            ("iiextmetadatafilter", "Artist|LicenseShortName|LicenseUrl|ObjectName|ImageDescription"),
        ]
        if let point = query.coordinate {
            let radius = Int(min(10_000, max(10, query.radius.meters)).rounded())
            parameters += [
                ("generator", "geosearch"), ("ggsnamespace", "6"), ("ggscoord", "\(point.latitude)|\(point.longitude)"),
                ("ggsradius", String(radius)), ("ggslimit", String(query.limit * 2)),
            ]
        } else if let title = query.title {
            parameters += [
                ("generator", "search"), ("gsrnamespace", "6"), ("gsrsearch", "\(title) filetype:bitmap"),
                ("gsrlimit", String(query.limit * 2)),
            ]
        }
        let client = settings.client(.wikimediaCommons, key: "", errorMessage: Self.errorMessage)
        let (json, _) = try await client.json(
            ProviderRequest(
                url: try endpoint(base, "/w/api.php", query: parameters),
                headers: ["User-Agent": Self.userAgent]))
        // The API reports bad parameters with HTTP 200 and an `error` member.
        if let error = json["error"], error.objectValue != nil {
            throw ProviderError.providerStatus(provider: .wikimediaCommons, status: error["code"]?.text ?? "error", message: error["info"]?.text)
        }
        // formatversion=2: `query.pages` is an array; generator order is in each page's `index`.
        let pages = (json["query"]?["pages"]?.elements ?? []).sorted {
            ($0["index"]?.intValue ?? .max) < ($1["index"]?.intValue ?? .max)
        }
        var images: [PlaceImage] = []
        for page in pages {
            guard let info = page["imageinfo"]?.elements.first,
                let url = (info["thumburl"]?.text ?? info["url"]?.text).flatMap(URL.init(string:)),
                let source = (info["descriptionurl"]?.text).flatMap(URL.init(string:))
            else { continue }
            // Only pictures: Commons also holds PDFs, audio and video in the File namespace.
            let lowered = url.path.lowercased()
            guard [".jpg", ".jpeg", ".png", ".webp", ".gif"].contains(where: lowered.hasSuffix) else { continue }
            let metadata = info["extmetadata"]
            func meta(_ name: String) -> String? { metadata?[name]?["value"]?.text?.plainTextFromHTML.nonEmpty }
            guard let licence = meta("LicenseShortName") else { continue }  // no licence, no use
            let title = meta("ObjectName") ?? page["title"]?.text.map { Self.fileTitle($0) }
            images.append(
                PlaceImage(
                    url: url, thumbnailURL: url, width: info["thumbwidth"]?.intValue ?? info["width"]?.intValue,
                    height: info["thumbheight"]?.intValue ?? info["height"]?.intValue, title: title,
                    author: meta("Artist"), licence: licence, licenceURL: meta("LicenseUrl").flatMap(URL.init(string:)),
                    sourceURL: source, provider: .wikimediaCommons))
            if images.count == query.limit { break }
        }
        return images
    }

    /// `File:Lisboa Praça do Comércio.jpg` → `Lisboa Praça do Comércio`.
    static func fileTitle(_ title: String) -> String {
        var name = title.hasPrefix("File:") ? String(title.dropFirst(5)) : title
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 5 { name = String(name[..<dot]) }
        return name
    }

    static func errorMessage(_ response: ProviderResponse) -> (code: String?, message: String) {
        if let json = try? JSONDecoder().decode(JSONValue.self, from: response.body), let error = json["error"], error.objectValue != nil {
            return (error["code"]?.text, error["info"]?.text ?? "HTTP \(response.status)")
        }
        return ProviderClient.standardErrorMessage(response)
    }
}

/// Pixabay `/api/` (key `PIXABAY_API_KEY`): photos by text (Pixabay has no search by point),
/// safe search on. Images under the Pixabay Content License; its terms ask that answers be
/// cached for 24 hours and that image URLs not be hot-linked permanently, so nothing from Pixabay
/// goes into the index.
public struct PixabayAdapter: ImageProvider {
    public let name = ProviderName.pixabay
    static let licence = "Pixabay Content License"
    static let licenceURL = URL(string: "https://pixabay.com/service/license-summary/")!
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    public func images(for query: ImageQuery) async throws -> [PlaceImage] {
        guard let title = query.title else {
            throw ProviderError.unsupported(provider: .pixabay, reason: "searches by text only; give a title")
        }
        let key = try settings.environment.key(for: .pixabay)
        let base = try settings.baseURL(.pixabay, default: "https://pixabay.com")
        let url = try endpoint(
            base, "/api/",
            query: [
                ("key", key), ("q", String(title.prefix(100))), ("image_type", "photo"), ("safesearch", "true"),
                ("per_page", String(max(3, query.limit))),  // Pixabay's minimum page is 3
            ])
        let (json, _) = try await settings.client(.pixabay, key: key).json(ProviderRequest(url: url))
        var images: [PlaceImage] = []
        for hit in json["hits"]?.elements ?? [] {
            guard let url = (hit["webformatURL"]?.text).flatMap(URL.init(string:)),
                let page = (hit["pageURL"]?.text).flatMap(URL.init(string:))
            else { continue }
            let user = hit["user"]?.text
            let authorURL = hit["user_id"]?.intValue.flatMap { id in
                user.flatMap { URL(string: "https://pixabay.com/users/\($0)-\(id)/") }
            }
            images.append(
                PlaceImage(
                    url: url, thumbnailURL: (hit["previewURL"]?.text).flatMap(URL.init(string:)),
                    width: hit["webformatWidth"]?.intValue, height: hit["webformatHeight"]?.intValue,
                    title: hit["tags"]?.text, author: user, authorURL: authorURL, licence: Self.licence,
                    licenceURL: Self.licenceURL, sourceURL: page, provider: .pixabay))
            if images.count == query.limit { break }
        }
        return images
    }
}

/// Unsplash `/search/photos` (key `UNSPLASH_ACCESS_KEY`, sent as `Authorization: Client-ID …`):
/// photos by text. The Unsplash API guidelines require hot-linking the returned `urls` and
/// crediting the photographer with links to their profile and to Unsplash, which every image
/// carries (`authorURL`, `sourceURL`, with the `utm_source` the guidelines ask for).
public struct UnsplashAdapter: ImageProvider {
    public let name = ProviderName.unsplash
    static let licence = "Unsplash License"
    static let licenceURL = URL(string: "https://unsplash.com/license")!
    static let referral = "utm_source=geoquery&utm_medium=referral"
    let settings: ProviderSettings

    public init(settings: ProviderSettings = ProviderSettings()) { self.settings = settings }

    public func images(for query: ImageQuery) async throws -> [PlaceImage] {
        guard let title = query.title else {
            throw ProviderError.unsupported(provider: .unsplash, reason: "searches by text only; give a title")
        }
        let key = try settings.environment.key(for: .unsplash)
        let base = try settings.baseURL(.unsplash, default: "https://api.unsplash.com")
        let url = try endpoint(
            base, "/search/photos",
            query: [
                ("query", String(title.prefix(100))), ("per_page", String(query.limit)), ("content_filter", "high"),
            ])
        let request = ProviderRequest(url: url, headers: ["Authorization": "Client-ID \(key)", "Accept-Version": "v1"])
        let (json, _) = try await settings.client(.unsplash, key: key, errorMessage: Self.errorMessage).json(request)
        var images: [PlaceImage] = []
        for photo in json["results"]?.elements ?? [] {
            guard let url = (photo["urls"]?["regular"]?.text).flatMap(URL.init(string:)),
                let page = (photo["links"]?["html"]?.text).flatMap({ URL(string: Self.referred($0)) })
            else { continue }
            let user = photo["user"]
            images.append(
                PlaceImage(
                    url: url, thumbnailURL: (photo["urls"]?["thumb"]?.text).flatMap(URL.init(string:)),
                    width: photo["width"]?.intValue, height: photo["height"]?.intValue,
                    title: photo["description"]?.text ?? photo["alt_description"]?.text, author: user?["name"]?.text,
                    authorURL: (user?["links"]?["html"]?.text).flatMap { URL(string: Self.referred($0)) },
                    licence: Self.licence, licenceURL: Self.licenceURL, sourceURL: page, provider: .unsplash))
            if images.count == query.limit { break }
        }
        return images
    }

    static func referred(_ link: String) -> String { link + (link.contains("?") ? "&" : "?") + referral }

    /// Unsplash errors are `{"errors": ["…"]}`.
    static func errorMessage(_ response: ProviderResponse) -> (code: String?, message: String) {
        if let json = try? JSONDecoder().decode(JSONValue.self, from: response.body), let errors = json["errors"]?.elements, !errors.isEmpty {
            return (nil, errors.compactMap(\.text).joined(separator: "; "))
        }
        return ProviderClient.standardErrorMessage(response)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
