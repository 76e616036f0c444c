import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceStore
import PostGISStore

/// The index a command reads: a SpatiaLite file (read on this thread, as before) or a
/// PostgreSQL database (`--db postgres://…`). One face over both, so the commands stay thin.
enum OpenIndex {
    case file(SpatiaLitePlaceIndex)
    case database(PostGISPlaceIndex)

    /// The file's path or the database's URL without its password.
    var location: String {
        switch self {
        case .file(let index): return index.path
        case .database(let index): return index.location.description
        }
    }

    func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        switch self {
        case .file(let index): return try index.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
        case .database(let index): return try await index.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
        }
    }

    func within(_ box: BoundingBox, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        switch self {
        case .file(let index): return try index.within(box, filter: filter, limit: limit, cursor: cursor)
        case .database(let index): return try await index.within(box, filter: filter, limit: limit, cursor: cursor)
        }
    }

    func ranked(filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        switch self {
        case .file(let index): return try index.ranked(filter: filter, limit: limit, cursor: cursor)
        case .database(let index): return try await index.ranked(filter: filter, limit: limit, cursor: cursor)
        }
    }

    func nearest(_ center: Coordinate, count: Int, maxDistance: Distance?, filter: PlaceFilter) async throws -> [PlaceMatch] {
        switch self {
        case .file(let index): return try index.nearest(center, count: count, maxDistance: maxDistance, filter: filter)
        case .database(let index): return try await index.nearest(center, count: count, maxDistance: maxDistance, filter: filter)
        }
    }

    func place(_ id: PlaceID) async throws -> Place? {
        switch self {
        case .file(let index): return try index.place(id)
        case .database(let index): return try await index.place(id)
        }
    }

    func statistics() async throws -> IndexStatistics {
        switch self {
        case .file(let index): return try index.statistics()
        case .database(let index): return try await index.statistics()
        }
    }
}

/// ``reportingFailures(_:)`` for async work.
func reportingFailures<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch { throw CLIFailure(error) }
}
