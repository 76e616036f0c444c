import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PlaceQueryConformance
import Testing

@testable import PlaceStore

/// The user data store's schema: versioned migrations, an upgrade that keeps the data, and
/// refusal of a file from a newer version.
@Suite struct UserStoreTests {
    func temporaryPath() throws -> (URL, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, directory.appendingPathComponent("users.sqlite").path)
    }

    @Test func aDatabaseOfThePreviousSchemaIsUpgradedWithItsData() async throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A file as version 1 left it: accounts, a session, a gem with a rating; no photo tables.
        do {
            let index = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
            try SQLiteUserStore.migrate(index, upTo: 1)
            try index.connection.execute(
                """
                INSERT INTO users VALUES ('old', 'old@example.org', '$2b$11$abcdefghijklmnopqrstuv', '{"displayName":"Old Timer"}', 1700000000);
                INSERT INTO users VALUES ('rater', 'rater@example.org', '$2b$11$abcdefghijklmnopqrstuv', '{}', 1700000000);
                INSERT INTO sessions VALUES ('hash', 'old', 1700000000, 4000000000);
                INSERT INTO gems VALUES ('gem:aa', 'old', 'public', 1700000000);
                INSERT INTO ratings VALUES ('gem:aa', 'rater', 4, 1700000000);
                """)
            try index.upsert([
                Place(
                    id: try PlaceID("gem:aa"), name: "Old Gem", coordinate: try Coordinate(latitude: 1, longitude: 2),
                    gem: HiddenGem(owner: "old", visibility: .public))
            ])
            #expect(try index.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'photos'") == 0)
        }
        let store = try SQLiteUserStore(path: path, threads: 2)
        defer { Task { try? await store.shutdown() } }
        #expect(try await store.reading { try $0.scalarInt("SELECT max(version) FROM user_data_schema") } == Int64(SQLiteUserStore.migrations.count))
        let old = try #require(try await store.user(named: "old"))
        #expect(old.email == "old@example.org" && old.profile.displayName == "Old Timer")
        #expect(try await store.session(tokenHash: "hash")?.username == "old")
        #expect(try await store.gems(ownedBy: "old", after: nil, limit: 10).map(\.name) == ["Old Gem"])
        #expect(try await store.rating(of: try PlaceID("gem:aa"), by: "rater") == 4)
        // What version 2 added works on the upgraded file.
        try await store.savePhoto(
            PhotoRecord(
                id: String(repeating: "ab", count: 32), contentType: "image/png", byteCount: 10,
                owner: "old", createdAt: Date()))
        #expect(try await store.photo(id: String(repeating: "ab", count: 32))?.owner == "old")
        // Opening it again changes nothing.
        _ = try SQLiteUserStore(path: path, threads: 2)
    }

    /// Gems stored before the taxonomy was closed (migration 13): a category outside it is
    /// filed under its nearest category in it, the original kept as `source_category`; the
    /// gem's version and its other fields stay, and a gem inside the taxonomy is not rewritten.
    @Test func gemsFromBeforeTheTaxonomyAreFiledUnderIt() async throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let edited = Date(timeIntervalSince1970: 1_750_000_000)
        func gem(_ id: String, _ categories: [String], tags: [String: String] = [:]) throws -> Place {
            try Place(
                id: PlaceID(id), name: id, coordinate: Coordinate(latitude: 48.85, longitude: 2.35),
                categories: categories.map { Category(trustedIdentifier: $0) }, tags: tags,
                gem: HiddenGem(owner: "old", visibility: .public, description: "kept", createdAt: edited, updatedAt: edited))
        }
        do {
            let index = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
            try SQLiteUserStore.migrate(index, upTo: 12)
            try index.connection.execute(
                """
                INSERT INTO gems VALUES ('gem:old', 'old', 'public', 1700000000);
                INSERT INTO gems VALUES ('gem:fine', 'old', 'public', 1700000000);
                """)
            try index.upsert([
                try gem("gem:old", ["nature.viewpoint", "food.cafe", "food.ramen", "food"], tags: ["wheelchair": "yes"]),
                try gem("gem:fine", ["water.beach"]),
            ])
        }
        let store = try SQLiteUserStore(path: path, threads: 2)
        defer { Task { try? await store.shutdown() } }
        let old = try #require(try await store.place(PlaceID("gem:old")))
        #expect(old.categories.map(\.identifier) == ["nature", "food.cafe", "food"])
        #expect(old.tags == ["wheelchair": "yes", "source_category": "nature.viewpoint;food.ramen"])
        #expect(old.gem?.description == "kept" && old.gem?.updatedAt == edited && old.name == "gem:old")
        let fine = try #require(try await store.place(PlaceID("gem:fine")))
        #expect(fine.categories.map(\.identifier) == ["water.beach"] && fine.tags.isEmpty)
        // A filter finds the gem by what it is filed under; no category outside is left to find.
        let nature = try await store.near(
            try Coordinate(latitude: 48.85, longitude: 2.35), radius: Distance(meters: 10),
            filter: PlaceFilter(categories: [try Category("nature")], viewer: "old"), limit: nil, cursor: nil)
        #expect(nature.matches.map(\.id.rawValue) == ["gem:old"])
        let left = try await store.reading { connection in
            var found: [String] = []
            try connection.each("SELECT DISTINCT category FROM place_categories") { found.append($0.text(0) ?? "") }
            return found.filter { !Category.isInTaxonomy($0) }
        }
        #expect(left.isEmpty)
    }

    @Test func aFileFromANewerVersionIsRefused() throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let index = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
            try SQLiteUserStore.migrate(index, upTo: SQLiteUserStore.migrations.count)
            try index.connection.execute("UPDATE user_data_schema SET version = 99")
        }
        let error = #expect(throws: PlaceStoreError.self) { _ = try SQLiteUserStore(path: path, threads: 2) }
        guard case .schemaTooNew(found: 99, supported: SQLiteUserStore.migrations.count) = error else {
            Issue.record("expected schemaTooNew, got \(String(describing: error))")
            return
        }
    }

    @Test func ratingsAndTheGemMeanCommitTogether() async throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteUserStore(path: path, threads: 2)
        defer { Task { try? await store.shutdown() } }
        let id = try PlaceID("gem:bb")
        try await store.createGem(
            Place(
                id: id, name: "Rated", coordinate: try Coordinate(latitude: 0, longitude: 0),
                gem: HiddenGem(owner: "a", visibility: .public)))
        _ = try await store.rate(id, by: "b", stars: 5)
        _ = try await store.rate(id, by: "c", stars: 2)
        let rating = try #require(try await store.place(id)?.rating)
        #expect(rating.value == 3.5 && rating.count == 2)
        // An edit of the gem keeps the mean its ratings give, whatever the edit says.
        var edited = try #require(try await store.place(id))
        edited.rating = nil
        edited.name = "Rated, renamed"
        try await store.updateGem(edited)
        #expect(try await store.place(id)?.rating?.value == 3.5)
        // A rating of a gem that does not exist changes nothing and says so.
        await #expect(throws: UserDataError.notFound("the gem gem:cc")) { _ = try await store.rate(try PlaceID("gem:cc"), by: "b", stars: 3) }
    }

    @Test func aNewFileAndItsLogAreTheOwnersAloneWhateverTheUmask() async throws {
        let (directory, path) = try temporaryPath()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The usual umask, which leaves new files readable by everyone (0644).
        let previous = umask(0o022)
        let store: SQLiteUserStore
        do {
            defer { umask(previous) }
            store = try SQLiteUserStore(path: path, threads: 2)
        }
        defer { Task { try? await store.shutdown() } }
        try await store.createGem(
            Place(
                id: try PlaceID("gem:dd"), name: "Written", coordinate: try Coordinate(latitude: 0, longitude: 0),
                gem: HiddenGem(owner: "a", visibility: .public)))
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int, "\(file) exists")
            #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
        }
    }
}

