import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Trips

/// `/v1/trips…` and `/v1/me/trips`: group outings with invitees who answer, a shared album,
/// everyone's busy times and the meeting times that suit them.
///
/// Who may do what: the author edits and deletes; invitees read, answer, give their busy
/// times and add photos; a photo is removed by the author or whoever added it. Friends of the
/// author read a `friends` trip, anyone a `public` one; to everyone else it does not exist.
extension GeoQueryService {
    static let tripFields = ["title", "place", "start", "end", "time_zone", "notes", "budget", "visibility", "invitees"]

    func addTripRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.cancelling(configuration.requestTimeout)
        groups.creators.route(.post, "/v1/trips", in: &table, bound: bound) { try await createTrip($0, $1) }
        groups.viewers.route(.get, "/v1/trips/{id}", in: &table, bound: bound) { try await showTrip($0, $1) }
        groups.members.route(.patch, "/v1/trips/{id}", in: &table, bound: bound) { try await changeTrip($0, $1) }
        groups.members.route(.delete, "/v1/trips/{id}", in: &table, bound: bound) { try await deleteTrip($0, $1) }
        groups.members.route(.put, "/v1/trips/{id}/rsvp", in: &table, bound: bound) { try await answerTripInvitation($0, $1) }
        groups.members.route(.get, "/v1/me/trips", in: &table, bound: bound) { try await listMyTrips($0, $1) }
        groups.creators.route(.post, "/v1/trips/{id}/photos", in: &table, bound: bound) { try await addTripPhoto($0, $1) }
        groups.members.route(.delete, "/v1/trips/{id}/photos/{photoId}", in: &table, bound: bound) { try await removeTripPhoto($0, $1) }

