import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Trips

/// `/v1/itineraries…`: itineraries with transport, lodging and stops by day, collaborators,
/// costs, a map view, and the ordering of a day.
///
/// Who may do what: the owner everything; editors change what the itinerary holds (not its
/// visibility, collaborators or links); viewers, the owner's friends on a `friends` itinerary
/// and anyone on a `public` one read it. To anyone else it does not exist (404).
extension GeoQueryService {
    static let itineraryFields = [
        "title", "destination", "start_date", "end_date", "time_zone", "notes", "budget", "visibility",
        "transport", "lodging", "stops",
    ]
    static let stopFields = ["id", "location", "day", "fixed_start", "duration_minutes", "notes", "price"]

    func addItineraryRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        // Resolving a provider's place by id is network work: raced against the request's time.
        let bound = RequestBound.cancelling(configuration.requestTimeout)
        groups.creators.route(.post, "/v1/itineraries", in: &table, bound: bound) { try await createItinerary($0, $1) }
        groups.members.route(.get, "/v1/itineraries", in: &table, bound: bound) { try await listItineraries($0, $1) }
        groups.viewers.route(.get, "/v1/itineraries/{id}", in: &table, bound: bound) { try await showItinerary($0, $1) }
        groups.members.route(.patch, "/v1/itineraries/{id}", in: &table, bound: bound) { try await changeItinerary($0, $1) }
        groups.members.route(.delete, "/v1/itineraries/{id}", in: &table, bound: bound) { try await deleteItinerary($0, $1) }

        // One call adds a place (a favourite, a gem, a place of the index, a point) to a day.
        groups.members.route(.post, "/v1/itineraries/{id}/stops", in: &table, bound: bound) { try await addItineraryStop($0, $1) }
        groups.members.route(.put, "/v1/itineraries/{id}/collaborators/{username}", in: &table, bound: bound) { try await addCollaborator($0, $1) }
        groups.members.route(.delete, "/v1/itineraries/{id}/collaborators/{username}", in: &table, bound: bound) {
            try await removeCollaborator($0, $1)
        }

