import Foundation
import GeoQueryWire
import HTTPTypes
import Hummingbird
import PlaceModel
import PlaceQuery
import Trips

/// `GET /v1/me/export`: everything the signed-in user made or was given, in one JSON document
/// they can download and keep (the right of access and portability travel apps owe their users).
///
/// The document is sent as it is read, a page of each list at a time, so an account with a
/// hundred thousand gems costs the server a page of them in memory, not the whole export.
/// Everything small (the account, ratings, friends, reports, blocks, sessions) and the first page
/// of gems is read before the answer starts, so that a store that is down fails the request
/// with its status; a failure later cuts the download short (the connection closes without the
/// chunked body's end, which a client sees as an error, never as a whole document).
extension GeoQueryService {
    func addExportRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        router.route(.get, "/v1/me/export", in: &table, bound: .queries(configuration.requestTimeout)) { try await exportMyData($0, $1) }
    }

    /// `GET /v1/me/export`.
    func exportMyData(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let user = try await signedIn(request)
        _ = try QueryParameters(request, allowed: [])
        let store = try requireUserData()
        let accounts = try requireAccounts()
        let username = user.username
        let firstGems = try await store.gems(ownedBy: username, after: nil, limit: UserExport.pageSize)
        let ratings = try await store.ratings(by: username)
        let friendships = try await store.friendships(of: username)
        let reports = try await store.reports(by: username)
        let blocks = try await store.blocks(by: username)
        let sessions = try await openSessions(of: username)
        let service = self
        let body = ResponseBody { writer in
            var json = JSONWriter(capacity: UserExport.pieceBytes + 16 * 1024)
            /// Sends what is written once it fills a piece.
            func send(_ json: inout JSONWriter, _ writer: inout any ResponseBodyWriter, force: Bool = false) async throws {
                guard force || json.count >= UserExport.pieceBytes else { return }
                let piece = json.drain { ByteBuffer(bytes: $0) }
                try await writer.write(piece)
            }
            json.beginObject()
            json.key("format")
            json.string("geoquery-export/1")
            json.key("exported_at")
            json.timestamp(Date())
            json.key("account")
            Self.privateProfile(user.account).write(to: &json)
            json.key("gems")
            json.beginArray()
            for try await gems in KeysetPages(
                first: firstGems, position: \.id, next: { try await store.gems(ownedBy: username, after: $0, limit: $1) })
            {
                for gem in gems { PlaceJSON.write(gem, distance: nil, to: &json, includeCoordinates: true) }
                try await send(&json, &writer)
            }
            json.endArray()
            json.key("ratings")
            json.beginArray()
            for rating in ratings {
                OrderedJSON.object([
                    ("gem_id", .string(rating.gemID.rawValue)), ("stars", .int(rating.stars)),
                    ("rated_at", Self.timestampJSON(rating.ratedAt)),
                ]).write(to: &json)
            }
            json.endArray()
            json.key("favorites")
            json.beginArray()
            for try await favorites in KeysetPages(position: \.placeID, next: { try await store.favorites(of: username, after: $0, limit: $1) }) {
                for favorite in favorites {
                    OrderedJSON.object([
                        ("place_id", .string(favorite.placeID.rawValue)),
                        ("added_at", Self.timestampJSON(favorite.createdAt)),
                    ]).write(to: &json)
                }
                try await send(&json, &writer)
            }
            json.endArray()
            json.key("photos")
            json.beginArray()
            for try await photos in KeysetPages(
                position: { PhotoPosition(uploadedAt: $0.createdAt, id: $0.id) },
                next: { try await store.photos(ownedBy: username, after: $0.map { ($0.uploadedAt, $0.id) }, limit: $1) })
            {
                for photo in photos {
                    OrderedJSON.object(Self.photoFields(photo) + [("uploaded_at", Self.timestampJSON(photo.createdAt))]).write(to: &json)
                }
                try await send(&json, &writer)
            }
            json.endArray()
            json.key("friends")
            OrderedJSON.array(friendships.map(Self.friendshipJSON)).write(to: &json)
            json.key("reports")
            OrderedJSON.array(reports.map { Self.reportJSON($0, includeReporter: false) }).write(to: &json)
            json.key("blocks")
            OrderedJSON.array(blocks.map(Self.blockJSON)).write(to: &json)
            for kind in [PlanKind.itinerary, .trip] {
                json.key(kind == .itinerary ? "itineraries" : "trips")
                json.beginArray()
                for try await plans in KeysetPages(
                    position: { PlanListPosition(startsAt: $0.startsAt, id: $0.id) },
                    next: { try await store.plans(of: kind, involving: username, window: .all, after: $0, limit: $1) })
                {
                    for record in plans {
                        let access = PlanAccess.of(username, to: record, isFriendOfOwner: false)
                        if kind == .itinerary {
                            try Self.itineraryJSON(record, access: access).write(to: &json)
                        } else {
                            try await service.tripJSON(record, access: access).write(to: &json)
                        }
                    }
                    try await send(&json, &writer)
                }
                json.endArray()
            }
            json.key("notifications")
            json.beginArray()
            for try await notifications in KeysetPages(
                position: \.id,
                next: {
                    try await store.notifications(of: username, unreadOnly: false, after: $0, limit: $1)
                })
            {
                for notification in notifications { Self.notificationJSON(notification).write(to: &json) }
                try await send(&json, &writer)
            }
            json.endArray()
            json.key("sessions")
            OrderedJSON.array(sessions.map { Self.sessionJSON($0, asking: user.session, accounts: accounts) }).write(to: &json)
            json.endObject()
            try await send(&json, &writer, force: true)
            try await writer.finish(nil)
        }
        // A download of personal data: saved under a name, never kept by a cache on the way.
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json",
                Self.contentDispositionHeader: "attachment; filename=\"geoquery-export-\(username).json\"",
                .cacheControl: "no-store",
            ],
            body: body)
    }

}

extension GeoQueryService {
    static let contentDispositionHeader = HTTPField.Name("Content-Disposition")!
}

/// Where a photo listing resumes (a tuple cannot be `Sendable` state of a sequence).
struct PhotoPosition: Sendable {
    var uploadedAt: Date
    var id: String
}

/// The pages of a keyset-paged listing, ``UserExport/pageSize`` items at a time, until a short
/// page: each resumes after the position of the previous page's last item. `first`, when given,
/// is the first page, already read.
struct KeysetPages<Item: Sendable, Position: Sendable>: AsyncSequence {
    typealias Element = [Item]
    let first: [Item]?
    let position: @Sendable (Item) -> Position
    let next: @Sendable (_ after: Position?, _ limit: Int) async throws -> [Item]

    init(
        first: [Item]? = nil, position: @escaping @Sendable (Item) -> Position,
        next: @escaping @Sendable (_ after: Position?, _ limit: Int) async throws -> [Item]
    ) {
        self.first = first
        self.position = position
        self.next = next
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let pages: KeysetPages
        var after: Position?
        var started = false
        var finished = false

        mutating func next() async throws -> [Item]? {
            guard !finished else { return nil }
            let page: [Item]
            if !started, let first = pages.first { page = first } else { page = try await pages.next(after, UserExport.pageSize) }
            started = true
            if page.count < UserExport.pageSize { finished = true }
            if let last = page.last { after = pages.position(last) }
            return page
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: self) }
}

/// How the export is read and sent.
enum UserExport {
    /// Items read from the store at once.
    static let pageSize = 500
    /// Bytes of JSON gathered before they are sent.
    static let pieceBytes = 64 * 1024
}
