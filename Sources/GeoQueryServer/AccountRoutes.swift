import Accounts
import Foundation
import GeoCore
import GeoQueryWire
import Hummingbird
import PlaceModel
import PlaceQuery

/// `/v1/users`, `/v1/sessions`, `/v1/me`: sign-up, sign-in and out, profiles.
extension GeoQueryService {
    func addAccountRoutes(to router: Router<ServiceRequestContext>, table: inout RouteTable) {
        let groups = routeGroups(router)
        let bound = RequestBound.queries(configuration.requestTimeout)
        router.route(.post, "/v1/users", in: &table, bound: bound) { try await signUp($0, $1) }
        router.route(.post, "/v1/sessions", in: &table, bound: bound) { try await signIn($0, $1) }
        groups.members.route(.delete, "/v1/sessions/current", in: &table, bound: bound) { try await signOut($0, $1) }
        groups.members.route(.get, "/v1/me", in: &table, bound: bound) { try await showMe($0, $1) }
        groups.members.route(.patch, "/v1/me", in: &table, bound: bound) { try await changeMe($0, $1) }
        groups.members.route(.delete, "/v1/me", in: &table, bound: bound) { try await deleteMe($0, $1) }
        groups.viewers.route(.get, "/v1/users/{username}", in: &table, bound: bound) { try await showUser($0, $1) }
        router.route(.get, "/v1/users", in: &table, bound: bound) { try await findUsers($0, $1) }
    }

    /// `POST /v1/users`.
    func signUp(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let accounts = try requireAccounts()
        let body = try await JSONBody(request, limit: 16_384, allowed: ["username", "email", "password"])
        let account = try await accounts.signUp(
            username: try body.requiredString("username", maxLength: 100),
            email: try body.requiredString("email", maxLength: 300),
            password: try body.requiredString("password", maxLength: 1_000),
            clientAddress: context.clientAddress)
        // Signed in at once, as sign-in answers (docs/api-conventions.md): an app needs
        // no second call, and the password is not hashed twice.
        let issued = try await accounts.openSession(for: account.username, client: request.headers[.userAgent])
        var response = Response.json(
            Self.signedInJSON(issued, username: account.username, user: privateProfile(account, photoBytes: 0)), status: .created)
        response.headers[.location] = "/v1/users/\(account.username)"
        return response
    }

    /// `POST /v1/sessions`.
    func signIn(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let accounts = try requireAccounts()
        let body = try await JSONBody(request, limit: 16_384, allowed: ["username", "email", "password"])
        guard let login = try body.string("username", maxLength: 300) ?? body.string("email", maxLength: 300) else {
            throw APIProblem.badRequest("field 'username' (or 'email') is required")
        }
        let password = try body.requiredString("password", maxLength: 1_000)
        let (account, issued) = try await accounts.signIn(
            login: login, password: password, clientAddress: context.clientAddress,
            client: request.headers[.userAgent])
        return .json(
            Self.signedInJSON(
                issued, username: account.username,
                user: privateProfile(account, photoBytes: try await requireUserData().photoBytes(ownedBy: account.username))),
            status: .created)
    }

    /// `DELETE /v1/sessions/current`.
    func signOut(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        try await requireAccounts().signOut(tokenHash: user.session.tokenHash)
        return Response(status: .noContent)
    }

    /// `GET /v1/me`.
    func showMe(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let account = context.user.account
        return .json(privateProfile(account, photoBytes: try await requireUserData().photoBytes(ownedBy: account.username)))
    }