        addMeetingTimeRoutes(to: router, table: &table)
    }

    /// `POST /v1/trips`.
    func createTrip(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 65_536, allowed: Self.tripFields)
        let (place, zone) = try await placeAndTimeZone(body, "place", viewer: user.username)
        let (start, end, starts, ends) = try Self.tripTimes(
            try body.requiredString("start", maxLength: 40, expected: Self.instantExpected("2027-06-12T18:00:00+02:00")),
            try body.requiredString("end", maxLength: 40, expected: Self.instantExpected("2027-06-12T23:00:00+02:00")))
        let invitees = try await inviteeNames(body, author: user.username) ?? []
        let document = TripDocument(
            title: try Self.title(body, required: true) ?? "", place: place, start: start, end: end,
            timeZone: zone, notes: try body.string("notes", maxLength: 10_000), budget: try Self.money(body, "budget"))
        let now = Date()
        let record = PlanRecord(
            id: Self.newPlanID(.trip), kind: .trip, owner: user.username,
            visibility: try Self.planVisibility(body) ?? .private,
            members: invitees.map { PlanMember(username: $0, role: .invitee, answer: .invited) },
            startsAt: starts, endsAt: ends, createdAt: now, updatedAt: now, document: try Self.encodeDocument(document))
        try await requireUserData().createPlan(record)
        for invitee in invitees {
            await notify(
                invitee, "trip_invitation", ["from": user.username, "trip": record.id, "title": document.title],
                id: "trip_invitation:" + record.id)
        }
        var response = Self.planResponse(try await tripJSON(record, access: .own), revision: record.revision, status: .created)
        response.headers[.location] = "/v1/trips/\(record.id)"
        return response
    }

    /// `GET /v1/trips/{id}`.
    func showTrip(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let (record, access) = try await plan(try planID(context, .trip), .trip, viewer: context.identity?.username)
        return Self.planResponse(try await tripJSON(record, access: access), revision: record.revision)
    }

    /// `PATCH /v1/trips/{id}`.
    func changeTrip(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 65_536, allowed: Self.tripFields)
        let id = try planID(context, .trip)
        // Only the author changes a trip: asked first, so that nobody else learns from the
        // answer whether the trip, its place or its invitees exist.
        let before = try await plan(id, .trip, viewer: user.username, needs: .own, action: "change").0
        let title = try Self.title(body, required: false)
        let place = try await location(body, "place", viewer: user.username)
        let zone = try Self.timeZoneName(body)
        let startText = try body.string("start", maxLength: 40), endText = try body.string("end", maxLength: 40)
        let given = Set(body.members.keys)
        let notes = try body.string("notes", maxLength: 10_000), budget = try Self.money(body, "budget")
        let visibility = try Self.planVisibility(body)
        let invitees = try await inviteeNames(body, author: before.owner)
        let (record, access) = try await changePlan(id, .trip, user: user.username, needs: .own, request: request) { record in
            var document = try Self.decodeDocument(TripDocument.self, record)
            if let title { document.title = title }
            if let place { document.place = place }
            if let zone { document.timeZone = zone }
            if given.contains("notes") { document.notes = notes }
            if given.contains("budget") { document.budget = budget }
            if startText != nil || endText != nil {
                let (start, end, starts, ends) = try Self.tripTimes(startText ?? document.start, endText ?? document.end)
                (document.start, document.end, record.startsAt, record.endsAt) = (start, end, starts, ends)
            }
            if let visibility { record.visibility = visibility }
            if let invitees {
                // Those still invited keep their answers; new ones are invited.
                record.members = invitees.map { record.member($0) ?? PlanMember(username: $0, role: .invitee, answer: .invited) }
            }
            record.document = try Self.encodeDocument(document)
        }
        for invitee in record.members.map(\.username) where before.member(invitee) == nil {
            // Once per trip: inviting, removing and inviting again does not notify again.
            await notify(invitee, "trip_invitation", ["from": user.username, "trip": record.id], id: "trip_invitation:" + record.id)
        }
        return Self.planResponse(try await tripJSON(record, access: access), revision: record.revision)
    }

    /// `DELETE /v1/trips/{id}`.
    func deleteTrip(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let (record, _) = try await plan(try planID(context, .trip), .trip, viewer: user.username, needs: .own, action: "delete")
        try await removePhotoFiles(try await requireUserData().deletePlan(id: record.id) ?? [])
        return Response(status: .noContent)
    }

    /// `PUT /v1/trips/{id}/rsvp`.
    func answerTripInvitation(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 1_024, allowed: ["answer"])
        let text = try body.requiredString("answer", maxLength: 20, expected: "accepted, declined or maybe")
        guard let answer = PlanAnswer(rawValue: text), answer != .invited else {
            throw APIProblem.badRequest("answer '\(text)' is invalid: use accepted, declined or maybe")
        }
        let id = try planID(context, .trip)
        let (current, _) = try await plan(id, .trip, viewer: user.username)
        guard current.member(user.username)?.role == .invitee else {
            throw APIProblem(
                .forbidden,
                user.username == current.owner
                    ? "you are the author of trip \(id): only invitees answer"
                    : "you are not invited to trip \(id): only invitees answer")
        }
        let (record, access) = try await changePlan(id, .trip, user: user.username, needs: .read, request: request) { record in
            guard let index = record.members.firstIndex(where: { $0.username == user.username }) else {
                throw APIProblem(.forbidden, "you are no longer invited to trip \(id)")
            }
            record.members[index].answer = answer
        }
        await notify(record.owner, "trip_answer", ["from": user.username, "trip": record.id, "answer": answer.rawValue])
        return Self.planResponse(try await tripJSON(record, access: access), revision: record.revision)
    }

    /// `GET /v1/me/trips`.
    func listMyTrips(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        return try await planList(request, kind: .trip, user: user.username)
    }

    /// `POST /v1/trips/{id}/photos`.
    func addTripPhoto(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let (record, _) = try await plan(try planID(context, .trip), .trip, viewer: user.username)
        guard Self.isAttendee(user.username, of: record) else {
            throw APIProblem(.forbidden, "only the author and invitees who have not declined add photos to trip \(record.id)")
        }
        let (photo, added) = try await storePhoto(request, owner: user.username) { photo in
            try await requireUserData().addAlbumPhoto(AlbumPhoto(photoID: photo.id, uploader: user.username, addedAt: Date()), to: record.id)
        }
        let item = AlbumPhoto(photoID: photo.id, uploader: user.username, addedAt: Date(), width: photo.width, height: photo.height)
        return .json(.object(Self.albumPhotoMembers(item) + [("added", .bool(added))]), status: added ? .created : .ok)
    }

    /// `DELETE /v1/trips/{id}/photos/{photoId}`.
    func removeTripPhoto(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let (record, _) = try await plan(try planID(context, .trip), .trip, viewer: user.username)
        let photoID = try context.parameters.require("photoId")
        let album = try await requireUserData().album(of: record.id)
        guard let entry = album.first(where: { $0.photoID == photoID }) else {
            throw APIProblem(.notFound, "photo \(photoID.prefix(64)) is not in the album of trip \(record.id)")
        }
        guard user.username == record.owner || user.username == entry.uploader else {
            throw APIProblem(.forbidden, "only the trip's author or the photo's uploader removes it")
        }
        try await removePhotoFiles(try await requireUserData().removeAlbumPhoto(photoID, from: record.id) ?? [])
        return Response(status: .noContent)
    }

    /// Owner, or an invitee who has not declined.
    static func isAttendee(_ username: String, of record: PlanRecord) -> Bool {
        username == record.owner || (record.member(username).map { $0.role == .invitee && $0.answer != .declined } ?? false)
    }

    /// The `invitees` member: existing usernames, not the author, at most 100; nil when absent.
    func inviteeNames(_ body: JSONBody, author: String) async throws -> [String]? {
        guard let names = try body.strings("invitees", maxCount: 100, maxLength: 30) else { return nil }
        var found: [String] = []
        for name in names {
            let username = try await existingUser(name, reachableBy: author)
            guard username != author else { throw APIProblem.badRequest("you are the trip's author: do not invite yourself") }
            if !found.contains(username) { found.append(username) }
        }
        return found.sorted()
    }

    /// Start and end as given, and as instants; 400 unless both are RFC 3339 and in order.
    static func tripTimes(_ start: String, _ end: String) throws -> (String, String, Date, Date) {
        guard let starts = Self.instant(start) else {
            throw APIProblem.badRequest(
                "start '\(start.prefix(40))' is invalid: give an RFC 3339 time with an offset, e.g. 2027-06-12T18:00:00+02:00")
        }
        guard let ends = Self.instant(end) else {
            throw APIProblem.badRequest("end '\(end.prefix(40))' is invalid: give an RFC 3339 time with an offset, e.g. 2027-06-12T23:00:00+02:00")
        }
        guard starts <= ends else { throw APIProblem.badRequest("end \(end) is before start \(start)") }
        return (start, end, starts, ends)
    }

    /// A photo of a trip's album: the photo object, who added it and when (`photo_id` repeats
    /// `id` for clients written before 0.3; it goes in 0.4).
    static func albumPhotoMembers(_ photo: AlbumPhoto) -> [(String, OrderedJSON)] {
        photoCore(id: photo.photoID, width: photo.width, height: photo.height) + [
            ("uploader", .string(photo.uploader)), ("added_at", Self.timestampJSON(photo.addedAt)), ("photo_id", .string(photo.photoID)),
        ]
    }

    func tripJSON(_ record: PlanRecord, access: PlanAccess?) async throws -> OrderedJSON {
        let document = try Self.decodeDocument(TripDocument.self, record)
        var members = Self.planHeader(record, access: access)
        members += [
            ("title", .string(document.title)), ("place", Self.locationJSON(document.place)), ("start", .string(document.start)),
            ("end", .string(document.end)), ("time_zone", .string(document.timeZone)), ("notes", .optional(document.notes)),
            ("budget", Self.moneyJSON(document.budget)),
        ]
        // Who is invited and the album are for the trip's people, not a link's holder.
        if access != nil {
            members.append(
                (
                    "invitees",
                    .array(
                        record.members.map {
                            .object([("username", .string($0.username)), ("answer", .string(($0.answer ?? .invited).rawValue))])
                        })
                ))
            let album = try await requireUserData().album(of: record.id)
            members.append(
                (
                    "album",
                    .array(
                        album.map { .object(Self.albumPhotoMembers($0)) })
                ))
        }
        return .object(members)
    }

    /// `GET /v1/itineraries` and `/v1/me/trips`: the user's own and those they are on, by start.
    func planList(_ request: Request, kind: PlanKind, user: String) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["when", "limit", "cursor"])
        let limit = try pageLimit(parameters)
        let now = Date()
        let window: PlanWindow
        switch try parameters.single("when") {
        case nil, "all": window = .all
        case "upcoming": window = .upcoming(now)
        case "past": window = .past(now)
        case let other?: throw APIProblem.badRequest("when '\(other.prefix(20))' is invalid: use upcoming, past or all")
        }
        let after = try ListCursor.position(request, parameters).map { text -> PlanListPosition in
            let parts = text.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let seconds = Double(parts[0]), seconds.isFinite else {
                throw APIProblem.badRequest("cursor '\(text.prefix(60))' is invalid: pass next_cursor of the previous page")
            }
            return PlanListPosition(startsAt: Date(timeIntervalSince1970: seconds), id: String(parts[1]))
        }
        let store = try requireUserData()
        let found = try await store.plans(of: kind, involving: user, window: window, after: after, limit: limit + 1)
        let page = Array(found.prefix(limit))
        var items: [OrderedJSON] = []
        for record in page {
            let access = PlanAccess.of(user, to: record, isFriendOfOwner: false)
            items.append(kind == .itinerary ? try Self.itineraryJSON(record, access: access) : try await tripJSON(record, access: access))
        }
        let next = found.count > limit ? page.last.map { ListCursor.encode("\($0.startsAt.timeIntervalSince1970)_\($0.id)", for: request) } : nil
        return .json(
            .object([
                ("count", .int(page.count)), (kind == .itinerary ? "itineraries" : "trips", .array(items)),
                ("next_cursor", .optional(next)),
            ]))
    }
}
