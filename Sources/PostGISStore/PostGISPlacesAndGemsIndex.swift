import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// The places and the gems of one database as one index: what `MergedPlaceIndex([places, gems])`
/// answers, with the service's commonest query — a page near a point within 50 km — read by one
/// statement over both tables instead of one per table.
///
/// `geoquery serve` asks the places and the gems for every place query. Over PostGIS that took
/// two statements, two leases and two round trips per request: on the bench (near 1 km, first 50)
/// the gem half cost the server about 180 µs and PostgreSQL about 90 µs of CPU per request.
/// A signed-in viewer's page takes the one statement too when the database has no read replica
/// (with one, their gems are read from the primary, so that they see their own writes, and the
/// places from the replica). Every other query — a filter on columns, a larger circle, a box
/// holding more than ``PostGISPlaceIndex/boxNearCap`` candidates — goes to the merged index, so
/// the answers are the merged index's: hits decided by GeoCore's distance, in (distance, id)
/// order, with the same cursors (a page read one way continues the other way). The conformance
/// suite runs on this index as on each store.
public struct PostGISPlacesAndGemsIndex: MergedIndexRefinement {
    let places: PostGISPlaceIndex
    public let merged: MergedPlaceIndex
    /// Pages answered by the one statement (the tests check that the path is taken).
    let oneStatementPages = UseCounter()

    /// Nil unless `places` is a `places` index and `gems` reads and writes its gems on the same
    /// pools, so that one statement on a pool sees both as one snapshot.
    init?(places: PostGISPlaceIndex, gems: PostGISUserStore) {
        guard places.table == PlacesTable.name, gems.gemIndex.reader === places.reader, gems.gemIndex.primary === places.primary else {
            return nil
        }
        self.places = places
        merged = MergedPlaceIndex([places, gems])
    }

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        if let limit, limit >= 1, radius.meters <= PostGISPlaceIndex.boxNearMaximumRadius,
            BoxNearStatement<PlacesAndGemsTables>.covers(filter), filter.viewer == nil || places.reader === places.primary
        {
            let fingerprint = PageCursor.nearFingerprint(center: center, radius: radius, filter: filter)
            let after = try cursor.map { try PageCursor(decoding: $0, expectedFingerprint: fingerprint) }
            if let hits = try await places.boxHits(center, radius: radius.meters, filter: filter, after: after, withGems: true) {
                oneStatementPages.add()
                return PostGISPlaceIndex.page(hits, limit: limit, fingerprint: fingerprint, withDistances: true)
            }
        }
        return try await merged.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
    }
}

extension PostGISPlaceIndex: MergeablePlaceIndex {
    /// With the gems of a ``PostGISUserStore`` on the same pools, an index that reads both in one
    /// statement where it can (``PostGISPlacesAndGemsIndex``); nil for anything else.
    public func merged(with other: any PlaceIndex) -> (any PlaceIndex)? {
        guard let gems = other as? PostGISUserStore else { return nil }
        return PostGISPlacesAndGemsIndex(places: self, gems: gems)
    }
}
