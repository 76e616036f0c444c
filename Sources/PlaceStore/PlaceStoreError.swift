/// Errors from the place index.
///
/// `description` says what went wrong and what to do; SQL text is included where it helps a
/// developer, bound values never are.
public enum PlaceStoreError: Error, Sendable, CustomStringConvertible {
    /// The index file does not exist (and was opened without `create`).
    case indexNotFound(path: String)
    /// SQLite could not open the file.
    case cannotOpen(path: String, message: String)
    /// SpatiaLite could not be initialised in a connection.
    case spatiaLiteUnavailable(String)
    /// A SQLite call failed.
    case sqlite(code: Int32, message: String, sql: String?)
    /// The file was written by a newer GeoQuery whose schema this build does not know.
    case schemaTooNew(found: Int, supported: Int)
    /// The file is a SQLite database but not a GeoQuery index.
    case notAnIndex(path: String)
    /// The file is not a SQLite database at all (a text file, another program's file).
    case notADatabase(path: String)
    /// The file is a SQLite database but not a GeoQuery user data file (accounts, gems).
    case notUserData(path: String)
    /// A stored row that cannot be turned back into a place (a damaged or hand-edited file).
    case corruptRow(id: String, reason: String)
    /// An argument outside its valid range.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .indexNotFound(let path):
            return "no place index at \(path); import a dump into that path first to create one"
        case .cannotOpen(let path, let message):
            return "cannot open \(path): \(message)"
        case .spatiaLiteUnavailable(let message):
            return "SpatiaLite is unavailable (\(message)); install libspatialite-dev / libsqlite3-mod-spatialite"
        case .sqlite(let code, let message, let sql):
            return "SQLite error \(code): \(message)" + (sql.map { " in: \($0)" } ?? "")
        case .schemaTooNew(let found, let supported):
            return "the index has schema version \(found), newer than the \(supported) this geoquery supports; upgrade geoquery"
        case .notADatabase(let path):
            return
                "\(path) is not a SQLite database, so neither a GeoQuery place index nor a user data file: give a file geoquery made, or a path where none exists yet to create one"
        case .notAnIndex(let path):
            return "\(path) is a SQLite file but not a GeoQuery place index"
        case .notUserData(let path):
            return "\(path) is a SQLite file but not a GeoQuery user data file (accounts and gems)"
        case .corruptRow(let id, let reason):
            return "stored place \(id) is damaged: \(reason)"
        case .invalidArgument(let message):
            return message
        }
    }
}
