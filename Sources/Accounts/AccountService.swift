import Foundation
import HummingbirdBcrypt
import NIOPosix
import PlaceQuery

/// Sign-up, sign-in, sessions and password changes over any ``AccountStore``.
///
/// Passwords are hashed with bcrypt (hummingbird-auth's `HummingbirdBcrypt`) at ``passwordCost``
/// on a thread pool, never on the caller's thread: a hash takes a tenth of a second or more.
/// A sign-in for an unknown login verifies a dummy hash of the same cost, so it takes as long as
/// a wrong password and answers the same (``AccountError/wrongCredentials``).
public struct AccountService: Sendable {
    public let store: any AccountStore
    /// bcrypt's log2 work factor (at least 11).
    public let passwordCost: UInt8
    /// Sessions end this long after their last use.
    public let sessionLifetime: Duration
    /// Failed sign-ins per account within the window.
    public let accountLimiter: any AttemptLimiter
    /// Sign-in attempts per client address within the window.
    public let addressLimiter: any AttemptLimiter
    /// Sign-ups per client address within the window (each costs a bcrypt hash).
    public let signUpLimiter: any AttemptLimiter
    let pool: NIOThreadPool
    let dummyHash: DummyHash

    /// - Parameters:
    ///   - passwordCost: bcrypt cost, 11 or more (12 is hummingbird-auth's default).
    ///   - pool: where hashing runs.
    public init(
        store: any AccountStore, pool: NIOThreadPool, passwordCost: UInt8 = 11,
        sessionLifetime: Duration = .seconds(30 * 86_400),
        accountLimiter: any AttemptLimiter = RateLimiter(limit: 10, window: .seconds(900)),
        addressLimiter: any AttemptLimiter = RateLimiter(limit: 30, window: .seconds(60)),
        signUpLimiter: any AttemptLimiter = RateLimiter(limit: 10, window: .seconds(3_600))
    ) {
        precondition(passwordCost >= 11 && passwordCost <= 31, "bcrypt cost must be 11 to 31")
        self.store = store
        self.pool = pool
        self.passwordCost = passwordCost
        self.sessionLifetime = sessionLifetime
        self.accountLimiter = accountLimiter
        self.addressLimiter = addressLimiter
        self.signUpLimiter = signUpLimiter
        dummyHash = DummyHash(cost: passwordCost)
    }

    /// A new session: the token to hand out (once) and when it ends unless used.
    public struct IssuedToken: Sendable {
        public var token: String
        public var expiresAt: Date
    }

    /// Creates an account. - Throws: ``AccountError`` for a bad field or a taken name or email;
    /// ``AccountError/rateLimited(retryAfter:)`` past the sign-ups allowed from one address.
    public func signUp(
        username rawName: String, email rawEmail: String, password: String, clientAddress: String,
        now: Date = Date()
    ) async throws -> UserAccount {
        let username = try AccountRules.username(rawName)
        let email = try AccountRules.email(rawEmail)
        try AccountRules.checkPassword(password, username: username, email: email)
        if let wait = try await signUpLimiter.retryAfter(for: clientAddress) { throw AccountError.rateLimited(retryAfter: wait) }
        try await signUpLimiter.recordAttempt(clientAddress)
        let hash = try await hashPassword(password)
        let account = UserAccount(username: username, email: email, passwordHash: hash, createdAt: now)
        do {
            try await store.createUser(account)
        } catch UserDataError.usernameTaken {
            throw AccountError.taken(field: "username", value: username)
        } catch UserDataError.emailTaken {
            throw AccountError.taken(field: "email", value: email)
        }
        return account
    }

    /// Signs in with a username or email and a password, from a client address. `client` is
    /// what signed in as it says (a `User-Agent`), kept with the session for its owner to read.
    /// - Throws: ``AccountError/rateLimited(retryAfter:)`` past the limits;
    ///   ``AccountError/wrongCredentials`` for an unknown login or a wrong password alike.
    public func signIn(
        login: String, password: String, clientAddress: String, client: String? = nil,
        now: Date = Date()
    ) async throws -> (UserAccount, IssuedToken) {
        let login = login.lowercased()
        if let wait = try await addressLimiter.retryAfter(for: clientAddress) { throw AccountError.rateLimited(retryAfter: wait) }
        let account = try await store.user(login: login)
        // Failures count against the account, whichever of its names (username or email) was
        // given: 10 guesses a window per account, not 10 per identifier. An unknown login is
        // counted by what was given.
        let accountKey = account?.username ?? login
        if let wait = try await accountLimiter.retryAfter(for: accountKey) { throw AccountError.rateLimited(retryAfter: wait) }
        try await addressLimiter.recordAttempt(clientAddress)
        let against: String
        if let hash = account?.passwordHash { against = hash } else { against = try await dummyHash.value(on: pool) }
        let matches = try await verify(password, against: against)
        guard let account, matches else {
            try await accountLimiter.recordAttempt(accountKey)
            throw AccountError.wrongCredentials
        }
        try await accountLimiter.clearAttempts(accountKey)
        return (account, try await openSession(for: account.username, client: client, now: now))
    }

