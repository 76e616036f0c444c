import GeoCore

/// Why a friend or block request cannot be done; each message says what to do instead.
public enum SocialError: ClassifiedError, Equatable {
    /// No account has this name — or the asker and its owner blocked one another, and the
    /// asker is told no more than that.
    case noSuchUser(String)
    case cannotBefriendYourself
    case cannotBlockYourself
    /// There is no friendship or request between the asker and this user.
    case noFriendship(with: String)
    /// The asker has not blocked this user.
    case notBlocked(String)
    case cannotFollowYourself
    /// The asker does not follow this user.
    case notFollowing(String)
    /// A paging position that no page of this list gave.
    case invalidCursor(String)
    /// A friendship state that is not one.
    case invalidState(String)

    public var kind: FailureKind {
        switch self {
        case .noSuchUser, .noFriendship, .notBlocked, .notFollowing: .notFound
        case .cannotBefriendYourself, .cannotBlockYourself, .cannotFollowYourself, .invalidCursor, .invalidState: .invalidInput
        }
    }

    public var description: String {
        switch self {
        case .noSuchUser(let name): "no user named '\(name.prefix(60))'"
        case .cannotBefriendYourself: "you cannot befriend yourself"
        case .cannotBlockYourself: "you cannot block yourself"
        case .noFriendship(let other): "you have no friendship or request with '\(other.prefix(60))'"
        case .notBlocked(let name): "you have not blocked '\(name.prefix(60))'"
        case .cannotFollowYourself: "you cannot follow yourself"
        case .notFollowing(let name): "you do not follow '\(name.prefix(60))'"
        case .invalidCursor(let text): "cursor '\(text.prefix(60))' is invalid: pass next_cursor of the previous page"
        case .invalidState(let text):
            "state '\(text.prefix(60))' is invalid: use accepted, requested or incoming (or several, comma-separated)"
        }
    }
}
