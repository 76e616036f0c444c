import Logging
import ServiceLifecycle

/// Work `geoquery serve` repeats while it runs — at start, then every `interval` — as one
/// service of its service group: a round that fails is logged and the next one comes; a
/// graceful shutdown ends the wait at once.
public struct PeriodicService: Service {
    let interval: Duration
    let logger: Logger
    /// What a failed round is logged as (`"plan reminders failed this round"`).
    let failure: String
    let work: @Sendable () async throws -> Void

    public init(every interval: Duration, logger: Logger, failure: String, work: @escaping @Sendable () async throws -> Void) {
        self.interval = interval
        self.logger = logger
        self.failure = failure
        self.work = work
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do { try await work() } catch {
                // A round cut short by the service stopping (a failed start, Ctrl-C) is no failure.
                guard !Task.isCancelled && !Task.isShuttingDownGracefully else { break }
                logger.warning("\(failure): \(error)")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}

extension PeriodicService {
    /// ``GeoQueryService/sendPlanReminders(now:)`` every minute.
    public static func planReminders(_ service: GeoQueryService, every interval: Duration = .seconds(60)) -> PeriodicService {
        PeriodicService(every: interval, logger: service.logger, failure: "plan reminders failed this round") {
            try await service.sendPlanReminders()
        }
    }

    /// ``GeoQueryService/deliverDueWebhooks(now:)`` every 15 s: the deliveries a stopped
    /// server left (a server retries its own deliveries itself while it runs).
    public static func webhookDeliveries(_ service: GeoQueryService, every interval: Duration = .seconds(15)) -> PeriodicService {
        PeriodicService(every: interval, logger: service.logger, failure: "the round of due webhook deliveries failed") {
            let taken = try await service.deliverDueWebhooks()
            if taken > 0 { service.logger.info("took \(taken) webhook deliveries that were due") }
        }
    }

    /// What the service keeps tidy, at start and then every hour: expired sessions
    /// (``GeoQueryService/deleteExpiredSessions(now:)``), photos an upload stored but never
    /// attached (``GeoQueryService/removeAbandonedPhotos(now:)``), notifications past their
    /// retention (``GeoQueryService/deleteOldNotifications(now:)``), and sign-in attempts and
    /// creation budgets that no longer count (``GeoQueryService/deleteExpiredAttempts(now:)``).
    /// Each is tried whatever the others did. Several servers on one database each sweep;
    /// every delete checks its condition again as it runs, so they may overlap.
    public static func housekeeping(_ service: GeoQueryService, every interval: Duration = .seconds(3_600)) -> PeriodicService {
        // Each sweep: what it is called in a failure, what it logs for a count, and the sweep.
        let sweeps: [(name: String, done: String, run: @Sendable () async throws -> Int)] = [
            ("the sweep of expired sessions", "deleted %d expired sessions", { try await service.deleteExpiredSessions() }),
            ("the sweep of abandoned photos", "removed %d photos that no upload attached", { try await service.removeAbandonedPhotos() }),
            ("the sweep of old notifications", "deleted %d notifications past their retention", { try await service.deleteOldNotifications() }),
            (
                "the sweep of counted attempts and budgets", "forgot %d sign-in and sign-up attempts past their window, and budgets full again",
                { try await service.deleteExpiredAttempts() }
            ),
        ]
        return PeriodicService(every: interval, logger: service.logger, failure: "housekeeping failed this round") {
            var failures: [String] = []
            for sweep in sweeps {
                do {
                    let count = try await sweep.run()
                    if count > 0 { service.logger.info("\(sweep.done.replacingOccurrences(of: "%d", with: String(count)))") }
                } catch is CancellationError {
                    throw CancellationError()
                } catch { failures.append("\(sweep.name): \(error)") }
            }
            if !failures.isEmpty { throw HousekeepingFailure(failures: failures) }
        }
    }
}

/// The parts of a round of housekeeping that failed.
struct HousekeepingFailure: Error, CustomStringConvertible {
    let failures: [String]
    var description: String { failures.joined(separator: "; ") }
}
