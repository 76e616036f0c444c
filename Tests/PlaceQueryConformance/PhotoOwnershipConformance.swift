import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// Whose storage a photo counts against, uploads that were never attached, and the pages of an
/// account's photos, as every ``UserDataStore`` must keep them: a store's tests call
/// ``check(_:)`` on an empty store and expect no disagreement.
public enum PhotoOwnershipConformance {
    /// Every disagreement with the protocols' documented behaviour (empty when the store conforms).
    public static func check(_ store: any UserDataStore) async throws -> [String] {
        var failures = Disagreements()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for name in ["ann", "bob", "cat", "dan"] {
            try await store.createUser(UserAccount(username: name, email: "\(name)@example.org", passwordHash: "x", createdAt: now))
        }
        func photo(_ number: Int, owner: String, bytes: Int = 100, at time: Date = now) -> PhotoRecord {
            PhotoRecord(id: String(format: "%064x", number), contentType: "image/png", byteCount: bytes, owner: owner, createdAt: time)
        }
        func id(_ number: Int) -> String { String(format: "%064x", number) }
        func owner(_ number: Int) async throws -> String? { try await store.photo(id: id(number))?.owner }
        func setAvatar(_ username: String, _ number: Int?) async throws {
            guard var account = try await store.user(named: username) else { return }
            account.profile.avatarPhoto = number.map(id)
            try await store.updateUser(account)
        }

        // The same bytes, shown by two accounts: the first uploader pays while they show it.
        try await store.savePhoto(photo(1, owner: "ann", bytes: 300), storageLimit: 1_000)
        try await setAvatar("ann", 1)
        try await store.savePhoto(photo(1, owner: "bob", bytes: 300), storageLimit: 1_000)
        let gemID = try PlaceID(source: "gem", localID: "photo-owner")
        var gem = Place(
            id: gemID, name: "Shared view", coordinate: try Coordinate(latitude: 43.7, longitude: 7.4),
            provenance: Provenance(source: "gem", sourceID: gemID.localID), gem: HiddenGem(owner: "bob", visibility: .public))
        gem.photos = [PhotoReference(url: "/v1/photos/\(id(1))", reference: "photo:" + id(1))]
        try await store.createGem(gem)
        failures.expect(try await owner(1) == "ann", "a photo stored already keeps its first uploader")
        // Ann stops showing it; bob's gem still does: bob pays from now on.
        try await setAvatar("ann", nil)
        failures.expect(try await store.removeUnusedPhotos([id(1)]).isEmpty, "a photo a gem shows is not removed")
        let heir = try await owner(1)
        failures.expect(heir == "bob", "a photo passes to the account that still shows it, got \(String(describing: heir))")
        let annBytes = try await store.photoBytes(ownedBy: "ann"), bobBytes = try await store.photoBytes(ownedBy: "bob")
        failures.expect(annBytes == 0 && bobBytes == 300, "storage follows the photo: ann 0 and bob 300 bytes, got \(annBytes) and \(bobBytes)")

        // Shown by two others (a trip album and an avatar): the first by code point order gets it.
        try await store.createPlan(
            PlanRecord(
                id: "trip_photo", kind: .trip, owner: "dan", visibility: .private,
                members: [],
                startsAt: now, endsAt: now.addingTimeInterval(3_600), createdAt: now, updatedAt: now,
                document: Data("{}".utf8)))
        _ = try await store.addAlbumPhoto(AlbumPhoto(photoID: id(1), uploader: "dan", addedAt: now), to: "trip_photo")
        try await setAvatar("cat", 1)
        let unused = try await store.deleteGem(gemID)
        failures.expect(unused.isEmpty, "deleting the gem leaves a photo others show, removed \(unused)")
        let first = try await owner(1)
        failures.expect(first == "cat", "of cat (avatar) and dan (album), cat gets the photo, got \(String(describing: first))")
        // Cat's account goes: dan, who still shows it, pays; a new cat pays nothing.
        _ = try await store.deleteUser(named: "cat")
        let next = try await owner(1)
        failures.expect(next == "dan", "a deleted account's photo passes to who shows it, got \(String(describing: next))")
        try await store.createUser(UserAccount(username: "cat", email: "cat@example.org", passwordHash: "x", createdAt: now))
        failures.expect(try await store.photoBytes(ownedBy: "cat") == 0, "a new account named cat pays for none of the old cat's photos")
        // The album photo goes: nothing shows it, so it is removed.
        failures.expect(try await store.removeAlbumPhoto(id(1), from: "trip_photo") == [id(1)], "the last use gone, the photo goes")
        failures.expect(try await store.photo(id: id(1)) == nil, "and is no longer recorded")

        // An upload never attached (the process stopped) is taken over by the next upload of
        // the same bytes, which pays for it, and removed by the sweep once old enough.
        let earlier = now.addingTimeInterval(-7_200)
        try await store.savePhoto(photo(2, owner: "ann", bytes: 400, at: earlier), storageLimit: nil)
        do {
            try await store.savePhoto(photo(2, owner: "bob", bytes: 400), storageLimit: 300)
            failures.append("taking over an unused photo of 400 bytes ignored bob's limit of 300")
        } catch let error as UserDataError {
            failures.expect(
                error == .storageFull(owner: "bob", used: 0, adding: 400, limit: 300), "the take-over is refused like a new photo: \(error)")
        }
        failures.expect(try await owner(2) == "ann", "a refused take-over leaves the photo as it was")
        try await store.savePhoto(photo(2, owner: "dan", bytes: 400), storageLimit: 500)
        let taken = try await store.photo(id: id(2))
        failures.expect(
            taken?.owner == "dan" && taken?.createdAt == now,
            "an unused photo uploaded again is the new uploader's, now: \(String(describing: taken))")
        try await store.savePhoto(photo(3, owner: "ann", at: earlier), storageLimit: nil)
        try await store.savePhoto(photo(4, owner: "ann", at: earlier), storageLimit: nil)
        try await setAvatar("ann", 4)
        let swept = try await store.removeUnusedPhotos(storedBefore: now.addingTimeInterval(-3_600))
        failures.expect(swept == [id(3)], "the sweep removes the old unused photo only (not the new one, not the avatar), removed \(swept)")
        let young = try await store.photo(id: id(2)), used = try await store.photo(id: id(4))
        failures.expect(young != nil && used != nil, "the young and the used photos stay")
        failures.expect(try await store.removeUnusedPhotos(storedBefore: now.addingTimeInterval(-3_600)).isEmpty, "a second sweep finds nothing")

        // Pages, newest first, ties by id; a page resumes after a photo that has gone since.
        for number in 10..<17 {
            let time = now.addingTimeInterval(Double(number / 2))  // pairs at the same instant
            try await store.savePhoto(photo(number, owner: "bob", bytes: 1, at: time), storageLimit: nil)
        }
        let all = try await store.photos(ownedBy: "bob", after: nil, limit: 100).map(\.id)
        failures.expect(all == [16, 14, 15, 12, 13, 10, 11].map(id), "bob's photos newest first, ties by id: \(all)")
        var paged: [String] = []
        var after: (uploadedAt: Date, id: String)?
        while true {
            let page = try await store.photos(ownedBy: "bob", after: after, limit: 3)
            paged += page.map(\.id)
            guard page.count == 3, let last = page.last else { break }
            after = (last.createdAt, last.id)
            if last.id == id(15) { _ = try await store.removeUnusedPhotos([id(15)]) }  // the anchor goes
        }
        failures.expect(paged == all, "pages of 3 list every photo once, in order, past a removed anchor: \(paged) against \(all)")

        // Where a person shows photos: all of it, or only the uses of the photos asked about.
        try await store.savePhoto(photo(20, owner: "ann"), storageLimit: nil)
        try await store.savePhoto(photo(21, owner: "ann"), storageLimit: nil)
        let annGemID = try PlaceID(source: "gem", localID: "photo-uses")
        var annGem = Place(
            id: annGemID, name: "Two photos", coordinate: try Coordinate(latitude: 43.7, longitude: 7.4),
            provenance: Provenance(source: "gem", sourceID: annGemID.localID), gem: HiddenGem(owner: "ann", visibility: .private))
        annGem.photos = [20, 21].map { PhotoReference(url: "/v1/photos/\(id($0))", reference: "photo:" + id($0)) }
        try await store.createGem(annGem)
        func described(_ uses: [PhotoUse]) -> [String] {
            uses.map { "\($0.photoID == id(4) ? "4" : $0.photoID == id(20) ? "20" : $0.photoID == id(21) ? "21" : $0.photoID) \($0.kind.rawValue)" }
                .sorted()
        }
        let every = described(try await store.photoUses(by: "ann", among: nil))
        failures.expect(every == ["20 gem", "21 gem", "4 avatar"], "ann shows her avatar and two photos on her gem: \(every)")
        let some = described(try await store.photoUses(by: "ann", among: [id(4), id(20), id(99)]))
        failures.expect(some == ["20 gem", "4 avatar"], "only the uses of the photos asked about: \(some)")
        let none = try await store.photoUses(by: "ann", among: [])
        failures.expect(none.isEmpty, "no photos asked about, no uses: \(none)")
        let others = try await store.photoUses(by: "bob", among: [id(20)])
        failures.expect(others.isEmpty, "another person's gem is not where bob shows a photo: \(others)")
        return failures.list
    }
}
