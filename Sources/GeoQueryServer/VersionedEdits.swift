import Accounts
import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import PlaceModel
import PlaceQuery

/// Edits of a gem that lose nothing: each write goes over the version it read, so two edits at
/// once (two photos added from two phones) both land, and a client that sends `If-Match` with
/// the `ETag` it read is told (412) when the gem changed since, instead of overwriting it.
extension GeoQueryService {
    /// How long an edit (of a gem or an account) goes on being read and applied again while
    /// others write in between. Edits from this process wait their turn (``EditLocks``), so only
    /// writers in other processes (servers sharing one PostgreSQL) make an edit go round again.
    /// A time, not a count: with eight attempts, an edit on one server lost every round to a
    /// queue of nine on the other on a busy machine and answered 409.
    static let editPatience: Duration = .seconds(5)

    /// A random pause before an edit that lost a race goes again, longer after each loss (up to
    /// 1 ms … 64 ms), so writers on several servers that collided spread apart.
    static func pauseBeforeAttempt(after attempt: Int) -> Duration {
        .microseconds(Int.random(in: 1_000...(1_000 << min(attempt, 6))))
    }

    /// A gem's `ETag`: its version (the stored instant of its last change, as the exact bits
    /// of the number). Nil for a gem with no recorded change time.
    static func gemETag(_ gem: Place) -> String? {
        gem.gem?.updatedAt.map { "\"" + String($0.timeIntervalSince1970.bitPattern, radix: 16) + "\"" }
    }

    /// The `If-Match` header's entity tags (`*` matches any gem), nil without the header.
    static func ifMatchTags(_ request: Request) throws -> [String]? {
        guard let header = request.headers[.ifMatch] else { return nil }
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !tags.isEmpty, tags.allSatisfy({ $0 == "*" || ($0.count > 2 && $0.hasPrefix("\"") && $0.hasSuffix("\"")) }) else {
            throw APIProblem.badRequest("If-Match '\(header.prefix(60))' is invalid: send the ETag of the gem you read, in quotes as it came")
        }
        return tags
    }

    /// Reads the owner's gem, applies `change` and writes it over the version it read; when
    /// another request wrote in between, does it again from a fresh read (for up to
    /// ``editPatience``). With `If-Match`, a gem at another version is answered 412
    /// and nothing is written. - Returns: the gem as written.
    func changeGem(
        _ id: PlaceID, by owner: String, request: Request,
        _ change: (inout Place) async throws -> Void
    ) async throws -> Place {
        try await editLocks.serially("gem \(id)") {
            try await changeGemOverItsVersion(id, by: owner, request: request, change)
        }
    }

    /// ``changeGem(_:by:request:_:)`` once this process's other edits of the gem are done.
    private func changeGemOverItsVersion(
        _ id: PlaceID, by owner: String, request: Request,
        _ change: (inout Place) async throws -> Void
    ) async throws -> Place {
        let store = try requireUserData()
        let expected = try Self.ifMatchTags(request)
        let giveUp = ContinuousClock.now + Self.editPatience
        for attempt in 1... {
            var gem = try await ownedGem(id, by: owner)
            let version = gem.gem?.updatedAt
            if let expected, !expected.contains("*"), !expected.contains(Self.gemETag(gem) ?? "") {
                throw Self.gemChanged(gem)
            }
            try await change(&gem)
            gem.gem?.updatedAt = Date()
            do {
                try await store.updateGem(gem, expectedUpdatedAt: version)
                return gem
            } catch UserDataError.conflict {
                guard expected == nil else { throw Self.gemChanged(try await ownedGem(id, by: owner)) }
                guard ContinuousClock.now < giveUp else { break }
                try await Task.sleep(for: Self.pauseBeforeAttempt(after: attempt))
            }
        }
        throw APIProblem(.conflict, "gem \(id) is being changed by others at this moment: try again")
    }

    static func gemChanged(_ gem: Place) -> APIProblem {
        APIProblem(
            .preconditionFailed,
            "gem \(gem.id) changed since the version you read (its ETag is now \(gemETag(gem) ?? "none")): "
                + "read it again and apply your change to it")
    }
}

extension GeoQueryService {
    /// Reads the account, applies `change` and writes it over the version it read; when another
    /// request changed the account in between (the profile from a second device, the avatar,
    /// the webhook), does it again from a fresh read, so neither change is lost.
    /// - Returns: the account as written.
    func changeAccount(_ username: String, _ change: (inout UserAccount) async throws -> Void) async throws -> UserAccount {
        try await editLocks.serially("account \(username)") {
            try await changeAccountOverItsVersion(username, change)
        }
    }

    /// ``changeAccount(_:_:)`` once this process's other edits of the account are done.
    private func changeAccountOverItsVersion(
        _ username: String,
        _ change: (inout UserAccount) async throws -> Void
    ) async throws -> UserAccount {
        let store = try requireUserData()
        let giveUp = ContinuousClock.now + Self.editPatience
        for attempt in 1... {
            guard let read = try await store.user(named: username) else { throw AccountError.notSignedIn }
            var account = read
            try await change(&account)
            do {
                try await store.updateUser(account, expected: read)
                return account
            } catch UserDataError.conflict {
                guard ContinuousClock.now < giveUp else { break }
                try await Task.sleep(for: Self.pauseBeforeAttempt(after: attempt))
            }
        }
        throw APIProblem(.conflict, "the account \(username) is being changed by others at this moment: try again")
    }
}