        addDayOptimizeRoute(to: router, table: &table)
    }

    /// `POST /v1/itineraries`.
    func createItinerary(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 262_144, allowed: Self.itineraryFields)
        let (destination, zone) = try await placeAndTimeZone(body, "destination", viewer: user.username)
        var document = ItineraryDocument(
            title: try Self.title(body, required: true) ?? "", destination: destination,
            startDate: try body.requiredString("start_date", maxLength: 10, expected: "a date YYYY-MM-DD"),
            endDate: try body.requiredString("end_date", maxLength: 10, expected: "a date YYYY-MM-DD"), timeZone: zone)
        try await applyItinerary(body, to: &document, viewer: user.username)
        let now = Date()
        let (starts, ends) = try Self.itineraryInstants(document)
        let record = PlanRecord(
            id: Self.newPlanID(.itinerary), kind: .itinerary, owner: user.username,
            visibility: try Self.planVisibility(body) ?? .private, startsAt: starts, endsAt: ends,
            createdAt: now, updatedAt: now, document: try Self.encodeDocument(document))
        try await requireUserData().createPlan(record)
        await countActivity(.planStop, Array(Set(document.stops.compactMap(\.location.placeID))).sorted())
        var response = Self.planResponse(try Self.itineraryJSON(record, access: .own), revision: record.revision, status: .created)
        response.headers[.location] = "/v1/itineraries/\(record.id)"
        return response
    }

    /// `GET /v1/itineraries`.
    func listItineraries(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        return try await planList(request, kind: .itinerary, user: user.username)
    }

    /// `GET /v1/itineraries/{id}`.
    func showItinerary(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["format"])
        let (record, access) = try await plan(try planID(context, .itinerary), .itinerary, viewer: context.identity?.username)
        return try Self.itineraryAnswer(record, access: access, format: try parameters.single("format"))
    }

    /// `PATCH /v1/itineraries/{id}`.
    func changeItinerary(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 262_144, allowed: Self.itineraryFields)
        let id = try planID(context, .itinerary)
        let visibility = try Self.planVisibility(body)
        // Everything is read and places resolved once, before the read-change-write loop.
        let given = Set(body.members.keys)
        let title = try Self.title(body, required: false)
        let startDate = try body.string("start_date", maxLength: 10), endDate = try body.string("end_date", maxLength: 10)
        let zone = try Self.timeZoneName(body)
        let destination = try await location(body, "destination", viewer: user.username)
        var resolved = ItineraryDocument(title: "", destination: PlanLocation(), startDate: "", endDate: "", timeZone: "")
        try await applyItinerary(body, to: &resolved, viewer: user.username, checkDays: false)
        let patch = resolved
        let needs: PlanAccess = visibility == nil ? .edit : .own
        let (record, access) = try await changePlan(
            id, .itinerary, user: user.username, needs: needs, request: request,
            action: visibility == nil ? "change" : "change the visibility of"
        ) { record in
            var document = try Self.decodeDocument(ItineraryDocument.self, record)
            if let title { document.title = title }
            if let destination { document.destination = destination }
            if let startDate { document.startDate = startDate }
            if let endDate { document.endDate = endDate }
            if let zone { document.timeZone = zone }
            if given.contains("notes") { document.notes = patch.notes }
            if given.contains("budget") { document.budget = patch.budget }
            if given.contains("transport") { document.transport = patch.transport }
            if given.contains("lodging") { document.lodging = patch.lodging }
            if given.contains("stops") { document.stops = patch.stops }
            if let visibility { record.visibility = visibility }
            (record.startsAt, record.endsAt) = try Self.itineraryInstants(document)
            record.document = try Self.encodeDocument(document)
        }
        return Self.planResponse(try Self.itineraryJSON(record, access: access), revision: record.revision)
    }

    /// `DELETE /v1/itineraries/{id}`.
    func deleteItinerary(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let (record, _) = try await plan(try planID(context, .itinerary), .itinerary, viewer: user.username, needs: .own, action: "delete")
        try await removePhotoFiles(try await requireUserData().deletePlan(id: record.id) ?? [])
        return Response(status: .noContent)
    }

    /// `POST /v1/itineraries/{id}/stops`.
    func addItineraryStop(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 16_384, allowed: Self.stopFields.filter { $0 != "id" } + ["place_id"])
        let id = try planID(context, .itinerary)
        let added: ItineraryStop
        if let text = try body.string("place_id", maxLength: 300) {
            guard !body.has("location") else { throw APIProblem.badRequest("give 'place_id' or 'location', not both") }
            let placeBody = JSONBody(members: ["place_id": text])
            added = try await parseStop(body, location: try await location(placeBody, field: "place_id", viewer: user.username))
        } else {
            added = try await parseStop(body, location: nil, viewer: user.username)
        }
        let (record, access) = try await changePlan(id, .itinerary, user: user.username, needs: .edit, request: request) { record in
            var document = try Self.decodeDocument(ItineraryDocument.self, record)
            guard document.stops.count < 500 else { throw APIProblem.badRequest("an itinerary holds at most 500 stops") }
            document.stops.append(added)
            try Self.checkDays(document)
            record.document = try Self.encodeDocument(document)
        }
        // A place counts once per itinerary: adding it again does not make it more popular.
        if let place = added.location.placeID,
            (try? Self.decodeDocument(ItineraryDocument.self, record))?.stops.filter({ $0.location.placeID == place }).count == 1
        {
            await countActivity(.planStop, [place])
        }
        var response = Self.planResponse(try Self.itineraryJSON(record, access: access), revision: record.revision, status: .created)
        response.headers[.location] = "/v1/itineraries/\(record.id)"
        return response
    }

    /// `PUT /v1/itineraries/{id}/collaborators/{username}`.
    func addCollaborator(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try await JSONBody(request, limit: 1_024, allowed: ["role"])
        let roleText = try body.requiredString("role", maxLength: 20, expected: "editor or viewer")
        guard let role = PlanRole(rawValue: roleText), role != .invitee else {
            throw APIProblem.badRequest("role '\(roleText)' is invalid: use editor or viewer")
        }
        let collaborator = try await existingUser(try context.parameters.require("username"), reachableBy: user.username)
        let id = try planID(context, .itinerary)
        let (record, access) = try await changePlan(
            id, .itinerary, user: user.username, needs: .own, request: request,
            action: "change the collaborators of"
        ) { record in
            guard collaborator != record.owner else { throw APIProblem.badRequest("you own this itinerary: add someone else") }
            record.members.removeAll { $0.username == collaborator }
            record.members.append(PlanMember(username: collaborator, role: role))
            record.members.sort { $0.username < $1.username }
        }
        return Self.planResponse(try Self.itineraryJSON(record, access: access), revision: record.revision)
    }

    /// `DELETE /v1/itineraries/{id}/collaborators/{username}`.
    func removeCollaborator(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let collaborator = try context.parameters.require("username").lowercased()
        let id = try planID(context, .itinerary)
        // A collaborator may leave; only the owner removes others.
        let needs: PlanAccess = collaborator == user.username ? .read : .own
        _ = try await changePlan(
            id, .itinerary, user: user.username, needs: needs, request: request,
            action: "change the collaborators of"
        ) { record in
            guard record.member(collaborator) != nil else {
                throw APIProblem(.notFound, "\(collaborator) is not a collaborator of itinerary \(id)")
            }
            record.members.removeAll { $0.username == collaborator }
        }
        return Response(status: .noContent)
    }

    /// Reads the optional members of an itinerary body into `document` (places resolved).
    func applyItinerary(_ body: JSONBody, to document: inout ItineraryDocument, viewer: String, checkDays: Bool = true) async throws {
        if body.has("notes") { document.notes = try body.string("notes", maxLength: 10_000).flatMap { $0.isEmpty ? nil : $0 } }
        if body.has("budget") { document.budget = try Self.money(body, "budget") }
        if let legs = try body.objects(
            "transport", allowed: ["id", "mode", "from", "to", "departure", "arrival", "reference", "price"],
            maxCount: 100)
        {
            var parsed: [TransportLeg] = []
            for (index, leg) in legs.enumerated() {
                let field = "transport[\(index)]"
                let mode = try leg.requiredString("mode", maxLength: 20, expected: TransportLeg.modes.joined(separator: ", "))
                guard TransportLeg.modes.contains(mode) else {
                    throw APIProblem.badRequest("\(field).mode '\(mode)' is invalid: use \(TransportLeg.modes.joined(separator: ", "))")
                }
                guard let from = try leg.object("from", allowed: ["place_id", "lat", "lon", "name"]),
                    let to = try leg.object("to", allowed: ["place_id", "lat", "lon", "name"])
                else {
                    throw APIProblem.badRequest("\(field) needs 'from' and 'to' locations")
                }
                let departure = try leg.requiredString("departure", maxLength: 40, expected: Self.instantExpected("2027-05-02T09:40:00+02:00")),
                    arrival = try leg.requiredString("arrival", maxLength: 40, expected: Self.instantExpected("2027-05-02T13:05:00+02:00"))
                func instant(_ text: String, _ name: String) throws -> Date {
                    guard let date = Self.instant(text) else {
                        throw APIProblem.badRequest(
                            "\(leg.qualified(name)) '\(text)' is invalid: give \(Self.instantExpected("2027-05-02T09:40:00+02:00"))")
                    }
                    return date
                }
                let leaves = try instant(departure, "departure"), arrives = try instant(arrival, "arrival")
                guard arrives >= leaves else { throw APIProblem.badRequest("\(field) arrives (\(arrival)) before it departs (\(departure))") }
                parsed.append(
                    TransportLeg(
                        id: try leg.string("id", maxLength: 40) ?? "t_" + Self.shortID(), mode: mode,
                        from: try await location(from, field: "\(field).from", viewer: viewer),
                        to: try await location(to, field: "\(field).to", viewer: viewer),
                        departure: departure, arrival: arrival, reference: try leg.string("reference", maxLength: 100),
                        price: try Self.money(leg, "price")))
            }
            document.transport = parsed
        }
        if let stays = try body.objects("lodging", allowed: ["id", "name", "location", "check_in", "check_out", "price"], maxCount: 100) {
            var parsed: [Lodging] = []
            for (index, stay) in stays.enumerated() {
                let field = "lodging[\(index)]"
                guard let place = try stay.object("location", allowed: ["place_id", "lat", "lon", "name"]) else {
                    throw APIProblem.badRequest("\(field) needs a 'location'")
                }
                let checkIn = try stay.requiredString("check_in", maxLength: 10), checkOut = try stay.requiredString("check_out", maxLength: 10)
                guard let inDate = LocalDate(checkIn), let outDate = LocalDate(checkOut), inDate < outDate else {
                    throw APIProblem.badRequest("\(field) check_in and check_out must be dates YYYY-MM-DD, check_out after check_in")
                }
                parsed.append(
                    Lodging(
                        id: try stay.string("id", maxLength: 40) ?? "l_" + Self.shortID(),
                        name: try stay.requiredString("name", maxLength: 200),
                        location: try await location(place, field: "\(field).location", viewer: viewer),
                        checkIn: checkIn, checkOut: checkOut, price: try Self.money(stay, "price")))
            }
            document.lodging = parsed
        }
        if let stops = try body.objects("stops", allowed: Self.stopFields, maxCount: 500) {
            var parsed: [ItineraryStop] = []
            for stop in stops { parsed.append(try await parseStop(stop, location: nil, viewer: viewer)) }
            guard Set(parsed.map(\.id)).count == parsed.count else { throw APIProblem.badRequest("stops have duplicate ids") }
            document.stops = parsed
        }
        if checkDays { try Self.checkDays(document) }
    }

    func parseStop(_ body: JSONBody, location given: PlanLocation?, viewer: String? = nil) async throws -> ItineraryStop {
        let place: PlanLocation
        if let given {
            place = given
        } else {
            guard let resolved = try await location(body, "location", viewer: viewer) else {
                throw APIProblem.badRequest("a stop needs a 'location' ({\"place_id\"} or {\"lat\", \"lon\"}) or a 'place_id'")
            }
            place = resolved
        }
        guard let day = try body.int("day", in: 1...366) else { throw APIProblem.badRequest("a stop needs a 'day' (1 is the first day)") }
        let fixed = try body.string("fixed_start", maxLength: 5)
        if let fixed, DayPlan.minutes(fixed) == nil {
            throw APIProblem.badRequest("fixed_start '\(fixed)' is invalid: give a local time HH:MM, e.g. 14:30")
        }
        return ItineraryStop(
            id: try body.string("id", maxLength: 40) ?? "s_" + Self.shortID(), location: place, day: day,
            fixedStart: fixed, durationMinutes: try body.int("duration_minutes", in: 1...1_440) ?? 60,
            notes: try body.string("notes", maxLength: 2_000), price: try Self.money(body, "price"))
    }

    static func shortID() -> String { String(newGemID().prefix(10)) }

    /// Dates valid, in order, at most a year; every stop on one of the days.
    static func checkDays(_ document: ItineraryDocument) throws {
        guard let start = LocalDate(document.startDate), let end = LocalDate(document.endDate) else {
            throw APIProblem.badRequest("start_date and end_date must be dates YYYY-MM-DD (got '\(document.startDate)' and '\(document.endDate)')")
        }
        guard start <= end, end.days(since: start) < 366 else {
            throw APIProblem.badRequest("end_date \(end) must be on or after start_date \(start), and at most 366 days later")
        }
        if let stray = document.stops.first(where: { $0.day > document.dayCount }) {
            throw APIProblem.badRequest("stop \(stray.id) is on day \(stray.day), but the itinerary has \(document.dayCount) days")
        }
    }

    /// The itinerary's first midnight and last midnight after it, in its time zone.
    static func itineraryInstants(_ document: ItineraryDocument) throws -> (Date, Date) {
        try checkDays(document)
        guard let zone = TimeZone(identifier: document.timeZone), let start = LocalDate(document.startDate),
            let end = LocalDate(document.endDate), let starts = start.instant(minute: 0, in: zone),
            let ends = end.adding(days: 1).instant(minute: 0, in: zone)
        else {
            throw APIProblem.badRequest("the dates cannot be placed in time zone \(document.timeZone)")
        }
        return (starts, ends)
    }

    // MARK: - Answers

    static func itineraryAnswer(_ record: PlanRecord, access: PlanAccess?, format: String?) throws -> Response {
        switch format {
        case nil, "json": return planResponse(try itineraryJSON(record, access: access), revision: record.revision)
        case "geojson":
            let document = try decodeDocument(ItineraryDocument.self, record)
            var response = Response.json(ItineraryGeoJSON.featureCollection(document, id: record.id))
            response.headers[.contentType] = "application/geo+json"
            return response
        case let other?:
            throw APIProblem.badRequest("format '\(other)' is invalid: use json or geojson")
        }
    }

    static func itineraryJSON(_ record: PlanRecord, access: PlanAccess?) throws -> OrderedJSON {
        let document = try decodeDocument(ItineraryDocument.self, record)
        let cost = CostSummary(document)
        func amounts(_ list: [Money]?) -> OrderedJSON { .array((list ?? []).map(moneyJSON)) }
        var members = planHeader(record, access: access)
        members += [
            ("title", .string(document.title)), ("destination", locationJSON(document.destination)),
            ("start_date", .string(document.startDate)), ("end_date", .string(document.endDate)),
            ("days", .int(document.dayCount)), ("time_zone", .string(document.timeZone)), ("notes", .optional(document.notes)),
            ("budget", moneyJSON(document.budget)),
        ]
        // Who else is on it is for its members; a share link's holder does not see it.
        if access != nil {
            members.append(
                (
                    "collaborators",
                    .array(
                        record.members.map {
                            .object([("username", .string($0.username)), ("role", .string($0.role.rawValue))])
                        })
                ))
        }
        members += [
            (
                "transport",
                .array(
                    document.transport.map { leg in
                        .object([
                            ("id", .string(leg.id)), ("mode", .string(leg.mode)), ("from", locationJSON(leg.from)), ("to", locationJSON(leg.to)),
                            ("departure", .string(leg.departure)), ("arrival", .string(leg.arrival)), ("reference", .optional(leg.reference)),
                            ("price", moneyJSON(leg.price)),
                        ])
                    })
            ),
            (
                "lodging",
                .array(
                    document.lodging.map { stay in
                        .object([
                            ("id", .string(stay.id)), ("name", .string(stay.name)), ("location", locationJSON(stay.location)),
                            ("check_in", .string(stay.checkIn)), ("check_out", .string(stay.checkOut)), ("price", moneyJSON(stay.price)),
                        ])
                    })
            ),
            ("stops", .array(document.stops.map(stopJSON))),
            (
                "cost",
                .object([
                    ("transport", amounts(cost.byCategory[.transport])), ("lodging", amounts(cost.byCategory[.lodging])),
                    ("stops", amounts(cost.byCategory[.stops])), ("total", amounts(cost.total)), ("remaining", moneyJSON(cost.remaining)),
                    ("other_currencies", .array(cost.otherCurrencies.map(OrderedJSON.string))),
                ])
            ),
        ]
        return .object(members)
    }

    static func stopJSON(_ stop: ItineraryStop) -> OrderedJSON {
        .object([
            ("id", .string(stop.id)), ("location", locationJSON(stop.location)), ("day", .int(stop.day)),
            ("fixed_start", .optional(stop.fixedStart)), ("duration_minutes", .int(stop.durationMinutes)),
            ("notes", .optional(stop.notes)), ("price", moneyJSON(stop.price)),
        ])
    }
}