    /// A new session for a user (after sign-in, or a password change).
    public func openSession(for username: String, client: String? = nil, now: Date = Date()) async throws -> IssuedToken {
        let token = SessionToken.make()
        let expires = now.addingTimeInterval(sessionLifetime.timeInterval)
        try await store.createSession(
            SessionRecord(
                tokenHash: SessionToken.hash(token), username: username,
                createdAt: now, expiresAt: expires, client: client.flatMap(Self.clientLabel)))
        return IssuedToken(token: token, expiresAt: expires)
    }

    /// The account a bearer token signs in, extending the session's life (sliding expiry; the
    /// stored end moves at most once an hour, so reads do not each cost a write).
    /// - Throws: ``AccountError/notSignedIn`` for an unknown, expired or revoked token.
    public func authenticate(token: String, now: Date = Date()) async throws -> (UserAccount, SessionRecord) {
        let (account, session, _) = try await authenticate(token: token, now: now) { hash in
            try await store.sessionWithAccount(tokenHash: hash).map { ($0.session, $0.account, ()) }
        }
        return (account, session)
    }

    /// ``authenticate(token:now:)`` with the session and account read by `read` from the token's
    /// hash, together with whatever else the caller needs of the same read (a viewer's friends,
    /// from ``ViewerStore/sessionWithAccountAndFriends(tokenHash:)``).
    public func authenticate<Extra: Sendable>(
        token: String, now: Date = Date(),
        reading read: (_ tokenHash: String) async throws -> (session: SessionRecord, account: UserAccount, extra: Extra)?
    ) async throws -> (UserAccount, SessionRecord, Extra) {
        let hash = SessionToken.hash(token)
        guard let (session, account, extra) = try await read(hash), session.expiresAt > now else {
            throw AccountError.notSignedIn
        }
        let renewed = now.addingTimeInterval(sessionLifetime.timeInterval)
        if renewed.timeIntervalSince(session.expiresAt) > 3_600 {
            try await store.extendSession(tokenHash: hash, until: renewed)
        }
        return (account, session, extra)
    }

    /// Ends the session of this token.
    public func signOut(tokenHash: String) async throws {
        try await store.deleteSession(tokenHash: tokenHash)
    }

    /// Checks the current password and the rules for the new one, and answers the new one's
    /// hash, to be written over the version of the account that was read (so a change made
    /// meanwhile from another device, a new avatar say, is kept). Wrong current passwords count
    /// as failed sign-ins of the account (a stolen token cannot be used to guess the password
    /// at leisure). After writing it, end the other sessions: ``endSessions(of:keeping:)``.
    public func newPasswordHash(for account: UserAccount, current: String, new: String) async throws -> String {
        if let wait = try await accountLimiter.retryAfter(for: account.username) { throw AccountError.rateLimited(retryAfter: wait) }
        guard try await verify(current, against: account.passwordHash) else {
            try await accountLimiter.recordAttempt(account.username)
            throw AccountError.invalid(field: "current_password", value: "(hidden)", rule: "it does not match the account's password")
        }
        try AccountRules.checkPassword(new, username: account.username, email: account.email)
        return try await hashPassword(new)
    }

    /// Ends every session of the account but the one of `keeping` (a token's hash): after a
    /// password change, whoever knew the old password is signed out everywhere.
    public func endSessions(of username: String, keeping tokenHash: String) async throws {
        try await store.deleteSessions(of: username, keeping: tokenHash)
    }

    /// bcrypt on the pool.
    func hashPassword(_ password: String) async throws -> String {
        let cost = passwordCost
        return try await pool.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        try await pool.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// A bcrypt hash of a random password at the service's cost, made on the pool the first
    /// time an unknown login needs it (not at start, where it would block the caller).
    final class DummyHash: @unchecked Sendable {
        // @unchecked Sendable: `hash` is read and written only under `lock`.
        private let lock = NSLock()
        private var hash: String?
        let cost: UInt8

        init(cost: UInt8) { self.cost = cost }

        func value(on pool: NIOThreadPool) async throws -> String {
            if let hash = lock.withLock({ hash }) { return hash }
            let cost = self.cost
            let made = try await pool.runIfActive { Bcrypt.hash("a password no account has \(UInt64.random(in: .min ... .max))", cost: cost) }
            return lock.withLock {
                if hash == nil { hash = made }
                return hash!
            }
        }
    }

    /// When `session` was last used, to the hour: its end moves to a full lifetime after each
    /// use, at most once an hour (see ``authenticate(token:now:)``).
    public func lastUsed(_ session: SessionRecord) -> Date {
        max(session.createdAt, session.expiresAt.addingTimeInterval(-sessionLifetime.timeInterval))
    }

    /// A client's self-description as kept: each run of white space or control characters
    /// made one space, at most 200 characters; nil when nothing is left.
    public static func clientLabel(_ text: String) -> String? {
        let spaced = text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) }
        let label = String(spaced).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return label.isEmpty ? nil : String(label.prefix(200))
    }
}

extension Duration {
    /// The duration in seconds, as `Date` arithmetic takes it.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
