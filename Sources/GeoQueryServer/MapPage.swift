import Crypto
import Foundation
import GeoQueryWire
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import Regions

/// The map page at `/` (and at `/s/{token}` for a shared itinerary) and Leaflet from Debian's `libjs-leaflet` under `/leaflet/`.
extension GeoQueryService {
    func addMapPage(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let page: [UInt8]
        do {
            var html = String(decoding: try ServiceResources.read("map", "html"), as: UTF8.self)
            var settings = JSONWriter()
            settings.beginObject()
            settings.key("tiles")
            settings.string(configuration.tilesURL)
            settings.key("attribution")
            settings.string(configuration.tilesAttribution)
            settings.endObject()
            // JSON inside a script element: "</" must not close it.
            html = html.replacingOccurrences(of: "{{SETTINGS}}", with: settings.text.replacingOccurrences(of: "</", with: "<\\/"))
            page = Array(html.utf8)
        } catch {
            page = Array("<!doctype html><title>GeoQuery</title><p>The map page was not built with the service.".utf8)
        }
        let policy = Self.mapPagePolicy(page: String(decoding: page, as: UTF8.self), tilesURL: configuration.tilesURL)
        router.route(.get, "/", in: &table, bound: .none) { _, _ in
            .bytes(
                page, contentType: "text/html; charset=utf-8",
                headers: [.cacheControl: "no-cache", SecurityHeadersMiddleware.contentSecurityPolicy: policy])
        }
        // A share link's map: the same page, which reads the token from its path. Never cached,
        // and the token is not sent on to the tile server.
        router.route(.get, "/s/{token}", in: &table, bound: .none) { _, _ in
            .bytes(
                page, contentType: "text/html; charset=utf-8",
                headers: [
                    .cacheControl: "no-store", SecurityHeadersMiddleware.referrerPolicy: "no-referrer",
                    SecurityHeadersMiddleware.contentSecurityPolicy: policy,
                ])
        }
        router.route(.get, "/map/countries.geojson", in: &table, bound: .none) { _, _ in
            let bytes = try await baseMapBytes()
            return .bytes(bytes, contentType: "application/geo+json", headers: [.cacheControl: "public, max-age=86400"])
        }
        addLeafletRoutes(to: router, table: &table)
    }

    /// Leaflet from Debian's `libjs-leaflet` under `/leaflet/` (its script, styles and images).
    func addLeafletRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let directory = configuration.leafletDirectory
        let serveLeaflet: @Sendable (String) async throws -> Response = { name in
            // Only plain names of Leaflet's own files: no "..", no absolute paths.
            let parts = name.split(separator: "/")
            guard !parts.isEmpty, parts.count <= 2,
                parts.allSatisfy({ $0.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) } && !$0.hasPrefix(".") })
            else {
                throw APIProblem(.notFound, "no Leaflet file \(name)")
            }
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else {
                throw APIProblem(.notFound, "no Leaflet file \(name) in \(directory) (install Debian's libjs-leaflet)")
            }
            let type =
                switch (name as NSString).pathExtension {
                case "js": "text/javascript; charset=utf-8"
                case "css": "text/css; charset=utf-8"
                case "png": "image/png"
                case "svg": "image/svg+xml"
                default: "application/octet-stream"
                }
            return .bytes(Array(data), contentType: type, headers: [.cacheControl: "public, max-age=86400"])
        }
        router.route(.get, "/leaflet/{file}", in: &table, bound: .none) { _, context in
            let file = try context.parameters.require("file")
            return try await serveLeaflet(file.removingPercentEncoding ?? file)
        }
        router.route(.get, "/leaflet/images/{file}", in: &table, bound: .none) { _, context in
            let file = try context.parameters.require("file")
            return try await serveLeaflet("images/" + (file.removingPercentEncoding ?? file))
        }
    }
}

extension GeoQueryService {
    /// The map page's Content-Security-Policy: its own scripts (Leaflet's file, and the page's
    /// inline script by its SHA-256), its own styles, images from itself and the tile server,
    /// requests to itself only. It may be embedded in other sites (no `frame-ancestors`), as a
    /// map usually is; every other answer may not.
    static func mapPagePolicy(page: String, tilesURL: String) -> String {
        var scriptHashes: [String] = []
        var rest = Substring(page)
        while let open = rest.range(of: "<script>"), let close = rest.range(of: "</script>", range: open.upperBound..<rest.endIndex) {
            let script = rest[open.upperBound..<close.lowerBound]
            scriptHashes.append("'sha256-" + Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString() + "'")
            rest = rest[close.upperBound...]
        }
        return [
            "default-src 'self'", "script-src 'self' " + scriptHashes.joined(separator: " "), "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: " + tileSource(tilesURL), "connect-src 'self'", "object-src 'none'", "base-uri 'none'",
            "form-action 'none'",
        ].joined(separator: "; ")
    }

    /// The tile server as a CSP source: `https://tile.openstreetmap.org`, `https://*.example.org`
    /// for a `{s}` subdomain template.
    static func tileSource(_ template: String) -> String {
        let filled = template.replacingOccurrences(of: "{s}.", with: "SUBDOMAIN.")
        guard let url = URL(string: filled.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
            let scheme = url.scheme, let host = url.host
        else { return "" }
        let source = host.replacingOccurrences(of: "SUBDOMAIN.", with: "*.")
        return "\(scheme)://\(source)" + (url.port.map { ":\($0)" } ?? "")
    }
}

extension GeoQueryService {
    /// The base map's GeoJSON (``BaseMap``), made once from ``ServiceConfiguration/boundariesFile``
    /// off the event loops and kept.
    func baseMapBytes() async throws -> [UInt8] {
        if let made = baseMap.made { return made }
        guard let path = configuration.boundariesFile else {
            throw APIProblem(.notFound, "this service has no country borders: start it with --data-dir holding countries.geojson.gz")
        }
        let bytes = try await onBackgroundWorker {
            do {
                return try BaseMap.geoJSON(boundaries: path)
            } catch {
                throw APIProblem(.serviceUnavailable, "the country borders could not be read: \(error)")
            }
        }
        baseMap.keep(bytes)
        return bytes
    }
}

/// The base map once made: two requests that come before it is may both make it (the same
/// bytes), which is cheaper than a lock held across the work.
final class BaseMapCache: Sendable {
    private let bytes = NIOLockedValueBox<[UInt8]?>(nil)

    var made: [UInt8]? { bytes.withLockedValue { $0 } }

    func keep(_ made: [UInt8]) { bytes.withLockedValue { $0 = made } }
}
