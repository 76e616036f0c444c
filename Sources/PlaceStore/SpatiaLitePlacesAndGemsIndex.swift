import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// The places of a SpatiaLite file and the gems of a user data file as one index: what
/// `MergedPlaceIndex([places, gems])` answers, with `near` — the service's commonest query —
/// read by one statement over both files instead of one query per store.
///
/// `geoquery serve` asks the places and the gems for every place query. Through the merged
/// index that is two stores, each on its own threads: two hops, two read transactions, two
/// R*Tree searches and a merge per request, about a third of the server's CPU for a page near
/// 1 km on the bench. Here each read connection of the places store attaches the user data
/// file (``SpatiaLitePlaceIndex/attachUserData(_:)``, read-only), and one statement reads the
/// candidates of both R*Trees (`UNION ALL`). The files stay apart, each with its own WAL: an
/// import of places still never waits for a gem write, nor a gem write for an import.
///
/// Every viewer and every filter but text and categories (which search each file's own tables)
/// takes the one statement; those two, and every other query, go to the merged index. The
/// answers are the merged index's — hits decided by GeoCore's distance, in (distance, id)
/// order, with the same cursors, so a page read one way continues the other way. The
/// conformance suite runs on this index as on each store.
public struct SpatiaLitePlacesAndGemsIndex: MergedIndexRefinement {
    let places: SpatiaLitePlaceStore
    let userDataPath: String
    public let merged: MergedPlaceIndex
    /// Pages answered by the one statement (the tests check that the path is taken).
    let oneStatementPages = UseCounter()

    init(places: SpatiaLitePlaceStore, gems: SQLiteUserStore) {
        self.places = places
        userDataPath = gems.path
        merged = MergedPlaceIndex([places, gems])
    }

    public func near(_ center: Coordinate, radius: Distance, filter: PlaceFilter, limit: Int?, cursor: String?) async throws -> PlacePage {
        guard !SpatiaLitePlaceIndex.readsSideTables(filter) else {
            return try await merged.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor)
        }
        let userDataPath = self.userDataPath
        let page = try await places.reading { index in
            try index.attachUserData(userDataPath)
            return try index.near(center, radius: radius, filter: filter, limit: limit, cursor: cursor, withUserData: true)
        }
        oneStatementPages.add()
        return page
    }
}

extension SpatiaLitePlaceStore: MergeablePlaceIndex {
    /// With a ``SQLiteUserStore``, one index that reads places and gems near a point by one
    /// statement (``SpatiaLitePlacesAndGemsIndex``); nil with any other index.
    public func merged(with other: any PlaceIndex) -> (any PlaceIndex)? {
        guard let gems = other as? SQLiteUserStore, gems.path != path else { return nil }
        return SpatiaLitePlacesAndGemsIndex(places: self, gems: gems)
    }
}
