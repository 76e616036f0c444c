import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Social
import Trips

/// What itinerary and trip routes share: loading a plan with the viewer's access (404 for
/// those who may not see it, 403 for those who see it but may not do this), writing it back
/// without losing a concurrent edit, places by id or point, money, and notifications.
extension GeoQueryService {
    /// How often a plan write is tried again when others wrote it in between.
    static let planWriteAttempts = 12

    static func noun(_ kind: PlanKind) -> String { kind == .itinerary ? "itinerary" : "trip" }

    /// 96 random bits, hex, after a prefix naming the kind.
    static func newPlanID(_ kind: PlanKind) -> String { (kind == .itinerary ? "it_" : "tr_") + newGemID() }

    func planID(_ context: some RequestContext, _ kind: PlanKind) throws -> String {
        let raw = try context.parameters.require("id")
        let prefix = kind == .itinerary ? "it_" : "tr_"
        guard raw.hasPrefix(prefix), raw.count == 27, raw.dropFirst(3).allSatisfy(\.isHexDigit) else {
            throw APIProblem.badRequest(
                "'\(raw.prefix(60))' is not \(kind == .itinerary ? "an itinerary" : "a trip") id: "
                    + "ids look like \(prefix)0123456789abcdef01234567")
        }
        return raw
    }

    /// The plan and what `viewer` may do with it; 404 when they may not see it (as for a plan
    /// that does not exist), 403 when they may see it but need more than `needed`.
    func plan(
        _ id: String, _ kind: PlanKind, viewer: String?, needs needed: PlanAccess = .read,
        action: String = "change"
    ) async throws -> (PlanRecord, PlanAccess) {
        let store = try requireUserData()
        guard let plan = try await store.plan(id: id), plan.kind == kind else {
            throw APIProblem(.notFound, "no \(Self.noun(kind)) with id \(id)")
        }
        var isFriend = false
        if plan.visibility == .friends, let viewer, viewer != plan.owner, plan.member(viewer) == nil {
            isFriend = try await store.areFriends(viewer, plan.owner)
        }
        let access = PlanAccess.of(viewer, to: plan, isFriendOfOwner: isFriend)
        guard access > .none else { throw APIProblem(.notFound, "no \(Self.noun(kind)) with id \(id)") }
        guard access >= needed else {
            let who = needed == .own ? "only its owner" : "only its owner and editors"
            throw APIProblem(.forbidden, "\(who) may \(action) \(Self.noun(kind)) \(id)")
        }
        return (plan, access)
    }

    /// Reads, changes and writes a plan, again from a fresh read when someone else wrote it in
    /// between (up to ``planWriteAttempts`` times, after a short random pause that grows), so no
    /// edit is lost. An `If-Match` header with an older revision is answered 412.
    func changePlan(
        _ id: String, _ kind: PlanKind, user: String, needs needed: PlanAccess, request: Request,
        action: String = "change",
        _ change: @Sendable (inout PlanRecord) async throws -> Void
    ) async throws -> (PlanRecord, PlanAccess) {
        let store = try requireUserData()
        let expected = try Self.ifMatchRevision(request)
        for attempt in 1...Self.planWriteAttempts {
            var (record, access) = try await plan(id, kind, viewer: user, needs: needed, action: action)
            if let expected, expected != record.revision {
                throw APIProblem(.preconditionFailed, "\(Self.noun(kind)) \(id) is at revision \(record.revision), not \(expected): read it again")
            }
            let revision = record.revision
            try await change(&record)
            record.updatedAt = Date()
            do {
                try await store.updatePlan(record, expectedRevision: revision)
                record.revision = revision + 1
                return (record, access)
            } catch UserDataError.conflict where attempt < Self.planWriteAttempts && expected == nil {
                // Apart, so the writers that collided do not collide again.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
                continue
            }
        }
        throw APIProblem(.conflict, "\(Self.noun(kind)) \(id) is being changed by others: try again")
    }

