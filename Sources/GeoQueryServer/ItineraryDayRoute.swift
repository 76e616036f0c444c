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
        router.route(
            .post, "/v1/itineraries/{id}/days/{day}/optimize", in: &table,
            bound: .cancelling(configuration.requestTimeout)
        ) { request, context in
            let user = try await signedIn(request)
            let id = try planID(context, .itinerary)
            let dayText = try context.parameters.require("day")
            guard let day = Int(dayText), (1...366).contains(day) else {
                throw APIProblem.badRequest("day '\(dayText.prefix(20))' is invalid: give the day's number, 1 for the first")
            }
            let body =
                request.headers[.contentLength] == "0" || request.headers[.contentLength] == nil && request.headers[.transferEncoding] == nil
                ? JSONBody(members: [:]) : try await JSONBody(request, limit: 4_096, allowed: ["mode", "day_start", "day_end"])
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
            let dayStart = try clock("day_start", "09:00"), dayEnd = try clock("day_end", "21:00")
            guard dayStart < dayEnd else { throw APIProblem.badRequest("day_start must be before day_end") }

            // Opening hours of the stops that are places of the index (read before the write).
            let (current, _) = try await plan(id, .itinerary, viewer: user.username, needs: .edit)
            let before = try Self.decodeDocument(ItineraryDocument.self, current)
            let stopsOfTheDay = before.stops.filter { $0.day == day }
            let places = try await searchIndex.places(stopsOfTheDay.compactMap { $0.location.placeID.flatMap { try? PlaceID($0) } })
            var hours: [String: OpeningHours] = [:]
            for stop in stopsOfTheDay {
                if let text = stop.location.placeID, let placeID = try? PlaceID(text),
                    let opening = places[placeID]?.openingHours, !opening.periods.isEmpty
                {
                    hours[stop.id] = opening
                }
            }
            let knownHours = hours
            let outcome = ResultBox()
            let (record, _) = try await changePlan(id, .itinerary, user: user.username, needs: .edit, request: request) { record in
                var document = try Self.decodeDocument(ItineraryDocument.self, record)
                let result: DayPlan.Result
                do {
                    result = try DayPlan.optimize(
                        document, day: day, hours: knownHours, mode: mode,
                        dayStartMinute: dayStart, dayEndMinute: dayEnd)
                } catch let error as DayPlan.PlanError {
                    throw APIProblem.badRequest(error.description)
                }
                guard result.unplaced.isEmpty else {
                    var problem = APIProblem(
                        .unprocessableContent,
                        "day \(day) cannot hold every stop: "
                            + result.unplaced.map { "\($0.stop.id) (\($0.stop.location.name ?? "unnamed")): \($0.reason)" }.joined(separator: "; "))
                    problem.extensions = [
                        (
                            "unplaced",
                            .array(
                                result.unplaced.map {
                                    .object([
                                        ("stop_id", .string($0.stop.id)), ("name", .optional($0.stop.location.name)), ("reason", .string($0.reason)),
                                    ])
                                })
                        )
                    ]
                    throw problem
                }
                // The day's stops in the new order, where the day's stops were; other days untouched.
                var ordered = result.order.makeIterator()
                document.stops = document.stops.map { $0.day == day ? (ordered.next() ?? $0) : $0 }
                record.document = try Self.encodeDocument(document)
                outcome.set(result)
            }
            guard let result = outcome.value else { throw APIProblem(.internalServerError, "the day was not ordered") }
            return Self.planResponse(
                .object([
                    ("itinerary", .string(record.id)), ("day", .int(day)), ("mode", .string(mode.rawValue)),
                    ("start", result.startLodging.map { .string($0.name) } ?? .null),
                    ("end", result.endLodging.map { .string($0.name) } ?? .null),
                    ("order", .array(result.order.map { .string($0.id) })),
                    (
                        "schedule",
                        .array(
                            zip(result.order, result.startMinutes).map { stop, start in
                                .object([
                                    ("stop_id", .string(stop.id)), ("name", .optional(stop.location.name)),
                                    ("start", .string(DayPlan.clock(start))), ("end", .string(DayPlan.clock(start + stop.durationMinutes))),
                                ])
                            })
                    ),
                    ("travel_minutes", .int(result.travelMinutes)), ("proven_optimal", .bool(result.isProvenOptimal)),
                    ("revision", .int(record.revision)),
                ]), revision: record.revision)
        }
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
