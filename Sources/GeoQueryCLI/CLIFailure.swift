import Foundation
import GeoCore
import GeoQueryWire
import PlaceImport
import PlaceModel
import PlaceQuery
import PlaceStore
import PostGISStore
import Providers
import Regions
import Routing

/// A failure to report as one line on stderr with a sysexits-style code.
struct CLIFailure: Error {
    var message: String
    var exitCode: Int32

    static let usage: Int32 = 64  // EX_USAGE: bad arguments or input values
    static let dataError: Int32 = 65  // EX_DATAERR: a data file that cannot be used
    static let noInput: Int32 = 66  // EX_NOINPUT: no index to query
    static let unavailable: Int32 = 69  // EX_UNAVAILABLE: a provider failed
    static let ioError: Int32 = 74  // EX_IOERR: the database or a file failed

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Maps a library error to its message and exit code. Library errors know nothing of exit
    /// codes; this is the one place that decides them.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure:
            self = failure
        case let error as GeoCoreError:
            self.init(error.description, exitCode: Self.usage)
        case let error as PlaceModelError:
            self.init(error.description, exitCode: Self.usage)
        case let error as PlaceQueryError:
            switch error {
            case .deadlineExceeded, .storeUnavailable: self.init(error.description, exitCode: Self.unavailable)
            default:
                self.init(error.description, exitCode: Self.usage)
            }
        case let error as PostGISError:
            switch error {
            case .invalidURL: self.init(error.description, exitCode: Self.usage)
            case .unavailable: self.init(error.description, exitCode: Self.unavailable)
            default: self.init(error.description, exitCode: Self.ioError)
            }
        case let error as PlaceStoreError:
            switch error {
            case .indexNotFound(let path):
                self.init(
                    error.description + " (`geoquery import FILE --format geonames-csv --db \(path)`, or `make run` for the default index)",
                    exitCode: Self.noInput)
            case .notAnIndex, .notUserData, .notADatabase: self.init(error.description, exitCode: Self.noInput)
            case .invalidArgument: self.init(error.description, exitCode: Self.usage)
            default: self.init(error.description, exitCode: Self.ioError)
            }
        case let error as RouteInputError:
            self.init(error.description, exitCode: error.isUnreadable ? Self.usage : Self.dataError)
        case let error as RoutingError:
            switch error {
            case .noStops, .stopOutOfRange: self.init(error.description, exitCode: Self.usage)
            default: self.init(error.description, exitCode: Self.dataError)
            }
        case let error as ProviderError:
            switch error {
            case .missingKey, .invalidSetting, .unsupported: self.init(error.description, exitCode: Self.usage)
            default: self.init(error.description, exitCode: Self.unavailable)
            }
        case let error as RegionError:
            switch error {
            case .unreadable: self.init(error.description, exitCode: Self.noInput)
            case .malformed: self.init(error.description, exitCode: Self.dataError)
            }
        case let error as ImportError:
            switch error {
            case .fileNotFound: self.init(error.description, exitCode: Self.noInput)
            case .unreadableFile, .unknownFormat: self.init(error.description, exitCode: Self.usage)
            default: self.init(error.description, exitCode: Self.dataError)
            }
        default:
            self.init(String(describing: error), exitCode: Self.ioError)
        }
    }
}

/// Runs `body`, turning any error into a ``CLIFailure``.
func reportingFailures<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw CLIFailure(error) }
}
