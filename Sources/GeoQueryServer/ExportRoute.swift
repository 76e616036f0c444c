import Foundation
import GeoQueryWire
import HTTPTypes
import Hummingbird
import PlaceModel
import PlaceQuery
import Trips

/// `GET /v1/me/export`: everything the signed-in user made or was given, in one JSON document
/// they can download and keep (the right of access and portability travel apps owe their users).
extension GeoQueryService {
    func addExportRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        router.route(.get, "/v1/me/export", in: &table, bound: .queries(configuration.requestTimeout)) { request, _ in
            let user = try await signedIn(request)
            _ = try QueryParameters(request, allowed: [])
            let export = try await UserExport.read(for: user.username, from: try requireUserData())
            var json = JSONWriter(capacity: 4096 + export.gems.count * 700)
            json.beginObject()
            json.key("format"); json.string("geoquery-export/1")
            json.key("exported_at"); json.timestamp(Date())
            json.key("account"); Self.privateProfile(user.account).write(to: &json)
            json.key("gems"); json.beginArray()
            for gem in export.gems { PlaceJSON.write(gem, distance: nil, to: &json, includeCoordinates: true) }
            json.endArray()
            json.key("ratings"); json.beginArray()
            for rating in export.ratings {
                OrderedJSON.object([("gem_id", .string(rating.gemID.rawValue)), ("stars", .int(rating.stars)),
                                    ("rated_at", Self.timestampJSON(rating.ratedAt))]).write(to: &json)
            }
            json.endArray()
            json.key("favorites"); json.beginArray()
            for favorite in export.favorites {
                OrderedJSON.object([("place_id", .string(favorite.placeID.rawValue)),
                                    ("added_at", Self.timestampJSON(favorite.createdAt))]).write(to: &json)
            }
            json.endArray()
            json.key("photos"); json.beginArray()
            for photo in export.photos {
                OrderedJSON.object(Self.photoFields(photo) + [("uploaded_at", Self.timestampJSON(photo.createdAt))]).write(to: &json)
            }
            json.endArray()
            json.key("friends"); OrderedJSON.array(export.friendships.map(Self.friendshipJSON)).write(to: &json)
            json.key("reports"); OrderedJSON.array(export.reports.map { Self.reportJSON($0, includeReporter: false) }).write(to: &json)
            json.key("blocks"); OrderedJSON.array(export.blocks.map(Self.blockJSON)).write(to: &json)
            json.key("itineraries"); json.beginArray()
            for record in export.itineraries {
                try Self.itineraryJSON(record, access: PlanAccess.of(user.username, to: record, isFriendOfOwner: false)).write(to: &json)
            }
            json.endArray()
            json.key("trips"); json.beginArray()
            for record in export.trips {
                try await tripJSON(record, access: PlanAccess.of(user.username, to: record, isFriendOfOwner: false)).write(to: &json)
            }
            json.endArray()
            json.key("notifications"); OrderedJSON.array(export.notifications.map(Self.notificationJSON)).write(to: &json)
            let accounts = try requireAccounts()
            let sessions = try await openSessions(of: user.username)
            json.key("sessions"); OrderedJSON.array(sessions.map { Self.sessionJSON($0, asking: user.session, accounts: accounts) }).write(to: &json)
            json.endObject()
            // A download of personal data: saved under a name, never kept by a cache on the way.
            return .writer(json, headers: [Self.contentDispositionHeader: "attachment; filename=\"geoquery-export-\(user.username).json\"",
                                           .cacheControl: "no-store"])
        }
    }
}

extension GeoQueryService {
    static let contentDispositionHeader = HTTPField.Name("Content-Disposition")!
}

/// What one user's export holds, read from the store page by page.
struct UserExport {
    var gems: [Place] = []
    var ratings: [GivenRating] = []
    var favorites: [Favorite] = []
    var photos: [PhotoRecord] = []
    var friendships: [Friendship] = []
    var reports: [GemReport] = []
    var blocks: [UserBlock] = []
    var itineraries: [PlanRecord] = []
    var trips: [PlanRecord] = []
    var notifications: [UserNotification] = []

    static let pageSize = 500

    static func read(for username: String, from store: any UserDataStore) async throws -> UserExport {
        var export = UserExport()
        export.gems = try await allPages({ try await store.gems(ownedBy: username, after: $0, limit: pageSize) }, after: \.id)
        export.favorites = try await allPages({ try await store.favorites(of: username, after: $0, limit: pageSize) }, after: \.placeID)
        export.itineraries = try await allPlans(.itinerary, of: username, from: store)
        export.trips = try await allPlans(.trip, of: username, from: store)
        export.notifications = try await allPages({ try await store.notifications(of: username, unreadOnly: false, after: $0, limit: pageSize) },
                                                  after: \.id)
        export.ratings = try await store.ratings(by: username)
        export.photos = try await allPages({ try await store.photos(ownedBy: username, after: $0, limit: pageSize) },
                                           after: { (uploadedAt: $0.createdAt, id: $0.id) })
        export.friendships = try await store.friendships(of: username)
        export.reports = try await store.reports(by: username)
        export.blocks = try await store.blocks(by: username)
        return export
    }

    static func allPlans(_ kind: PlanKind, of username: String, from store: any UserDataStore) async throws -> [PlanRecord] {
        try await allPages({ try await store.plans(of: kind, involving: username, window: .all, after: $0, limit: pageSize) },
                           after: { PlanListPosition(startsAt: $0.startsAt, id: $0.id) })
    }

    /// Every item of a keyset-paged listing: pages of ``pageSize`` until a short one, each
    /// resuming after the position of the previous page's last item.
    static func allPages<Item, Position>(_ page: (Position?) async throws -> [Item],
                                         after position: (Item) -> Position) async throws -> [Item] {
        var all: [Item] = []
        var after: Position?
        while true {
            let items = try await page(after)
            all += items
            guard items.count == pageSize, let last = items.last else { return all }
            after = position(last)
        }
    }
}