/// An itinerary for the map: each stop a numbered point, each day's order a line from the
/// night's lodging through the stops (to the next night's lodging). RFC 7946, longitude first.
enum ItineraryGeoJSON {
    static func featureCollection(_ document: ItineraryDocument, id: String) -> OrderedJSON {
        var features: [OrderedJSON] = []
        func point(_ coordinate: Coordinate) -> OrderedJSON {
            .object([("type", .string("Point")), ("coordinates", .array([.double(coordinate.longitude), .double(coordinate.latitude)]))])
        }
        for day in 1...max(1, document.dayCount) {
            let stops = document.stops.filter { $0.day == day }
            var line: [Coordinate] = []
            if let night = DayPlan.startLodging(document, day: day)?.location.coordinate { line.append(night) }
            for (number, stop) in stops.enumerated() {
                guard let coordinate = stop.location.coordinate else { continue }
                line.append(coordinate)
                features.append(
                    .object([
                        ("type", .string("Feature")), ("geometry", point(coordinate)),
                        (
                            "properties",
                            .object([
                                ("kind", .string("stop")), ("stop_id", .string(stop.id)), ("day", .int(day)),
                                ("number", .int(number + 1)), ("name", .optional(stop.location.name)),
                                ("fixed_start", .optional(stop.fixedStart)),
                            ])
                        ),
                    ]))
            }
            if let next = DayPlan.endLodging(document, day: day)?.location.coordinate, !stops.isEmpty {
                line.append(next)
            }
            if line.count >= 2 {
                features.append(
                    .object([
                        ("type", .string("Feature")),
                        (
                            "geometry",
                            .object([
                                ("type", .string("LineString")),
                                ("coordinates", .array(line.map { .array([.double($0.longitude), .double($0.latitude)]) })),
                            ])
                        ),
                        ("properties", .object([("kind", .string("day")), ("day", .int(day))])),
                    ]))
            }
        }
        for stay in document.lodging {
            guard let coordinate = stay.location.coordinate else { continue }
            features.append(
                .object([
                    ("type", .string("Feature")), ("geometry", point(coordinate)),
                    (
                        "properties",
                        .object([
                            ("kind", .string("lodging")), ("name", .string(stay.name)),
                            ("check_in", .string(stay.checkIn)), ("check_out", .string(stay.checkOut)),
                        ])
                    ),
                ]))
        }
        return .object([
            ("type", .string("FeatureCollection")), ("itinerary", .string(id)), ("title", .string(document.title)),
            ("features", .array(features)),
        ])
    }
}
