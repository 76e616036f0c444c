import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import Providers

/// `/v1/images`: pictures of a point or a name from the image sources (Wikimedia Commons by
/// default; Pixabay and Unsplash when their keys are set), each with its author and licence.
extension GeoQueryService {
    func addImageRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let deadline = configuration.requestTimeout
        router.route(.get, "/v1/images", in: &table, bound: .cancelling(deadline)) { try await searchImages($0, $1) }
    }

    /// `GET /v1/images`.
    func searchImages(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["lat", "lon", "title", "radius", "provider", "limit"])
        let point = try parameters.optionalCoordinate()
        let title = try parameters.single("title")
        let radius = try parameters.distance("radius") ?? Distance(uncheckedMeters: 2_000)
        let limit = try parameters.int("limit", range: 1...50) ?? 5
        let query: ImageQuery
        do { query = try ImageQuery(coordinate: point, title: title, radius: radius, limit: limit) } catch {
            throw APIProblem.badRequest("\(error): give lat and lon, or title, e.g. lat=38.7077&lon=-9.1366 or title=Lisbon")
        }
        let search = imageSearch
        guard let word = try parameters.single("provider")?.lowercased() else {
            let (images, failures) = await search.firstImages(for: query)
            if images.isEmpty, failures.count == search.providers.count {
                throw APIProblem(
                    .serviceUnavailable,
                    "no image source answered: "
                        + failures.values.map(\.description).sorted().joined(separator: "; "), headers: [.retryAfter: "30"])
            }
            return .json(ImageAnswer.json(images, failures: failures))
        }
        let names = ProviderName.images.map(\.rawValue).joined(separator: ", ")
        guard let name = ProviderName(rawValue: word), ProviderName.images.contains(name) else {
            throw APIProblem.badRequest("provider '\(word)' is not an image source; use one of \(names)")
        }
        guard let provider = search.providers.first(where: { $0.name == name }) else {
            let variable = ProviderEnvironment.keyVariable(for: name) ?? ""
            throw APIProblem.badRequest("image source '\(word)' is not configured on this server (its key \(variable) is not set)")
        }
        do {
            return .json(ImageAnswer.json(try await search.images(from: provider, for: query), failures: [:]))
        } catch let error as ProviderError {
            if case .unsupported = error { throw APIProblem.badRequest(error.description) }
            throw APIProblem(.serviceUnavailable, error.description, headers: [.retryAfter: "30"])
        }
    }

}