/// Friends, plans, share links, availability, albums and notifications in the SQLite file: the
/// conformance suite every backend runs.
@Suite struct SQLitePlanStoreTests {
    /// Runs a conformance suite on a new user file in a directory of its own, removed after.
    static func conforms(_ check: (any UserDataStore) async throws -> [String]) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteUserStore(path: directory.appendingPathComponent("users.sqlite").path, threads: 2)
        let failures = try await check(store)
        #expect(failures.isEmpty, "\(failures)")
        try await store.shutdown()
    }

    @Test func conformsToThePlanStoreSuite() async throws { try await Self.conforms(PlanStoreConformance.check) }

    @Test func conformsToTheFollowSuite() async throws { try await Self.conforms(FollowConformance.check) }

    @Test func conformsToThePhotoAndSessionSuite() async throws { try await Self.conforms(PhotoAndSessionConformance.check) }

    @Test func conformsToThePhotoOwnershipSuite() async throws { try await Self.conforms(PhotoOwnershipConformance.check) }

    @Test func conformsToTheEditVersionSuite() async throws { try await Self.conforms(EditVersionConformance.check) }

    @Test func conformsToTheFriendLimitSuite() async throws { try await Self.conforms(FriendLimitConformance.check) }

    @Test func conformsToTheAttemptSuite() async throws { try await Self.conforms { try await AttemptConformance.check($0) } }

    @Test func conformsToTheBudgetSuite() async throws { try await Self.conforms { try await BudgetConformance.check($0) } }

    @Test func conformsToTheWebhookDeliverySuite() async throws { try await Self.conforms { try await WebhookDeliveryConformance.check($0) } }

    @Test func conformsToTheRandomCityMemorySuite() async throws {
        try await Self.conforms { try await RandomCityMemoryConformance.checkWithAccountDeletion($0) }
    }

    @Test func conformsToThePopularitySuite() async throws { try await Self.conforms(PopularityConformance.check) }
}
