import Accounts
import Discovery
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery
import Trips

/// `POST /v1/discover/itinerary`: a suggested itinerary for a destination, saved as an
/// itinerary in the same call when asked.
extension GeoQueryService {
    static let suggestionFields = [
        "destination", "days", "start_date", "day_start", "day_end", "budget", "preferred", "pace", "mode",
        "start", "radius", "save", "title", "visibility",
    ]

    func addSuggestedItineraryRoute(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        routeGroups(router).viewers.route(.post, "/v1/discover/itinerary", in: &table, bound: .queries(configuration.requestTimeout)) {
            try await suggestItinerary($0, $1)
        }
    }

    /// What a suggested itinerary is asked for, beside its destination: days, dates, hours,
    /// budget, preferences, pace, travel mode, where a day starts and how far to look.
    struct SuggestionInput {
        var days: Int
        var startDate: LocalDate?
        var dayStart: Int
        var dayEnd: Int
        var budget: Money?
        var preferred: [Category]
        var pace: Pace
        var mode: DayPlan.Mode
        var start: Coordinate
        var radius: Distance

        init(_ body: JSONBody, centre: Coordinate) throws {
            days = try body.int("days", in: 1...14) ?? 1
            startDate = try body.string("start_date", maxLength: 10).map { text -> LocalDate in
                guard let date = LocalDate(text) else { throw APIProblem.badRequest("start_date '\(text)' is invalid: give a date YYYY-MM-DD") }
                return date
            }
            dayStart = try GeoQueryService.clockField(body, "day_start", default: 9 * 60)
            dayEnd = try GeoQueryService.clockField(body, "day_end", default: 18 * 60)
            guard dayEnd > dayStart else {
                throw APIProblem.badRequest("day_end \(DayPlan.clock(dayEnd)) must be after day_start \(DayPlan.clock(dayStart))")
            }
            budget = try GeoQueryService.money(body, "budget")
            preferred = try (body.strings("preferred", maxCount: 20, maxLength: 60) ?? []).map { text in
                do { return try Category(text) } catch { throw APIProblem.badRequest("preferred: \(error)") }
            }
            pace =
                try body.string("pace", maxLength: 10).map { text in
                    guard let pace = Pace(rawValue: text) else {
                        throw APIProblem.badRequest("pace '\(text)' is invalid: use relaxed, normal or packed")
                    }
                    return pace
                } ?? .normal
            let mode =
                try body.string("mode", maxLength: 10).map { text in
                    guard let mode = DayPlan.Mode(rawValue: text) else {
                        throw APIProblem.badRequest("mode '\(text)' is invalid: use walk, bike or car")
                    }
                    return mode
                } ?? .walk
            self.mode = mode
            start = try body.coordinate("start") ?? centre
            radius =
                try body.string("radius", maxLength: 20).map { text in
                    do { return try Distance(parsing: text) } catch { throw APIProblem.badRequest("radius: \(error)") }
                } ?? GeoQueryService.suggestionRadius(mode)
            guard radius.meters <= 100_000 else { throw APIProblem.badRequest("radius \(radius) is too large: at most 100km") }
        }

        var wish: ItineraryWish {
            ItineraryWish(
                start: start, days: days, startDate: startDate, dayStartMinute: dayStart, dayEndMinute: dayEnd,
                budget: budget.map { NSDecimalNumber(decimal: $0.amount).doubleValue }, preferred: preferred, pace: pace, mode: mode)
        }
    }

