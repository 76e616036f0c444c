import ArgumentParser
import Foundation
import GeoQueryWire
import Logging

/// `geoquery`: find places near a point, in a box, or nearest to a point, and build the index.
@main
struct GeoQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geoquery",
        abstract: "Find places near a point, in a box or nearest to a point, from a local SpatiaLite index.",
        discussion: """
            The index is --db, else $GEOQUERY_DB, else geodata/places.sqlite. Build it with \
            `geoquery import FILE --format geonames-csv` or `make run`.

            Exit codes: 0 success (an empty answer too), 1 place not found, 64 bad usage or input, \
            65 bad data file, 66 no index (or user data file), 69 a provider failed, 74 I/O or database failure.
            """,
        version: GeoQueryVersion.current,
        subcommands: [
            Near.self, BBox.self, Nearest.self, Best.self, PlaceLookup.self, Stats.self, Sources.self, Categories.self, Where.self, Import.self,
            RouteCommand.self, Search.self, WeatherLookup.self, Serve.self, Backup.self,
        ]
    )

    static func main() async {
        LoggingSystem.bootstrap { label in
            let level = ProcessInfo.processInfo.environment["GEOQUERY_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
            return LineLogHandler(label: label, output: .standardError, level: level ?? .notice)
        }
        do {
            var command = try parseAsRoot()
            if let checked = command as? any CheckedAfterParsing {
                do {
                    try checked.check()
                } catch let error as ValidationError {
                    refuse(error.message, command: type(of: command))
                }
            }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CLIFailure {
            FileHandle.standardError.write(Data("geoquery: \(failure.message)\n".utf8))
            Foundation.exit(failure.exitCode)
        } catch {
            exit(withError: error)
        }
    }

    /// A usage error as ArgumentParser prints one: the sentence, the command's usage and where
    /// its help is; exit 64.
    static func refuse(_ message: String, command: any ParsableCommand.Type) -> Never {
        let name = command.configuration.commandName ?? String(describing: command).lowercased()
        FileHandle.standardError.write(
            Data(
                """
                Error: \(message)
                Usage: \(usageString(for: command))
                  See 'geoquery \(name) --help' for more information.

                """.utf8))
        Foundation.exit(ExitCode.validationFailure.rawValue)
    }
}

/// A command whose values are checked against each other after ArgumentParser has parsed every
/// argument, instead of in `validate()`: ArgumentParser calls `validate()` before it reports an
/// option it does not know, so `geoquery route --bogus x` said "give exactly one of --points
/// FILE, --matrix FILE or --places ID,ID,…" rather than naming `--bogus`.
///
/// A command declares the conformance beside its other protocols; `main` runs `check()` once
/// the whole command line has been parsed.
protocol CheckedAfterParsing {
    /// Throws a `ValidationError` naming the bad value and what is valid.
    func check() throws
}