    /// The revision an `If-Match: "7"` header asks for.
    static func ifMatchRevision(_ request: Request) throws -> Int? {
        guard let header = request.headers[.ifMatch] else { return nil }
        let text = header.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "")
        guard text.hasPrefix("\""), text.hasSuffix("\""), text.count > 2, let revision = Int(text.dropFirst().dropLast()) else {
            throw APIProblem.badRequest("If-Match '\(header.prefix(40))' is invalid: send the ETag of the plan you read, e.g. \"3\"")
        }
        return revision
    }

    static func decodeDocument<T: Decodable>(_ type: T.Type, _ record: PlanRecord) throws -> T {
        do { return try JSONDecoder().decode(type, from: record.document) } catch {
            throw APIProblem(.internalServerError, "the stored \(noun(record.kind)) \(record.id) cannot be read")
        }
    }

    static func encodeDocument<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(value)
    }

    /// A location member: `{"place_id"}` (filled in from the index, or a gem the user may see),
    /// or `{"lat", "lon"}`, each with an optional `name`.
    /// The place a new plan is about (the body's `field`: a place id or a point, required) and
    /// the plan's time zone: the body's `time_zone`, else the place's.
    func placeAndTimeZone(_ body: JSONBody, _ field: String, viewer: String) async throws -> (PlanLocation, String) {
        guard let place = try await location(body, field, viewer: viewer) else {
            throw APIProblem.badRequest("field '\(field)' is required: {\"place_id\": …} or {\"lat\": …, \"lon\": …}")
        }
        if let named = try Self.timeZoneName(body) { return (place, named) }
        guard let zone = try await timeZone(of: place) else {
            throw APIProblem.badRequest("the \(field)'s time zone is unknown: give 'time_zone', e.g. Europe/Paris")
        }
        return (place, zone)
    }

    func location(_ body: JSONBody, _ name: String, viewer: String?) async throws -> PlanLocation? {
        guard let object = try body.object(name, allowed: ["place_id", "lat", "lon", "name"]) else { return nil }
        return try await location(object, field: name, viewer: viewer)
    }

    func location(_ object: JSONBody, field: String, viewer: String?) async throws -> PlanLocation {
        let givenName = try object.string("name", maxLength: 200)
        let latitude = try object.double("lat"), longitude = try object.double("lon")
        if (latitude == nil) != (longitude == nil) {
            throw APIProblem.badRequest("\(field) needs both 'lat' and 'lon' (degrees, WGS84)")
        }
        let point = try latitude.map { try Coordinate(latitude: $0, longitude: longitude ?? 0) }
        if let text = try object.string("place_id", maxLength: 300) {
            guard let id = try? PlaceID(text) else {
                throw APIProblem.badRequest("\(field).place_id '\(text.prefix(60))' is not a place id: ids look like osm:n123 or gem:…")
            }
            try Self.checkProviderID(id, field: "\(field).place_id:")
            if let place = try await searchIndex.place(id), try await mayOpen(place, viewer: viewer) {
                return PlanLocation(placeID: id.rawValue, coordinate: point ?? place.coordinate, name: givenName ?? place.name)
            }
            // A provider's place (a favourite from Yelp, Google…) is fetched from its provider.
            if point == nil, Self.providerSources.contains(id.source), let place = await providerPlace(id).place {
                return PlanLocation(placeID: id.rawValue, coordinate: place.coordinate, name: givenName ?? place.name)
            }
            guard let point else {
                throw APIProblem.badRequest("\(field).place_id '\(text)' is not in this service's index: give 'lat' and 'lon' with it")
            }
            return PlanLocation(placeID: id.rawValue, coordinate: point, name: givenName)
        }
        guard let point else { throw APIProblem.badRequest("\(field) needs 'place_id' or 'lat' and 'lon'") }
        return PlanLocation(coordinate: point, name: givenName)
    }

    /// `{"amount": 12.5, "currency": "EUR"}`.
    static func money(_ body: JSONBody, _ name: String) throws -> Money? {
        guard let object = try body.object(name, allowed: ["amount", "currency"]) else { return nil }
        guard let amount = try? object.double("amount"), amount >= 0, amount < 1e12 else {
            let given = object.members["amount"].map { JSONBody.describe($0) } ?? "missing"
            throw APIProblem.badRequest("\(object.qualified("amount")) is \(given); it must be a number from 0 to 1e12")
        }
        let currency = try object.requiredString("currency", maxLength: 10)
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw APIProblem.badRequest("\(object.qualified("currency")) '\(currency)' is invalid: use an ISO 4217 code such as EUR, USD or JPY")
        }
        // To 4 decimal places, the finest minor unit of any currency (ISO 4217), through the
        // shortest text of the double, so 12.1 stays 12.1 (not 12.0999…). Unrounded, an amount
        // such as 5e-289 is beyond Decimal's exponent and was stored as a number no reader takes.
        let rounded = (amount * 10_000).rounded() / 10_000
        return Money(amount: Decimal(string: "\(rounded)") ?? Decimal(rounded), currency: currency)
    }

    /// The IANA zone named, or nil when not given; 400 for an unknown name.
    static func timeZoneName(_ body: JSONBody) throws -> String? {
        guard let name = try body.string("time_zone", maxLength: 64) else { return nil }
        guard TimeZone(identifier: name) != nil else {
            throw APIProblem.badRequest("time_zone '\(name)' is not an IANA time zone, e.g. Europe/Paris or America/New_York")
        }
        return name
    }

    /// The time zone of a location: the place's own, else that of the nearest city in the index.
    func timeZone(of location: PlanLocation) async throws -> String? {
        if let text = location.placeID, let id = try? PlaceID(text), let zone = try await searchIndex.place(id)?.timeZone {
            return zone
        }
        guard let point = location.coordinate, let city = try? Category("city") else { return nil }
        let nearest = try await index.nearest(point, count: 5, maxDistance: nil, filter: PlaceFilter(categories: [city]))
        return nearest.lazy.compactMap(\.place.timeZone).first { TimeZone(identifier: $0) != nil }
    }

    /// Adds a notification (and sends it to the user's webhook, if any); a failure is logged,
    /// never fails the request that caused it.
    /// The person's settings decide: a kind they turned off is not made, and one they keep in
    /// the app only is not sent to their webhook.
    /// - Returns: whether it was made (false for an id the user already has, a kind turned
    ///   off, or a failure).
    @discardableResult
    func notify(_ username: String, _ kind: String, _ data: [String: String], id: String? = nil) async -> Bool {
        let notification = UserNotification(id: id ?? "n_" + Self.newGemID(), username: username, kind: kind, data: data, createdAt: Date())
        do {
            let store = try requireUserData()
            guard let account = try await store.user(named: username) else { return false }
            let channels = account.profile.notifications?.channels(for: kind) ?? Set(NotificationSettings.Channel.allCases)
            guard channels.contains(.inApp), try await store.addNotification(notification) else { return false }
            if channels.contains(.webhook) { deliverWebhook(notification, to: account) }
            return true
        } catch {
            logger.warning("could not notify \(username) of \(kind): \(error)")
            return false
        }
    }

    static func moneyJSON(_ money: Money?) -> OrderedJSON {
        guard let money else { return .null }
        // Through the decimal's text: NSDecimalNumber's doubleValue is not the nearest double
        // (12.3457 came out as 12.345700000000003).
        let amount = Double("\(money.amount)") ?? NSDecimalNumber(decimal: money.amount).doubleValue
        return .object([("amount", .double(amount)), ("currency", .string(money.currency))])
    }

    static func locationJSON(_ location: PlanLocation) -> OrderedJSON {
        .object([
            ("place_id", .optional(location.placeID)), ("lat", location.latitude.map(OrderedJSON.double) ?? .null),
            ("lon", location.longitude.map(OrderedJSON.double) ?? .null), ("name", .optional(location.name)),
        ])
    }

    /// An RFC 3339 instant with its offset (``FilterInput/instant(_:name:)``, as `open_at` reads
    /// it), nil when the text is not one.
    static func instant(_ text: String) -> Date? { try? FilterInput.instant(text, name: "") }

    /// What an instant member takes, for its errors: `an RFC 3339 time with an offset, e.g. …`.
    static func instantExpected(_ example: String) -> String { "an RFC 3339 time with an offset, e.g. \(example)" }

    static func timestampJSON(_ date: Date?) -> OrderedJSON { date.map { .string(Timestamp.iso8601($0)) } ?? .null }

    /// The plan's members and metadata every answer starts with.
    static func planHeader(_ record: PlanRecord, access: PlanAccess?) -> [(String, OrderedJSON)] {
        [
            ("id", .string(record.id)), ("kind", .string(noun(record.kind))), ("owner", .string(record.owner)),
            ("visibility", .string(record.visibility.rawValue)), ("revision", .int(record.revision)),
            ("created_at", timestampJSON(record.createdAt)), ("updated_at", timestampJSON(record.updatedAt)),
            ("your_access", .string(access.map(accessName) ?? "shared_link")),
        ]
    }

    static func accessName(_ access: PlanAccess) -> String {
        switch access {
        case .none: "none"
        case .read: "read"
        case .edit: "edit"
        case .own: "own"
        }
    }

    /// A plan answer with its revision as the ETag.
    static func planResponse(_ json: OrderedJSON, revision: Int, status: HTTPResponse.Status = .ok) -> Response {
        var response = Response.json(json, status: status)
        response.headers[.eTag] = "\"\(revision)\""
        return response
    }

    /// `visibility` of a plan body.
    static func planVisibility(_ body: JSONBody) throws -> PlanVisibility? {
        guard let text = try body.string("visibility", maxLength: 20) else { return nil }
        guard let visibility = PlanVisibility(rawValue: text) else {
            throw APIProblem.badRequest("visibility '\(text)' is invalid: use private, friends or public")
        }
        return visibility
    }

    /// A `title` that is not blank.
    static func title(_ body: JSONBody, required: Bool) throws -> String? {
        guard let text = try body.string("title", maxLength: 200) else {
            if required { throw APIProblem.badRequest("field 'title' is required") }
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw APIProblem.badRequest("title is empty: give it a title") }
        return trimmed
    }

    /// A username that has an account (404 otherwise).
    /// The stored form of an existing username that `asker` may reach: a user who blocked the
    /// asker, or whom the asker blocked, is answered as no user at all (404), so a block is
    /// not announced to the person blocked.
    func existingUser(_ name: String, reachableBy asker: String) async throws -> String {
        try await requireFriendService().existingUser(name, reachableBy: asker)
    }

    /// Friends and blocks over the user store; 503 on a service without one.
    func requireFriendService() throws -> FriendService {
        FriendService(store: try requireUserData(), notifier: ServiceNotifier(service: self), friendLimit: configuration.friendsPerAccount)
    }
}

