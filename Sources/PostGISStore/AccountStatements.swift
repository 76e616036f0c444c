import Foundation
import PlaceQuery
import PostgresNIO

/// The session of a token hash joined to its account, with the account's accepted friends (whose
/// friends-only gems the viewer's queries list): the first read of every signed-in request,
/// prepared once per connection (planned once, as ``NearStatement`` is) instead of three
/// statements parsed and planned each time.
struct SessionAccountStatement: PostgresPreparedStatement {
    static let name = "geoquery_session_account"
    static let sql = """
        SELECT u.username, u.email, u.password_hash, u.profile, u.created_at, s.created_at, s.expires_at,
               ARRAY(SELECT addressee FROM friendships WHERE requester = u.username AND accepted_at IS NOT NULL
                     UNION ALL SELECT requester FROM friendships WHERE addressee = u.username AND accepted_at IS NOT NULL)
        FROM sessions s JOIN users u ON u.username = s.username WHERE s.token_hash = $1
        """
    static let bindingDataTypes: [PostgresDataType] = [.text]

    /// The account's columns, the session's times, and the account's accepted friends.
    typealias Row = (String, String, String, String, Double, Double, Double, [String])

    var tokenHash: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(tokenHash)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
