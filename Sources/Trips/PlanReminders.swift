import Foundation
import PlaceQuery

/// Reminders of the plans that start within a day: each itinerary's owner and collaborators,
/// each trip's author and the invitees who have not declined (those who have not answered yet
/// too), once per plan and start.
///
/// A reminder's id names the plan and its start, so sending again — after a restart, or from
/// another server on the same database — makes nothing new, and a plan moved to a new start
/// reminds again. An itinerary starts at midnight of its first day in its own time zone.
public struct PlanReminders: Sendable {
    let store: any PlanSchedule
    let notifier: any Notifier

    public init(store: any PlanSchedule, notifier: any Notifier) {
        self.store = store
        self.notifier = notifier
    }

    /// Reminds of the plans that start in `[now, now + ahead)`.
    /// - Returns: how many reminders were made.
    public func send(now: Date = Date(), ahead: TimeInterval = 86_400) async throws -> Int {
        var made = 0
        for kind in PlanKind.allCases {
            var from = now
            while true {
                let plans = try await store.plans(of: kind, startingFrom: from, to: now.addingTimeInterval(ahead), limit: 1_000)
                for plan in plans { made += await remind(plan) }
                guard plans.count == 1_000, let last = plans.last else { break }
                from = last.startsAt.addingTimeInterval(0.001)
            }
        }
        return made
    }

    /// Who `plan` reminds, each with the data their reminder adds: an itinerary's owner,
    /// editors and viewers; a trip's author and every invitee who has not declined, with their
    /// answer (`invited` for one still to answer).
    public static func people(_ plan: PlanRecord) -> [(username: String, extra: [String: String])] {
        switch plan.kind {
        case .itinerary:
            return [(plan.owner, [:])] + plan.members.filter { $0.role != .invitee }.map { ($0.username, [:]) }
        case .trip:
            return [(plan.owner, [:])]
                + plan.members.filter { $0.role == .invitee && $0.answer != .declined }.map {
                    ($0.username, ["answer": ($0.answer ?? .invited).rawValue])
                }
        }
    }

    /// The reminders of one plan. - Returns: how many were made.
    func remind(_ plan: PlanRecord) async -> Int {
        let title: String
        let kind: String
        switch plan.kind {
        case .itinerary:
            title = (try? JSONDecoder().decode(ItineraryDocument.self, from: plan.document).title) ?? ""
            kind = "itinerary_reminder"
        case .trip:
            title = (try? JSONDecoder().decode(TripDocument.self, from: plan.document).title) ?? ""
            kind = "trip_reminder"
        }
        let id = "reminder:\(plan.id):\(Int(plan.startsAt.timeIntervalSince1970))"
        var made = 0
        for (person, extra) in Self.people(plan) {
            let data = [plan.kind.rawValue: plan.id, "title": title, "start": plan.startsAt.formatted(.iso8601)].merging(extra) { first, _ in first }
            if await notifier.notify(person, kind: kind, data: data, id: id) { made += 1 }
        }
        return made
    }
}
