import Foundation
import PlaceQuery
import PostgresNIO

/// The session of a token hash joined to its account: the first read of every signed-in
/// request, prepared once per connection (planned once, as ``NearStatement`` is) instead of two
/// statements parsed and planned each time.
struct SessionAccountStatement: PostgresPreparedStatement {
    static let name = "geoquery_session_account"
    static let sql = """
        SELECT u.username, u.email, u.password_hash, u.profile, u.created_at, s.created_at, s.expires_at
        FROM sessions s JOIN users u ON u.username = s.username WHERE s.token_hash = $1
        """
    static let bindingDataTypes: [PostgresDataType] = [.text]

    typealias Row = (String, String, String, String, Double, Double, Double)

    var tokenHash: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(tokenHash)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// A user's friendships, both directions, by the other's name: read by every signed-in place
/// query (whose friends-only gems the viewer sees), so prepared once per connection.
struct FriendshipsStatement: PostgresPreparedStatement {
    static let name = "geoquery_friendships"
    static let sql = """
        SELECT * FROM (SELECT addressee AS other, created_at, accepted_at IS NOT NULL, true FROM friendships WHERE requester = $1
                       UNION ALL SELECT requester, created_at, accepted_at IS NOT NULL, false FROM friendships WHERE addressee = $1) f
        ORDER BY other COLLATE "C"
        """
    static let bindingDataTypes: [PostgresDataType] = [.text]

    typealias Row = (String, Double, Bool, Bool)

    var username: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(username)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
