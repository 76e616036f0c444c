import Foundation
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Trips

/// `POST /v1/itineraries/{id}/days/{n}/optimize`: puts a day's stops in the order with the
/// least travel that keeps fixed times and opening hours, and saves it.
extension GeoQueryService {
    func addDayOptimizeRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        routeGroups(router).members.route(
            .post, "/v1/itineraries/{id}/days/{day}/optimize", in: &table, bound: .cancelling(configuration.requestTimeout)
        ) { try await optimizeDay($0, $1) }
    }

    /// What `POST …/days/{n}/optimize` asks: the day, the travel mode, the hours of the day.
    struct DayOptimizeInput: Sendable {
        var day: Int
        var mode: DayPlan.Mode
        var dayStart: Int
        var dayEnd: Int

        init(_ request: Request, _ context: SignedInRequestContext) async throws {
            let dayText = try context.parameters.require("day")
            guard let day = Int(dayText), (1...366).contains(day) else {
                throw APIProblem.badRequest("day '\(dayText.prefix(20))' is invalid: give the day's number, 1 for the first")
            }
            let empty =
                request.headers[.contentLength] == "0" || request.headers[.contentLength] == nil && request.headers[.transferEncoding] == nil
            let body = empty ? JSONBody(members: [:]) : try await JSONBody(request, limit: 4_096, allowed: ["mode", "day_start", "day_end"])
            let modeText = try body.string("mode", maxLength: 10) ?? "walk"
            guard let mode = DayPlan.Mode(rawValue: modeText) else {
                throw APIProblem.badRequest("mode '\(modeText)' is invalid: use walk, bike or car")
            }
            func clock(_ name: String, _ fallback: String) throws -> Int {
                let text = try body.string(name, maxLength: 5) ?? fallback
                guard let minutes = DayPlan.minutes(text) else {
                    throw APIProblem.badRequest("\(name) '\(text)' is invalid: give a local time HH:MM, e.g. 09:00")
                }
                return minutes
            }
            (self.day, self.mode) = (day, mode)
            (dayStart, dayEnd) = (try clock("day_start", "09:00"), try clock("day_end", "21:00"))
            guard dayStart < dayEnd else { throw APIProblem.badRequest("day_start must be before day_end") }
        }
    }

    /// `POST /v1/itineraries/{id}/days/{day}/optimize`.
    func optimizeDay(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let id = try planID(context, .itinerary)
        let input = try await DayOptimizeInput(request, context)
        // Opening hours of the stops that are places of the index (read before the write).
        let (current, _) = try await plan(id, .itinerary, viewer: user.username, needs: .edit)
        let hours = try await openingHours(ofDay: input.day, of: try Self.decodeDocument(ItineraryDocument.self, current))
        let outcome = ResultBox()
        let (record, _) = try await changePlan(id, .itinerary, user: user.username, needs: .edit, request: request) { record in
            var document = try Self.decodeDocument(ItineraryDocument.self, record)
            let result = try Self.orderDay(&document, input, hours: hours)
            record.document = try Self.encodeDocument(document)
            outcome.set(result)
        }
        guard let result = outcome.value else { throw APIProblem(.internalServerError, "the day was not ordered") }
        return Self.planResponse(Self.dayPlanJSON(result, input, itinerary: record.id, revision: record.revision), revision: record.revision)
    }

    /// The opening hours of the day's stops that are places of the index, by stop id.
    func openingHours(ofDay day: Int, of document: ItineraryDocument) async throws -> [String: OpeningHours] {
        let stopsOfTheDay = document.stops.filter { $0.day == day }
        let places = try await searchIndex.places(stopsOfTheDay.compactMap { $0.location.placeID.flatMap { try? PlaceID($0) } })
        var hours: [String: OpeningHours] = [:]
        for stop in stopsOfTheDay {
            if let text = stop.location.placeID, let placeID = try? PlaceID(text), let opening = places[placeID]?.openingHours,
                !opening.periods.isEmpty
            {
                hours[stop.id] = opening
            }
        }
        return hours
    }

    /// Puts the day's stops of `document` in their new order, where the day's stops were (other
    /// days untouched); a day that cannot hold every stop is a 422 that lists why.
    static func orderDay(
        _ document: inout ItineraryDocument, _ input: DayOptimizeInput, hours: [String: OpeningHours]
    ) throws
        -> DayPlan.Result
    {
        let result: DayPlan.Result
        do {
            result = try DayPlan.optimize(
                document, day: input.day, hours: hours, mode: input.mode, dayStartMinute: input.dayStart, dayEndMinute: input.dayEnd)
        } catch let error as DayPlan.PlanError {
            throw APIProblem.badRequest(error.description)
        }
        guard result.unplaced.isEmpty else {
            var problem = APIProblem(
                .unprocessableContent,
                "day \(input.day) cannot hold every stop: "
                    + result.unplaced.map { "\($0.stop.id) (\($0.stop.location.name ?? "unnamed")): \($0.reason)" }.joined(separator: "; "))
            let unplaced = result.unplaced.map { item -> OrderedJSON in
                .object([("stop_id", .string(item.stop.id)), ("name", .optional(item.stop.location.name)), ("reason", .string(item.reason))])
            }
            problem.extensions = [("unplaced", .array(unplaced))]
            throw problem
        }
        var ordered = result.order.makeIterator()
        document.stops = document.stops.map { $0.day == input.day ? (ordered.next() ?? $0) : $0 }
        return result
    }

    /// The answer of an ordered day: the order, each stop's times, the travel and the revision.
    static func dayPlanJSON(_ result: DayPlan.Result, _ input: DayOptimizeInput, itinerary: String, revision: Int) -> OrderedJSON {
        let schedule = zip(result.order, result.startMinutes).map { stop, start -> OrderedJSON in
            .object([
                ("stop_id", .string(stop.id)), ("name", .optional(stop.location.name)), ("start", .string(DayPlan.clock(start))),
                ("end", .string(DayPlan.clock(start + stop.durationMinutes))),
            ])
        }
        return .object([
            ("itinerary", .string(itinerary)), ("day", .int(input.day)), ("mode", .string(input.mode.rawValue)),
            ("start", result.startLodging.map { .string($0.name) } ?? .null), ("end", result.endLodging.map { .string($0.name) } ?? .null),
            ("order", .array(result.order.map { .string($0.id) })), ("schedule", .array(schedule)),
            ("travel_minutes", .int(result.travelMinutes)), ("proven_optimal", .bool(result.isProvenOptimal)), ("revision", .int(revision)),
        ])
    }
}

/// The day plan made inside the write closure, read after it.
final class ResultBox: @unchecked Sendable {
    // @unchecked Sendable: set at most once per attempt inside the closure and read after the
    // write returned, both under `lock`.
    private let lock = NSLock()
    private var stored: DayPlan.Result?
    func set(_ value: DayPlan.Result) { lock.withLock { stored = value } }
    var value: DayPlan.Result? { lock.withLock { stored } }
}
