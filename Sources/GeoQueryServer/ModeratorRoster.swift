import Foundation
import NIOConcurrencyHelpers
import PlaceQuery

/// The accounts that moderate, each known by its username and the instant it was created.
///
/// ``ServiceConfiguration/moderators`` names people; rights go to the accounts those names
/// have when ``GeoQueryService/grantModerators()`` resolves them (at start-up). A name with no
/// account then is warned about and granted nothing, so whoever registers it later is no
/// moderator; an account deleted and registered again under its name is another account (its
/// creation instant differs) and is no moderator either.
final class ModeratorRoster: Sendable {
    // The map is read by every moderation request and written at start-up, under the lock.
    private let accounts = NIOLockedValueBox<[String: Date]>([:])

    func grant(_ account: UserAccount) { accounts.withLockedValue { $0[account.username] = account.createdAt } }

    /// Whether `account` is the very account that was granted its name's rights.
    func isModerator(_ account: UserAccount) -> Bool {
        accounts.withLockedValue { $0[account.username] } == account.createdAt
    }
}

extension GeoQueryService {
    /// Resolves ``ServiceConfiguration/moderators`` to the accounts they name now and grants
    /// those; returns the names that have no account (warned about in the log too).
    @discardableResult
    public func grantModerators() async throws -> [String] {
        guard let store = userData else { return configuration.moderators.sorted() }
        var unknown: [String] = []
        for name in configuration.moderators.sorted() {
            if let account = try await store.user(named: name) {
                moderatorRoster.grant(account)
            } else {
                unknown.append(name)
                logger.warning("moderator '\(name)' has no account: not granted; create the account, then restart the service")
            }
        }
        return unknown
    }
}