    /// `PATCH /v1/me`.
    func changeMe(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let body = try Self.settingsLifted(
            try await JSONBody(
                request, limit: 65_536,
                allowed: [
                    "display_name", "bio", "avatar_photo", "language", "home_location", "units", "notifications", "settings", "email",
                    "password",
                    "current_password",
                ]))
        var account: UserAccount
        if let password = try body.string("password", maxLength: 1_000) {
            guard let current = try body.string("current_password", maxLength: 1_000) else {
                throw APIProblem.badRequest("field 'current_password' is required to change the password")
            }
            let accounts = try requireAccounts()
            let hash = try await accounts.newPasswordHash(for: user.account, current: current, new: password)
            account = try await changeAccount(user.username) { account in
                // The current password was checked against this hash; another session
                // that changed it meanwhile ended this one.
                guard account.passwordHash == user.account.passwordHash else { throw AccountError.notSignedIn }
                account = try await updatedProfile(account, body)
                account.passwordHash = hash
            }
            try await accounts.endSessions(of: user.username, keeping: user.session.tokenHash)
        } else {
            // Over the version read, again from a fresh read when another change landed first.
            account = try await changeAccount(user.username) { account in account = try await updatedProfile(account, body) }
        }
        return .json(privateProfile(account, photoBytes: try await requireUserData().photoBytes(ownedBy: account.username)))
    }

    /// `DELETE /v1/me`.
    func deleteMe(_ request: Request, _ context: SignedInRequestContext) async throws -> Response {
        let user = context.user
        let unused = try await requireUserData().deleteUser(named: user.username)
        try await removePhotoFiles(unused)
        return Response(status: .noContent)
    }

    /// `GET /v1/users/{username}`.
    func showUser(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let (account, following, followers) = try await requireFollowService().profile(
            of: try context.parameters.require("username"), viewer: context.identity?.username)
        guard case .object(let members) = Self.publicProfile(account) else { return .json(Self.publicProfile(account)) }
        return .json(.object(members + [("following_count", .int(following)), ("followers_count", .int(followers))]))
    }