    /// `POST /v1/discover/itinerary`.
    func suggestItinerary(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let body = try await JSONBody(request, limit: 65_536, allowed: Self.suggestionFields)
        let save = try body.bool("save") ?? false
        // Anyone may ask for a suggestion; saving it makes an itinerary of the signed-in account.
        let viewer = context.identity?.username
        if save && viewer == nil { throw AccountError.notSignedIn }
        let destination = try await suggestionDestination(body, viewer: viewer)
        guard let centre = destination.coordinate else {
            throw APIProblem.badRequest("the destination has no known point: give {\"lat\", \"lon\"}")
        }
        let input = try SuggestionInput(body, centre: centre)
        // Candidates: the visitable places and gems the viewer may see, nearest first.
        var filter = PlaceFilter(categories: ItinerarySuggester.visitable)
        filter.viewer = viewer
        let candidates = try await searchIndex.near(centre, radius: input.radius, filter: filter, limit: 2_000, cursor: nil).matches.map(\.place)
        let wish = input.wish
        let boosts = await popularityBoosts()
        let suggestion = try await onBackgroundWorker { ItinerarySuggester.suggest(candidates: candidates, wish: wish, boosts: boosts) }
        var savedID: String?
        if save, let viewer {
            guard let startDate = input.startDate else {
                throw APIProblem.badRequest("saving needs 'start_date' (YYYY-MM-DD): an itinerary has dates")
            }
            savedID = try await saveSuggestion(
                suggestion, body: body, owner: viewer, destination: destination, startDate: startDate, days: input.days, budget: input.budget)
        }
        // An empty answer is an answer, with the reason beside it.
        let note =
            candidates.isEmpty
            ? "no places to visit within \(input.radius.formatted(in: .kilometers, fractionDigits: 1)) of the destination in this index: give a larger radius (at most 100km)"
            : nil
        let json = Self.suggestionJSON(
            suggestion, destination: destination, startDate: input.startDate, budget: input.budget, savedID: savedID, note: note)
        return .json(json, status: savedID == nil ? .ok : .created)
    }

    /// What the service's users do lifts a place's popularity: the month's 500 most popular
    /// places, each with a boost up to 1 (none when the store cannot say).
    func popularityBoosts() async -> [PlaceID: Double] {
        let now = Date()
        let popular =
            (try? await userData?.popular(
                .place, period: .month, activeSince: now.addingTimeInterval(-PopularityPeriod.month.seconds), after: nil, limit: 500)) ?? []
        return Dictionary(
            popular.map { ($0.subject, min(1, PopularityMath.value($0.key, at: now, period: .month) / 20)) }, uniquingKeysWith: { first, _ in first })
    }

    /// How far candidates are looked for by default: a day's reach.
    static func suggestionRadius(_ mode: DayPlan.Mode) -> Distance {
        switch mode {
        case .walk: Distance(uncheckedMeters: 5_000)
        case .bike: Distance(uncheckedMeters: 15_000)
        case .car: Distance(uncheckedMeters: 40_000)
        }
    }

    /// `destination`: a city's name (`"Lisbon"`), or `{"place_id"}` / `{"lat", "lon"}` as plans take it.
    func suggestionDestination(_ body: JSONBody, viewer: String?) async throws -> PlanLocation {
        if let name = try? body.string("destination", maxLength: 200) {
            guard let city = try await city(named: name) else {
                throw APIProblem.badRequest("destination '\(name)' is not a city GeoQuery knows; give {\"lat\", \"lon\"} or a place_id")
            }
            return PlanLocation(placeID: city.id.rawValue, coordinate: city.coordinate, name: city.name)
        }
        guard let location = try await location(body, "destination", viewer: viewer) else {
            throw APIProblem.badRequest("field 'destination' is required: a city (\"Lisbon\"), {\"place_id\": …} or {\"lat\": …, \"lon\": …}")
        }
        return location
    }

    static func clockField(_ body: JSONBody, _ name: String, default value: Int) throws -> Int {
        guard let text = try body.string(name, maxLength: 5) else { return value }
        guard let minutes = DayPlan.minutes(text) else {
            throw APIProblem.badRequest("\(name) '\(text)' is invalid: give a local time HH:MM, e.g. 09:00")
        }
        return minutes
    }