/// The service's ``Notifier``: a notification is stored for `GET /v1/me/notifications` and
/// sent to the person's webhook (``GeoQueryService/notify(_:_:_:id:)``).
struct ServiceNotifier: Notifier {
    let service: GeoQueryService

    func notify(_ username: String, kind: String, data: [String: String], id: String?) async -> Bool {
        await service.notify(username, kind, data, id: id)
    }
}

extension JSONBody {
    /// A nested object whose members are all in `allowed`; nil when absent or null.
    func object(_ name: String, allowed: [String]) throws -> JSONBody? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        guard let object = value as? [String: Any] else {
            throw Self.mistyped(qualified(name), value, "a JSON object with \(allowed.joined(separator: ", "))")
        }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIProblem.badRequest("unknown field '\(qualified(name)).\(unknown)': the fields are \(allowed.joined(separator: ", "))")
        }
        return JSONBody(members: object, path: qualified(name) + ".")
    }

    /// An array of objects, each with members in `allowed`; nil when absent or null.
    func objects(_ name: String, allowed: [String], maxCount: Int) throws -> [JSONBody]? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        guard let list = value as? [Any] else { throw Self.mistyped(qualified(name), value, "an array of objects") }
        guard list.count <= maxCount else { throw APIProblem.badRequest("\(qualified(name)) has \(list.count) entries; give at most \(maxCount)") }
        return try list.enumerated().map { index, item in
            guard let object = item as? [String: Any] else {
                throw Self.mistyped("\(qualified(name))[\(index)]", item, "a JSON object with \(allowed.joined(separator: ", "))")
            }
            if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw APIProblem.badRequest(
                    "unknown field '\(qualified(name))[\(index)].\(unknown)': the fields are \(allowed.joined(separator: ", "))")
            }
            return JSONBody(members: object, path: "\(qualified(name))[\(index)].")
        }
    }

    /// `true` or `false`.
    func bool(_ name: String) throws -> Bool? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else {
            throw Self.mistyped(qualified(name), value, "true or false")
        }
        return number.boolValue
    }

    /// A whole number in `range`.
    func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = try double(name) else { return nil }
        guard value == value.rounded(), value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            throw Self.mistyped(qualified(name), members[name] ?? value, "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(value)
    }
}
