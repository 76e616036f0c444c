import Foundation
import PlaceModel
import PlaceQuery

/// The semantics every ``PlanStore`` (friends, itineraries and trips, share links, availability,
/// albums, notifications) must have, written once and run on each backend: a store's tests call
/// ``check(_:)`` on an empty store and expect no disagreement.
public enum PlanStoreConformance {
    /// Every disagreement with the protocol's documented behaviour (empty when the store conforms).
    public static func check(_ store: any UserDataStore) async throws -> [String] {
        var failures = Disagreements()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for name in ["ann", "bob", "cat", "dan"] {
            try await store.createUser(UserAccount(username: name, email: "\(name)@example.org", passwordHash: "x", createdAt: now))
        }

        // Friends: a request, seen from both sides; the reverse request accepts it; a decline forgets it.
        let asked = try await store.requestFriendship(from: "ann", to: "bob", at: now)
        failures.expect(asked.state == .requested, "a new request is 'requested' to its sender, got \(asked.state)")
        failures.expect(
            try await store.friendships(of: "bob") == [Friendship(username: "ann", state: .incoming, since: now)],
            "the addressee sees the request as incoming")
        failures.expect(try await !store.areFriends("ann", "bob"), "a request alone does not make friends")
        let again = try await store.requestFriendship(from: "ann", to: "bob", at: now.addingTimeInterval(5))
        failures.expect(again == Friendship(username: "bob", state: .requested, since: now), "asking twice keeps the first request, got \(again)")
        let reverse = try await store.requestFriendship(from: "bob", to: "ann", at: now.addingTimeInterval(10))
        failures.expect(reverse.state == .accepted, "asking someone who asked you accepts, got \(reverse.state)")
        let annSeesBob = try await store.areFriends("ann", "bob"), bobSeesAnn = try await store.areFriends("bob", "ann")
        failures.expect(annSeesBob && bobSeesAnn, "friendship is symmetric")
        _ = try await store.requestFriendship(from: "cat", to: "ann", at: now)
        failures.expect(
            try await store.answerFriendship(of: "bob", from: "cat", accept: true, at: now) == false,
            "only the addressee answers a request")
        failures.expect(try await store.answerFriendship(of: "ann", from: "cat", accept: false, at: now), "the addressee declines")
        failures.expect(try await store.friendships(of: "cat").isEmpty, "a declined request is gone")
        _ = try await store.requestFriendship(from: "dan", to: "ann", at: now)
        failures.expect(try await store.answerFriendship(of: "ann", from: "dan", accept: true, at: now), "the addressee accepts")
        failures.expect(try await store.friendships(of: "ann").map(\.username) == ["bob", "dan"], "friends are listed by username")
        failures.expect(try await store.removeFriendship(between: "ann", and: "dan"), "either side ends a friendship")
        failures.expect(try await !store.areFriends("dan", "ann"), "an ended friendship is gone both ways")
        failures.expect(try await !store.removeFriendship(between: "ann", and: "dan"), "ending it twice finds nothing")

        // Plans: round trip, revisions, listings.
        func plan(_ id: String, _ kind: PlanKind, owner: String, day: Double, members: [PlanMember] = []) -> PlanRecord {
            PlanRecord(
                id: id, kind: kind, owner: owner, visibility: .private, members: members,
                startsAt: now.addingTimeInterval(day * 86_400), endsAt: now.addingTimeInterval(day * 86_400 + 7_200),
                createdAt: now, updatedAt: now, document: Data("{\"title\":\"\(id)\"}".utf8))
        }
        let first = plan(
            "it_a", .itinerary, owner: "ann", day: 0,
            members: [PlanMember(username: "cat", role: .viewer), PlanMember(username: "bob", role: .editor)])
        try await store.createPlan(first)
        failures.expect(try await store.plan(id: "it_a") == first, "a plan reads back as written, members sorted")
        var edited = first
        edited.document = Data("{\"title\":\"new\"}".utf8)
        edited.members = [PlanMember(username: "bob", role: .viewer)]
        try await store.updatePlan(edited, expectedRevision: 1)
        let stored = try await store.plan(id: "it_a")
        failures.expect(
            stored?.revision == 2 && stored?.document == edited.document && stored?.members == edited.members,
            "an update writes the document and members and counts the revision, got \(String(describing: stored))")
        do {
            try await store.updatePlan(edited, expectedRevision: 1)
            failures.append("a write from a stale revision is refused")
        } catch UserDataError.conflict {}
        do {
            try await store.updatePlan(plan("it_none", .itinerary, owner: "ann", day: 0), expectedRevision: 1)
            failures.append("updating a plan that does not exist is notFound")
        } catch UserDataError.notFound {}

        var trips: [PlanRecord] = []
        for n in 0..<25 {
            // Some share a start, so the id breaks the tie; bob is invited to every third.
            let members = n % 3 == 0 ? [PlanMember(username: "bob", role: .invitee, answer: .invited)] : []
            let trip = plan(String(format: "tr_%02d", n), .trip, owner: n % 2 == 0 ? "ann" : "dan", day: Double(n / 2) - 6, members: members)
            try await store.createPlan(trip)
            trips.append(trip)
        }
        for (user, window) in [("ann", PlanWindow.all), ("ann", .upcoming(now)), ("ann", .past(now)), ("bob", .upcoming(now)), ("cat", .all)] {
            let involved = trips.filter { $0.owner == user || $0.member(user) != nil }
            var expected: [PlanRecord]
            switch window {
            case .all: expected = involved.sorted { ($0.startsAt, $0.id) < ($1.startsAt, $1.id) }
            case .upcoming(let at): expected = involved.filter { $0.endsAt >= at }.sorted { ($0.startsAt, $0.id) < ($1.startsAt, $1.id) }
            case .past(let at): expected = involved.filter { $0.endsAt < at }.sorted { ($0.startsAt, $0.id) > ($1.startsAt, $1.id) }
            }
            var paged: [PlanRecord] = []
            var position: PlanListPosition?
            while true {
                let page = try await store.plans(of: .trip, involving: user, window: window, after: position, limit: 4)
                paged += page
                guard page.count == 4, let last = page.last else { break }
                position = PlanListPosition(startsAt: last.startsAt, id: last.id)
            }
            failures.expect(
                paged.map(\.id) == expected.map(\.id), "\(user)'s trips \(window) in pages of 4: \(paged.map(\.id)) ≠ \(expected.map(\.id))")
        }
        failures.expect(
            try await store.plans(of: .itinerary, involving: "bob", window: .all, after: nil, limit: 10).map(\.id) == ["it_a"],
            "a member lists the itinerary")
        failures.expect(
            try await store.plans(of: .itinerary, involving: "cat", window: .all, after: nil, limit: 10).isEmpty,
            "a removed member no longer lists it")
        let soon = try await store.plans(of: .trip, startingFrom: now, to: now.addingTimeInterval(86_400), limit: 10)
        failures.expect(soon.map(\.id) == ["tr_12", "tr_13"], "trips starting within a day, got \(soon.map(\.id))")

        // Share links.
        let link = ShareLink(
            id: "sh_1", tokenHash: String(repeating: "a", count: 64), planID: "it_a", createdAt: now,
            expiresAt: now.addingTimeInterval(3_600))
        try await store.createShare(link)
        try await store.createShare(
            ShareLink(
                id: "sh_2", tokenHash: String(repeating: "b", count: 64), planID: "it_a",
                createdAt: now.addingTimeInterval(1)))
        failures.expect(try await store.share(tokenHash: link.tokenHash) == link, "a link reads back by its token's hash")
        failures.expect(try await store.recordShareView(id: "sh_1", at: now) == 1, "the first view counts 1")
        failures.expect(try await store.recordShareView(id: "sh_1", at: now.addingTimeInterval(60)) == 2, "the second view counts 2")
        let viewed = try await store.share(tokenHash: link.tokenHash)
        failures.expect(viewed?.lastViewedAt == now.addingTimeInterval(60) && viewed?.viewCount == 2, "views are kept with the last time")
        failures.expect(try await store.shares(of: "it_a").map(\.id) == ["sh_2", "sh_1"], "links are listed newest first")
        failures.expect(try await store.revokeShare(id: "sh_1", of: "tr_00", at: now) == false, "a link is revoked only through its plan")
        failures.expect(try await store.revokeShare(id: "sh_1", of: "it_a", at: now), "the plan's link is revoked")
        failures.expect(try await store.revokeShare(id: "sh_1", of: "it_a", at: now) == false, "revoking twice finds nothing live")
        failures.expect(try await store.share(tokenHash: link.tokenHash)?.isLive(at: now) == false, "a revoked link is not live")

        // Availability and albums.
        let busy = [BusyInterval(start: now, end: now.addingTimeInterval(3_600))]
        try await store.setAvailability(of: "bob", for: "tr_00", busy: busy, at: now)
        try await store.setAvailability(of: "ann", for: "tr_00", busy: [], at: now)
        try await store.setAvailability(of: "bob", for: "tr_00", busy: busy + busy, at: now)
        failures.expect(try await store.availability(for: "tr_00") == ["bob": busy + busy, "ann": []], "availability is replaced per member")
        try await store.savePhoto(PhotoRecord(id: "p1", contentType: "image/png", byteCount: 10, owner: "bob", createdAt: now))
        failures.expect(
            try await store.addAlbumPhoto(AlbumPhoto(photoID: "p1", uploader: "bob", addedAt: now), to: "tr_00"), "a photo joins the album")
        failures.expect(try await !store.addAlbumPhoto(AlbumPhoto(photoID: "p1", uploader: "ann", addedAt: now), to: "tr_00"), "only once")
        failures.expect(try await store.album(of: "tr_00") == [AlbumPhoto(photoID: "p1", uploader: "bob", addedAt: now)], "the album lists it")
        failures.expect(try await store.removeAlbumPhoto("p1", from: "tr_00") == ["p1"], "removing the last use frees the photo")
        failures.expect(try await store.removeAlbumPhoto("p1", from: "tr_00") == nil, "removing twice finds nothing")
        failures.expect(try await store.photo(id: "p1") == nil, "a photo nothing uses is gone")

        // Notifications: dedupe by id, newest first, paging, read marks.
        for n in 0..<7 {
            let added = try await store.addNotification(
                UserNotification(
                    id: "n\(n)", username: "ann", kind: "friend_request",
                    data: ["from": "u\(n)"], createdAt: now.addingTimeInterval(Double(n / 2))))
            failures.expect(added, "notification n\(n) is added")
        }
        failures.expect(
            try await !store.addNotification(UserNotification(id: "n3", username: "ann", kind: "x", data: [:], createdAt: now)),
            "a notification id is made once")
        var ids: [String] = []
        var after: String?
        while true {
            let page = try await store.notifications(of: "ann", unreadOnly: false, after: after, limit: 3)
            ids += page.map(\.id)
            guard page.count == 3 else { break }
            after = page.last?.id
        }
        failures.expect(ids == ["n6", "n4", "n5", "n2", "n3", "n0", "n1"], "newest first, ties by id, paged: \(ids)")
        failures.expect(
            try await store.notifications(of: "ann", unreadOnly: false, after: nil, limit: 1).first?.data == ["from": "u6"],
            "the data reads back")
        failures.expect(try await store.markNotificationsRead(of: "ann", ids: ["n1", "n2", "nx"], at: now) == 2, "two are marked read")
        failures.expect(try await store.markNotificationsRead(of: "bob", ids: ["n3"], at: now) == 0, "only one's own notifications")
        failures.expect(try await store.notifications(of: "ann", unreadOnly: true, after: nil, limit: 10).count == 5, "five stay unread")
        failures.expect(try await store.markNotificationsRead(of: "ann", ids: nil, at: now) == 5, "the rest are marked read")

        // Deleting a plan takes its links; deleting a user takes their plans, places and friendships.
        failures.expect(try await store.deletePlan(id: "it_a") == [], "a plan is deleted")
        failures.expect(try await store.deletePlan(id: "it_a") == nil, "deleting twice finds nothing")
        failures.expect(try await store.share(tokenHash: link.tokenHash) == nil, "its links are gone")
        _ = try await store.deleteUser(named: "bob")
        failures.expect(try await store.plan(id: "tr_00")?.members.isEmpty == true, "a deleted user leaves the plans they were on")
        failures.expect(try await store.availability(for: "tr_00") == ["ann": []], "and their availability")
        failures.expect(try await store.friendships(of: "ann").isEmpty, "and their friendships")
        _ = try await store.deleteUser(named: "ann")
        failures.expect(try await store.plans(of: .trip, involving: "ann", window: .all, after: nil, limit: 50).isEmpty, "and their plans")
        failures.expect(try await store.notifications(of: "ann", unreadOnly: false, after: nil, limit: 50).isEmpty, "and their notifications")
        failures.expect(try await store.plan(id: "tr_01") != nil, "others' plans stay")
        return failures.list
    }
}