    /// `GET /v1/users`.
    func findUsers(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request, allowed: ["q", "limit", "cursor"])
        let prefix = try parameters.required("q", example: "ann").lowercased()
        guard (1...30).contains(prefix.count) else {
            throw APIProblem.badRequest("q '\(prefix)' is invalid: give the first 1 to 30 characters of a username")
        }
        let limit = try parameters.int("limit", range: 1...100) ?? 20
        let after = try ListCursor.position(request, parameters)
        let found = try await requireUserData().users(withPrefix: prefix, after: after, limit: limit + 1)
        let page = Array(found.prefix(limit))
        return .json(
            .object([
                ("query", .object([("kind", .string("users")), ("q", .string(prefix)), ("limit", .int(limit))])),
                ("count", .int(page.count)),
                ("users", .array(page.map(Self.publicProfile))),
                ("next_cursor", .optional(found.count > limit ? page.last.map { ListCursor.encode($0.username, for: request) } : nil)),
            ]))
    }

    // MARK: - Signed-in requests

    func requireAccounts() throws -> AccountService {
        guard let accounts else { throw APIProblem(.serviceUnavailable, "this service runs without accounts (no user data store)") }
        return accounts
    }

    func requireUserData() throws -> any UserDataStore {
        guard let userData else { throw APIProblem(.serviceUnavailable, "this service runs without accounts (no user data store)") }
        return userData
    }

    /// Whether `viewer` may open a place by its id: anything but a gem they may not reach (a
    /// friends-only gem asks the store whether they are the owner's friend).
    func mayOpen(_ place: Place, viewer: String?) async throws -> Bool {
        guard let gem = place.gem else { return true }
        if gem.isReachable(by: viewer) { return true }
        guard gem.visibility == .friends, let viewer, let store = userData else { return false }
        return try await store.areFriends(viewer, gem.owner)
    }

    /// A profile change as `GET /v1/me` shows the profile, with `settings` an object, read as the
    /// flat members (`{"settings": {"units": "metric"}}` is `{"units": "metric"}`); a member given
    /// both ways is a 400.
    static func settingsLifted(_ body: JSONBody) throws -> JSONBody {
        guard let settings = try body.object("settings", allowed: settingFields) else { return body }
        if let twice = settings.members.keys.sorted().first(where: { body.has($0) }) {
            throw APIProblem.badRequest("\(twice) is given twice, at the top level and in settings: give it once")
        }
        return JSONBody(members: body.members.filter { $0.key != "settings" }.merging(settings.members) { top, _ in top })
    }

    /// The members of a profile's `settings`.
    static let settingFields = ["language", "home_location", "units", "notifications"]

    /// The profile with the body's changes (not the password).
    func updatedProfile(_ account: UserAccount, _ body: JSONBody) async throws -> UserAccount {
        var account = account
        var profile = account.profile
        func text(_ name: String, max: Int) throws -> String?? {
            guard body.has(name) else { return .none }
            return .some(try body.string(name, maxLength: max).flatMap { $0.isEmpty ? nil : $0 })
        }
        if let value = try text("display_name", max: 100) { profile.displayName = value }
        if let value = try text("bio", max: 2_000) { profile.bio = value }
        if let value = try text("language", max: 35) {
            if let value, !value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) || value.count < 2 {
                throw APIProblem.badRequest("language '\(value)' is invalid: give a BCP 47 tag such as fr or pt-BR")
            }
            profile.language = value
        }
        if let value = try text("units", max: 20) {
            if let value, !["metric", "imperial"].contains(value) {
                throw APIProblem.badRequest("units '\(value)' is invalid: use metric or imperial")
            }
            profile.units = value
        }
        if body.has("home_location") { profile.homeLocation = try body.coordinate("home_location") }
        if body.has("notifications") { profile.notifications = try Self.notificationSettings(body, current: profile.notifications) }
        if let value = try text("avatar_photo", max: 100) {
            if let value {
                guard let photo = try await requireUserData().photo(id: value), photo.owner == account.username else {
                    throw APIProblem.badRequest("avatar_photo '\(value)' is not a photo you uploaded: upload one with PUT /v1/me/avatar")
                }
            }
            profile.avatarPhoto = value
        }
        if body.has("email") { account.email = try AccountRules.email(try body.requiredString("email", maxLength: 300)) }
        account.profile = profile
        return account
    }

    static func publicProfile(_ account: UserAccount) -> OrderedJSON {
        .object([
            ("username", .string(account.username)),
            ("display_name", .optional(account.profile.displayName)),
            ("bio", .optional(account.profile.bio)),
            ("avatar_url", .optional(account.profile.avatarPhoto.map { PublicURL.absolute(Self.photoPath($0)) })),
            ("created_at", .string(Timestamp.iso8601(account.createdAt))),
        ])
    }

    /// The owner's own view of their account: ``privateProfile(_:)`` and what their photos take
    /// of the storage an account may use.
    /// A session as sign-up and sign-in answer it: `{token, token_type, expires_at, username,
    /// user}`, `user` being the private profile `GET /v1/me` answers.
    static func signedInJSON(_ issued: AccountService.IssuedToken, username: String, user: OrderedJSON) -> OrderedJSON {
        .object([
            ("token", .string(issued.token)), ("token_type", .string("Bearer")),
            ("expires_at", .string(Timestamp.iso8601(issued.expiresAt))),
            ("username", .string(username)), ("user", user),
        ])
    }

    func privateProfile(_ account: UserAccount, photoBytes: Int) -> OrderedJSON {
        Self.privateProfile(
            account,
            photoStorage: .object([
                ("used_bytes", .int(photoBytes)),
                ("limit_bytes", configuration.photoStorageLimit.map { .int($0) } ?? .null),
            ]))
    }

    static func privateProfile(_ account: UserAccount, photoStorage: OrderedJSON? = nil) -> OrderedJSON {
        let profile = account.profile
        var home = OrderedJSON.null
        if let location = profile.homeLocation {
            home = .object([("lat", .double(location.latitude)), ("lon", .double(location.longitude))])
        }
        return .object(
            [
                ("username", .string(account.username)),
                ("email", .string(account.email)),
                ("display_name", .optional(profile.displayName)),
                ("bio", .optional(profile.bio)),
                ("avatar_photo", .optional(profile.avatarPhoto)),
                ("avatar_url", .optional(profile.avatarPhoto.map { PublicURL.absolute(Self.photoPath($0)) })),
                (
                    "settings",
                    .object([
                        ("language", .optional(profile.language)), ("home_location", home),
                        ("units", .optional(profile.units)),
                        ("notifications", notificationSettingsJSON(profile.notifications)),
                    ])
                ),
            ] + (photoStorage.map { [("photo_storage", $0)] } ?? []) + [
                ("created_at", .string(Timestamp.iso8601(account.createdAt)))
            ])
    }
}
