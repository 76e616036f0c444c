import Foundation
import PlaceQuery
import Testing

@testable import Trips

/// Who a plan reminds, and that each reminder is made once per plan and start.
@Suite struct PlanRemindersTests {
    final class Inbox: Notifier, @unchecked Sendable {
        // @unchecked Sendable: `made` is touched only under `lock`.
        private let lock = NSLock()
        private var made: [String: Set<String>] = [:]
        private(set) var data: [String: [String: String]] = [:]

        func notify(_ username: String, kind: String, data: [String: String], id: String?) async -> Bool {
            lock.withLock {
                let key = id ?? UUID().uuidString
                guard made[username, default: []].insert(key).inserted else { return false }
                self.data[username + " " + kind] = data
                return true
            }
        }

        var people: [String] { lock.withLock { data.keys.sorted() } }
    }

    /// A schedule with no plans (``PlanReminders/remind(_:)`` reads none).
    struct NoPlans: PlanSchedule {
        func plans(of kind: PlanKind, startingFrom from: Date, to: Date, limit: Int) async throws -> [PlanRecord] { [] }
    }

    static func plan(_ kind: PlanKind, members: [PlanMember], startsAt: Date = Date(timeIntervalSince1970: 1_900_000_000)) -> PlanRecord {
        PlanRecord(
            id: kind == .trip ? "tr_1" : "it_1", kind: kind, owner: "ann", visibility: .private, members: members,
            startsAt: startsAt, endsAt: startsAt.addingTimeInterval(3_600), createdAt: startsAt, updatedAt: startsAt,
            document: Data("{}".utf8))
    }

    @Test func anItineraryRemindsItsOwnerAndCollaborators() async {
        let inbox = Inbox()
        let plan = Self.plan(.itinerary, members: [PlanMember(username: "bob", role: .editor), PlanMember(username: "cat", role: .viewer)])
        let reminders = PlanReminders(store: NoPlans(), notifier: inbox)
        #expect(await reminders.remind(plan) == 3)
        #expect(await reminders.remind(plan) == 0, "once per plan and start")
        #expect(inbox.people == ["ann itinerary_reminder", "bob itinerary_reminder", "cat itinerary_reminder"])
        #expect(inbox.data["bob itinerary_reminder"]?["itinerary"] == "it_1")
        #expect(inbox.data["bob itinerary_reminder"]?["start"] == "2030-03-17T17:46:40Z")
        var moved = plan
        moved.startsAt = plan.startsAt.addingTimeInterval(86_400)
        #expect(await reminders.remind(moved) == 3, "a plan moved to a new start reminds again")
    }

    @Test func aTripRemindsEveryInviteeWhoHasNotDeclined() async {
        let inbox = Inbox()
        let plan = Self.plan(
            .trip,
            members: [
                PlanMember(username: "bob", role: .invitee, answer: .accepted), PlanMember(username: "cat", role: .invitee, answer: .invited),
                PlanMember(username: "dan", role: .invitee, answer: .declined), PlanMember(username: "eve", role: .invitee, answer: .maybe),
            ])
        #expect(await PlanReminders(store: NoPlans(), notifier: inbox).remind(plan) == 4)
        #expect(inbox.people == ["ann trip_reminder", "bob trip_reminder", "cat trip_reminder", "eve trip_reminder"], "not dan, who declined")
        #expect(inbox.data["cat trip_reminder"]?["answer"] == "invited" && inbox.data["ann trip_reminder"]?["answer"] == nil)
        #expect(inbox.data["bob trip_reminder"]?["trip"] == "tr_1")
    }
}
