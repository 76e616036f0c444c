import Accounts
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
        let groups = routeGroups(router)
        groups.members.route(.get, "/v1/me/export", in: &table, bound: .queries(configuration.requestTimeout)) { try await exportMyData($0, $1) }
    }

    /// `GET /v1/me/export`.
    func exportMyData(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        _ = try QueryParameters(request, allowed: [])
        let small = try await ExportPrefetch(of: user, service: self)
        let service = self
        // The body is written after this returns, outside the request's binding of the base.
        let base = PublicURL.base
        let body = ResponseBody { writer in
            var json = JSONWriter(capacity: UserExport.pieceBytes + 16 * 1024)
            try await PublicURL.$base.withValue(base) { try await service.writeExport(of: user, small, to: &json, &writer) }
            try await UserExport.send(&json, &writer, force: true)
            try await writer.finish(nil)
        }
        // A download of personal data: saved under a name, never kept by a cache on the way.
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json",
                Self.contentDispositionHeader: "attachment; filename=\"geoquery-export-\(user.username).json\"",
                .cacheControl: "no-store",
            ],
            body: body)
    }

    /// Writes the export document of `user`: the small lists from `small`, the long ones a page
    /// at a time, each full piece sent to `writer`.
    func writeExport(
        of user: SignedIn, _ small: ExportPrefetch, to json: inout JSONWriter, _ writer: inout any ResponseBodyWriter
    ) async throws {
        let store = try requireUserData()
        let username = user.username
        json.beginObject()
        json.key("format")
        json.string("geoquery-export/1")
        json.key("exported_at")
        json.timestamp(Date())
        json.key("account")
        Self.privateProfile(user.account).write(to: &json)
        let gems = KeysetPages(first: small.firstGems, position: \.id, next: { try await store.gems(ownedBy: username, after: $0, limit: $1) })
        try await UserExport.array("gems", gems, &json, &writer) { PlaceJSON.write($0, distance: nil, to: &$1, includeCoordinates: true) }
        json.key("ratings")
        OrderedJSON.array(small.ratings.map(Self.ratingJSON)).write(to: &json)
        let favorites = KeysetPages(position: \.placeID, next: { try await store.favorites(of: username, after: $0, limit: $1) })
        try await UserExport.array("favorites", favorites, &json, &writer) { favorite, json in
            OrderedJSON.object([
                ("place_id", .string(favorite.placeID.rawValue)), ("added_at", Self.timestampJSON(favorite.createdAt)),
            ]).write(to: &json)
        }
        let photos = KeysetPages(
            position: { PhotoPosition(uploadedAt: $0.createdAt, id: $0.id) },
            next: { try await store.photos(ownedBy: username, after: $0.map { ($0.uploadedAt, $0.id) }, limit: $1) })
        try await UserExport.array("photos", photos, &json, &writer) { photo, json in
            OrderedJSON.object(Self.photoFields(photo) + [("uploaded_at", Self.timestampJSON(photo.createdAt))]).write(to: &json)
        }
        json.key("friends")
        OrderedJSON.array(small.friendships.map(Self.friendshipJSON)).write(to: &json)
        json.key("reports")
        OrderedJSON.array(small.reports.map { Self.reportJSON($0, includeReporter: false) }).write(to: &json)
        json.key("blocks")
        OrderedJSON.array(small.blocks.map(Self.blockJSON)).write(to: &json)
        let following = KeysetPages(
            position: { FollowPosition(createdAt: $0.createdAt, username: $0.followee) },
            next: { try await store.following(of: username, after: $0, limit: $1) })
        try await UserExport.array("following", following, &json, &writer) { Self.followJSON($0.followee, $0).write(to: &$1) }
        for kind in [PlanKind.itinerary, .trip] {
            let plans = KeysetPages(
                position: { PlanListPosition(startsAt: $0.startsAt, id: $0.id) },
                next: { try await store.plans(of: kind, involving: username, window: .all, after: $0, limit: $1) })
            try await UserExport.array(kind == .itinerary ? "itineraries" : "trips", plans, &json, &writer) { record, json in
                let access = PlanAccess.of(username, to: record, isFriendOfOwner: false)
                let answer = kind == .itinerary ? try Self.itineraryJSON(record, access: access) : try await self.tripJSON(record, access: access)
                answer.write(to: &json)
            }
        }
        let notifications = KeysetPages(
            position: \.id, next: { try await store.notifications(of: username, unreadOnly: false, after: $0, limit: $1) })
        try await UserExport.array("notifications", notifications, &json, &writer) { Self.notificationJSON($0).write(to: &$1) }
        json.key("sessions")
        OrderedJSON.array(small.sessions.map { Self.sessionJSON($0, asking: user.session, accounts: small.accounts) }).write(to: &json)
        json.endObject()
    }

    /// A rating as the export shows it.
    static func ratingJSON(_ rating: GivenRating) -> OrderedJSON {
        .object([
            ("gem_id", .string(rating.gemID.rawValue)), ("stars", .int(rating.stars)), ("rated_at", Self.timestampJSON(rating.ratedAt)),
        ])
    }
}

/// What an export reads before its answer starts: everything small, and the first page of gems,
/// so that a store that is down fails the request with its status.
struct ExportPrefetch: Sendable {
    let firstGems: [Place]
    let ratings: [GivenRating]
    let friendships: [Friendship]
    let reports: [GemReport]
    let blocks: [UserBlock]
    let sessions: [SessionRecord]
    let accounts: AccountService

    init(of user: SignedIn, service: GeoQueryService) async throws {
        let store = try service.requireUserData()
        let username = user.username
        accounts = try service.requireAccounts()
        firstGems = try await store.gems(ownedBy: username, after: nil, limit: UserExport.pageSize)
        ratings = try await store.ratings(by: username)
        friendships = try await store.friendships(of: username)
        reports = try await store.reports(by: username)
        blocks = try await store.blocks(by: username)
        sessions = try await service.openSessions(of: username)
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

    /// Sends what is written once it fills a piece (or, `force`d, whatever is written).
    static func send(_ json: inout JSONWriter, _ writer: inout any ResponseBodyWriter, force: Bool = false) async throws {
        guard force || json.count >= pieceBytes else { return }
        let piece = json.drain { ByteBuffer(bytes: $0) }
        try await writer.write(piece)
    }

    /// Writes `key` and an array of every item of `pages`, each written by `item`, sending each
    /// full piece after a page.
    static func array<Item, Position>(
        _ key: StaticString, _ pages: KeysetPages<Item, Position>, _ json: inout JSONWriter, _ writer: inout any ResponseBodyWriter,
        item: (Item, inout JSONWriter) async throws -> Void
    ) async throws {
        json.key(key)
        json.beginArray()
        for try await page in pages {
            for element in page { try await item(element, &json) }
            try await send(&json, &writer)
        }
        json.endArray()
    }
}