    func saveSuggestion(
        _ suggestion: SuggestedItinerary, body: JSONBody, owner: String, destination: PlanLocation, startDate: LocalDate,
        days: Int, budget: Money?
    ) async throws -> String {
        guard let zone = try await timeZone(of: destination) else {
            throw APIProblem.badRequest("the destination's time zone is unknown, so the itinerary cannot be saved")
        }
        var document = ItineraryDocument(
            title: try Self.title(body, required: false) ?? "Suggested: \(destination.name ?? "trip")",
            destination: destination, startDate: startDate.description,
            endDate: startDate.adding(days: days - 1).description, timeZone: zone, budget: budget)
        document.stops = suggestion.days.joined().map { stop in
            ItineraryStop(
                id: "s_" + Self.shortID(),
                location: PlanLocation(
                    placeID: stop.place.id.rawValue, coordinate: stop.place.coordinate,
                    name: stop.place.name),
                day: stop.day, durationMinutes: stop.durationMinutes, notes: stop.reasons.joined(separator: "; "),
                price: stop.costKnown ? budget.map { Money(amount: Decimal(stop.estimatedCost), currency: $0.currency) } : nil)
        }
        let now = Date()
        let (starts, ends) = try Self.itineraryInstants(document)
        let record = PlanRecord(
            id: Self.newPlanID(.itinerary), kind: .itinerary, owner: owner,
            visibility: try Self.planVisibility(body) ?? .private, startsAt: starts, endsAt: ends,
            createdAt: now, updatedAt: now, document: try Self.encodeDocument(document))
        try await requireUserData().createPlan(record)
        await countActivity(.planStop, document.stops.map(\.location.placeID))
        return record.id
    }

    static func suggestionJSON(
        _ suggestion: SuggestedItinerary, destination: PlanLocation, startDate: LocalDate?, budget: Money?,
        savedID: String?, note: String? = nil
    ) -> OrderedJSON {
        func amount(_ value: Double) -> OrderedJSON { .double((value * 100).rounded() / 100) }
        let days: [OrderedJSON] = suggestion.days.enumerated().map { index, stops in
            .object([
                ("day", .int(index + 1)),
                ("date", .optional(startDate?.adding(days: index).description)),
                ("travel_minutes", .int(suggestion.travelMinutes[index])),
                (
                    "stops",
                    .array(
                        stops.map { stop in
                            .object([
                                ("place_id", .string(stop.place.id.rawValue)), ("name", .string(stop.place.name)),
                                ("lat", .double(stop.place.coordinate.latitude)), ("lon", .double(stop.place.coordinate.longitude)),
                                ("categories", .array(stop.place.categories.map { .string($0.identifier) })),
                                ("start", .string(DayPlan.clock(stop.startMinute))), ("duration_minutes", .int(stop.durationMinutes)),
                                ("estimated_cost", stop.costKnown ? amount(stop.estimatedCost) : .null),
                                ("score", amount(stop.score)), ("why", .array(stop.reasons.map(OrderedJSON.string))),
                            ])
                        })
                ),
            ])
        }
        return .object([
            ("destination", locationJSON(destination)),
            ("method", .string(suggestion.method)),
            ("proven_optimal", .bool(suggestion.isProvenOptimal)),
            ("score", amount(suggestion.score)),
            ("upper_bound", amount(suggestion.upperBound)),
            ("candidates", .int(suggestion.candidateCount)),
            ("opening_hours_applied", .bool(startDate != nil)),
            (
                "estimated_cost",
                .object([
                    ("amount", amount(suggestion.cost)), ("currency", .optional(budget?.currency)),
                    ("basis", .string("price levels: meals 10/25/50/100, other visits 5/15/30/60 per person")),
                ])
            ),
            ("budget", moneyJSON(budget)),
            ("days", .array(days)),
            ("itinerary_id", .optional(savedID)),
            ("note", .optional(note)),
        ])
    }
}
