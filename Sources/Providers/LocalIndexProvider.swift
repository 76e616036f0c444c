import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// The local index (imported dumps and hidden gems) as one more source of a federated search.
public struct LocalIndexProvider: PlaceProvider {
    public let name = ProviderName.local
    public var maximumRadius: Distance? { nil }
    let index: any PlaceIndex

    public init(index: any PlaceIndex) { self.index = index }

    public func search(_ request: PlaceSearchRequest) async throws -> ProviderResult {
        let filter = PlaceFilter(categories: request.categories, text: request.query)
        let page = try await index.near(request.center, radius: request.radius, filter: filter, limit: request.limit, cursor: nil)
        let places = page.matches.map { match in
            ProviderPlace(
                place: match.place, distance: match.distance ?? Distance(uncheckedMeters: Geodesic.distance(request.center, match.coordinate)),
                businessStatus: .unknown)
        }
        return ProviderResult(provider: .local, places: places, radiusUsed: request.radius, radiusClamped: false, requests: 0)
    }
}
