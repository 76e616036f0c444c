import Foundation
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery

/// Reports and moderation: anyone signed in reports a gem they can see
/// (`PUT /v1/gems/{id}/report`); the deployment's moderators
/// (``ServiceConfiguration/moderators``) read the queue of reported gems and hide a gem (it
/// becomes private and its owner cannot publish it again), restore it, or dismiss its reports.
extension GeoQueryService {
    func addModerationRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        groups.creators.route(.put, "/v1/gems/{id}/report", in: &table, bound: bound) { try await reportGem($0, $1) }
        groups.moderators.route(.get, "/v1/moderation/reports", in: &table, bound: bound) { try await listReports($0, $1) }
        groups.moderators.route(.post, "/v1/moderation/gems/{id}/hide", in: &table, bound: bound) { try await hideGem($0, $1) }
        groups.moderators.route(.post, "/v1/moderation/gems/{id}/restore", in: &table, bound: bound) { try await restoreGem($0, $1) }
        groups.moderators.route(.post, "/v1/moderation/gems/{id}/dismiss", in: &table, bound: bound) { try await dismissReports($0, $1) }
    }

    /// `PUT /v1/gems/{id}/report`.
    func reportGem(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let gem = try await reachableGem(try gemID(context), viewer: user.username)
        guard gem.gem?.owner != user.username else {
            throw APIProblem(.forbidden, "gem \(gem.id) is yours: change or delete it instead of reporting it")
        }
        let body = try await JSONBody(request, limit: 16_384, allowed: ["reason", "note"])
        let text = try body.requiredString("reason", maxLength: 100)
        guard let reason = ReportReason(rawValue: text) else {
            let valid = ReportReason.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIProblem.badRequest("reason '\(text)' is invalid: it must be one of \(valid)")
        }
        let note = try body.string("note", maxLength: 1_000)?.trimmingCharacters(in: .whitespacesAndNewlines)
        let report = GemReport(
            gemID: gem.id, username: user.username, reason: reason, note: note?.isEmpty == true ? nil : note,
            createdAt: Date())
        let isNew = try await requireUserData().report(report)
        return .json(Self.reportJSON(report, includeReporter: false), status: isNew ? .created : .ok)
    }

    /// `GET /v1/moderation/reports`.
    func listReports(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["limit", "cursor"])
        let limit = try parameters.int("limit", range: 1...100) ?? 20
        let after = try ListCursor.position(request, parameters).map { text in
            guard let position = Self.reportQueuePosition(cursor: text) else {
                throw APIProblem.badRequest("cursor '\(text.prefix(100))' is invalid: pass next_cursor of the previous page")
            }
            return position
        }
        let store = try requireUserData()
        let found = try await store.reportedGems(after: after, limit: limit + 1)
        let queue = Array(found.prefix(limit))
        let next = found.count > limit ? queue.last.map { ListCursor.encode("\($0.reports.count)_\($0.gemID.rawValue)", for: request) } : nil
        let gems = try await store.places(queue.map(\.gemID))  // one read for the page
        var json = JSONWriter(capacity: 2048 + queue.count * 1500)
        json.beginObject()
        json.key("count")
        json.int(queue.count)
        json.key("gems")
        json.beginArray()
        for entry in queue {
            json.beginObject()
            json.key("gem_id")
            json.string(entry.gemID.rawValue)
            json.key("report_count")
            json.int(entry.reports.count)
            var reasons: [String: Int] = [:]
            for report in entry.reports { reasons[report.reason.rawValue, default: 0] += 1 }
            json.key("reasons")
            OrderedJSON.object(reasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, .int($0.value)) }).write(to: &json)
            json.key("reports")
            OrderedJSON.array(entry.reports.map { Self.reportJSON($0, includeReporter: true) }).write(to: &json)
            // Moderators see the gem whatever its visibility: it may have been made private since.
            json.key("gem")
            if let gem = gems[entry.gemID] { PlaceJSON.write(gem, distance: nil, to: &json, includeCoordinates: true) } else { json.null() }
            json.endObject()
        }
        json.endArray()
        json.key("next_cursor")
        if let next { json.string(next) } else { json.null() }
        json.endObject()
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if let next { headers[Self.linkHeader] = "<\(Self.nextURL(request, cursor: next))>; rel=\"next\"" }
        return .writer(json, headers: headers)
    }

    /// `POST /v1/moderation/gems/{id}/hide`.
    func hideGem(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let moderator = context.user.username
        let id = try gemID(context)
        let body = try await JSONBody(request, limit: 16_384, allowed: ["reason"])
        let reason = try body.requiredString("reason", maxLength: 500).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw APIProblem.badRequest("reason is empty: say why the gem is hidden (its owner reads it)") }
        let decision = GemModeration(hiddenAt: Date(), moderator: moderator, reason: reason)
        guard let gem = try await requireUserData().hideGem(id, decision), let owner = gem.gem?.owner else {
            throw APIProblem(.notFound, "no gem with id \(id)")
        }
        await notify(owner, "gem_hidden", ["gem": id.rawValue, "name": gem.name, "reason": reason])
        return .json(Self.moderationJSON(id, decision))
    }

    /// `POST /v1/moderation/gems/{id}/restore`.
    func restoreGem(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let id = try gemID(context)
        guard try await requireUserData().restoreGem(id) else {
            throw APIProblem(.notFound, "gem \(id) is not hidden by a moderator")
        }
        if let owner = try await requireUserData().place(id)?.gem?.owner {
            await notify(owner, "gem_restored", ["gem": id.rawValue])
        }
        return Response(status: .noContent)
    }

    /// `POST /v1/moderation/gems/{id}/dismiss`.
    func dismissReports(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let id = try gemID(context)
        let dismissed = try await requireUserData().dismissReports(of: id)
        return .json(.object([("gem_id", .string(id.rawValue)), ("dismissed", .int(dismissed))]))
    }

    /// A 403 for an owner's edit that would publish a gem a moderator hid; nothing otherwise.
    func checkNotHidden(_ gem: Place) async throws {
        guard let part = gem.gem, part.visibility != .private,
            let decision = try await requireUserData().moderation(of: gem.id)
        else { return }
        throw APIProblem(.forbidden, "gem \(gem.id) was hidden by a moderator (\(decision.reason)): it stays private until a moderator restores it")
    }

    static func reportJSON(_ report: GemReport, includeReporter: Bool) -> OrderedJSON {
        var fields: [(String, OrderedJSON)] = [("gem_id", .string(report.gemID.rawValue))]
        if includeReporter { fields.append(("username", .string(report.username))) }
        return .object(
            fields + [
                ("reason", .string(report.reason.rawValue)), ("note", .optional(report.note)),
                ("reported_at", timestampJSON(report.createdAt)),
            ])
    }

    static func moderationJSON(_ gem: PlaceID, _ decision: GemModeration) -> OrderedJSON {
        .object([
            ("gem_id", .string(gem.rawValue)), ("hidden", .bool(true)), ("hidden_at", timestampJSON(decision.hiddenAt)),
            ("moderator", .string(decision.moderator)), ("reason", .string(decision.reason)),
        ])
    }
}

extension GeoQueryService {
    /// A report queue cursor: `<report count>_<gem id>` of the previous page's last gem.
    static func reportQueuePosition(cursor: String) -> ReportQueuePosition? {
        let parts = cursor.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let count = Int(parts[0]), count > 0, let id = try? PlaceID(String(parts[1])), id.source == "gem" else {
            return nil
        }
        return ReportQueuePosition(reportCount: count, gemID: id)
    }
}
