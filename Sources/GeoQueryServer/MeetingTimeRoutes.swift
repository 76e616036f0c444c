import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceQuery
import Trips

/// `PUT /v1/trips/{id}/availability` and `GET /v1/trips/{id}/meeting-times`.
extension GeoQueryService {
    func addMeetingTimeRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.cancelling(configuration.requestTimeout)
        // JSON `{"busy": [{"start", "end"}]}` or an iCalendar VFREEBUSY body (`text/calendar`).
        groups.members.route(.put, "/v1/trips/{id}/availability", in: &table, bound: bound) { try await giveAvailability($0, $1) }
        groups.members.route(.get, "/v1/trips/{id}/meeting-times", in: &table, bound: bound) { try await findMeetingTimes($0, $1) }
    }

    /// `PUT /v1/trips/{id}/availability`.
    func giveAvailability(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let (record, _) = try await plan(try planID(context, .trip), .trip, viewer: user.username)
        guard Self.isAttendee(user.username, of: record) else {
            throw APIProblem(.forbidden, "only the author and invitees who have not declined give availability for trip \(record.id)")
        }
        // The body is read here; parsing up to 10 000 periods (or a calendar) is CPU work,
        // done on the background pool, off the event loops and the cooperative pool.
        let busy: [BusyInterval]
        if request.headers[.contentType]?.lowercased().hasPrefix("text/calendar") == true {
            if let problem = APIProblem.declaredTooLarge(request, limit: 1 << 20, what: "the calendar") { throw problem }
            var body = request
            let buffer: ByteBuffer
            do { buffer = try await body.collectBody(upTo: 1 << 20) } catch {
                throw APIProblem(.contentTooLarge, "the calendar is larger than 1048576 bytes, the most this service accepts")
            }
            busy = try await onBackgroundWorker {
                do {
                    return try FreeBusy.busyIntervals(String(decoding: buffer.readableBytesView, as: UTF8.self))
                } catch let error as FreeBusy.ParseError {
                    throw APIProblem.badRequest(error.description)
                }
            }
        } else {
            let data = try await JSONBody.collect(request, limit: 1 << 20)
            busy = try await onBackgroundWorker { try Self.busyPeriods(data) }
        }
        try await requireUserData().setAvailability(of: user.username, for: record.id, busy: busy, at: Date())
        return .json(.object([("trip", .string(record.id)), ("username", .string(user.username)), ("busy_periods", .int(busy.count))]))
    }

    /// `GET /v1/trips/{id}/meeting-times`.
    func findMeetingTimes(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let parameters = try QueryParameters(request, allowed: ["duration", "from", "to", "daily", "limit"])
        let (record, _) = try await plan(try planID(context, .trip), .trip, viewer: user.username)
        guard Self.isAttendee(user.username, of: record) else {
            throw APIProblem(.forbidden, "only the author and invitees who have not declined see meeting times of trip \(record.id)")
        }
        let document = try Self.decodeDocument(TripDocument.self, record)
        let durationText = try parameters.single("duration") ?? "2h"
        guard let duration = Self.meetingDuration(durationText) else {
            throw APIProblem.badRequest("duration '\(durationText.prefix(20))' is invalid: give 15m to 24h, e.g. 90m, 2h or 1h30m")
        }
        let now = Date()
        func instant(_ name: String, _ fallback: Date) throws -> Date {
            guard let text = try parameters.single(name) else { return fallback }
            guard let date = Self.instant(text) else {
                throw APIProblem.badRequest("\(name) '\(text.prefix(40))' is invalid: give an RFC 3339 time with an offset")
            }
            return date
        }
        // Without `from`, slots start from the next quarter hour: a meeting at 16:30, not at
        // 16:21:07 (every time zone's offset is a whole number of quarter hours).
        let from = try instant("from", Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 900).rounded(.up) * 900))
        let to = try instant("to", from.addingTimeInterval(14 * 86_400))
        guard from < to, to.timeIntervalSince(from) <= 92 * 86_400 else {
            throw APIProblem.badRequest("to must be after from, and at most 92 days later")
        }
        let dailyText = try parameters.single("daily") ?? "09:00-22:00"
        guard let daily = DailyHours(dailyText) else {
            throw APIProblem.badRequest("daily '\(dailyText.prefix(20))' is invalid: give local hours HH:MM-HH:MM, e.g. 09:00-22:00")
        }
        let limitText = try parameters.single("limit") ?? "10"
        guard let limit = Int(limitText), (1...100).contains(limit) else {
            throw APIProblem.badRequest("limit '\(limitText.prefix(20))' is invalid: give a whole number from 1 to 100")
        }
        let zone = TimeZone(identifier: document.timeZone) ?? TimeZone(identifier: "UTC")!
        // Who counts: the author and everyone who accepted.
        let people = [record.owner] + record.members.filter { $0.answer == .accepted }.map(\.username)
        let busy = try await requireUserData().availability(for: record.id)
        let slots = try await onBackgroundWorker {
            MeetingTimes.find(members: people, busy: busy, duration: duration, windows: daily.windows(from: from, to: to, in: zone), limit: limit)
        }
        return .json(
            .object([
                ("trip", .string(record.id)), ("time_zone", .string(document.timeZone)), ("duration_minutes", .int(Int(duration / 60))),
                ("people", .array(people.sorted().map(OrderedJSON.string))),
                ("without_availability", .array(people.filter { busy[$0] == nil }.sorted().map(OrderedJSON.string))),
                (
                    "slots",
                    .array(
                        slots.map { slot in
                            .object([
                                ("start", Self.timestampJSON(slot.start)), ("end", Self.timestampJSON(slot.end)),
                                ("free", .array(slot.free.map(OrderedJSON.string))), ("busy", .array(slot.busy.map(OrderedJSON.string))),
                            ])
                        })
                ),
            ]))
    }

    /// `{"busy": [{"start", "end"}]}` as intervals: RFC 3339 times with offsets, each ending
    /// after it starts, at most 10 000. Walked by GeoCore's ``JSONScanner`` value by value (64
    /// levels at most), with no tree: a dictionary per period took two thirds of a 10 000-period
    /// body's CPU, and `JSONSerialization`'s bridged values half of it before that.
    static func busyPeriods(_ data: Data) throws -> [BusyInterval] {
        guard !data.isEmpty else { throw APIProblem.badRequest("the request body is empty: send a JSON object with busy") }
        do {
            return try JSONScanner.read(data) { scanner in
                guard scanner.kind() == .object else { throw APIProblem.badRequest("the request body is not a JSON object: send one with busy") }
                var busy: [BusyInterval]?
                try scanner.readObject { name, scanner in
                    guard name == "busy" else { throw APIProblem.badRequest("unknown field '\(name.prefix(40))': the fields are busy") }
                    busy = try busyList(&scanner)
                }
                guard let busy else {
                    throw APIProblem.badRequest(
                        "field 'busy' is required: an array of {\"start\", \"end\"} (RFC 3339), or send text/calendar VFREEBUSY")
                }
                return busy
            }
        } catch let error as JSONScanner.SyntaxError {
            throw APIProblem.badRequest("the request body is not a JSON object: \(error.description); send one with busy")
        }
    }

    /// The value of `busy`, read from where `scanner` stands; nil for `null`.
    private static func busyList(_ scanner: inout JSONScanner) throws -> [BusyInterval]? {
        if scanner.kind() == .null {
            try scanner.skipValue()
            return nil
        }
        guard scanner.kind() == .array else { throw APIProblem.badRequest("busy must be an array of {\"start\", \"end\"}") }
        var busy: [BusyInterval] = []
        try scanner.readArray { index, scanner in
            guard index < 10_000 else { throw APIProblem.badRequest("busy has more than 10000 items; at most 10000 are taken") }
            busy.append(try busyPeriod(&scanner, index))
        }
        return busy
    }

    /// One `{"start", "end"}` of `busy`, the `index`th.
    private static func busyPeriod(_ scanner: inout JSONScanner, _ index: Int) throws -> BusyInterval {
        guard scanner.kind() == .object else { throw APIProblem.badRequest("busy[\(index)] must be a JSON object with start and end") }
        var start: String?, end: String?
        try scanner.readObject { name, scanner in
            guard name == "start" || name == "end" else {
                throw APIProblem.badRequest("unknown field 'busy[\(index)].\(name.prefix(40))': the fields are start, end")
            }
            let text = scanner.kind() == .string ? try scanner.readString() : nil
            if text == nil { try scanner.skipValue() }
            if name == "start" { start = text } else { end = text }
        }
        guard let start, let end else {
            throw APIProblem.badRequest("busy[\(index)] needs start and end: RFC 3339 times with an offset, e.g. 2027-06-12T18:00:00+02:00")
        }
        guard let starts = RFC3339.date(start), let ends = RFC3339.date(end) else {
            throw APIProblem.badRequest("busy[\(index)] start and end must be RFC 3339 times with an offset, e.g. 2027-06-12T18:00:00+02:00")
        }
        guard starts < ends else { throw APIProblem.badRequest("busy[\(index)] ends (\(end.prefix(40))) before it starts (\(start.prefix(40)))") }
        return BusyInterval(start: starts, end: ends)
    }

    /// `90m`, `2h`, `1h30m` within 15 minutes and a day.
    static func meetingDuration(_ text: String) -> TimeInterval? {
        var total = 0, number = ""
        for character in text {
            if character.isASCII && character.isNumber {
                number.append(character)
                continue
            }
            guard let value = Int(number), number.count <= 4 else { return nil }
            number = ""
            switch character {
            case "h": total += value * 3_600
            case "m": total += value * 60
            default: return nil
            }
        }
        guard number.isEmpty, (900...86_400).contains(total) else { return nil }
        return TimeInterval(total)
    }
}
