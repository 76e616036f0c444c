import Logging
import ServiceLifecycle

/// Work `geoquery serve` repeats while it runs — at start, then every `interval` — as one
/// service of its service group: a round that fails is logged and the next one comes; a
/// graceful shutdown ends the wait at once.
public struct PeriodicService: Service {
    let interval: Duration
    let logger: Logger
    /// What a failed round is logged as (`"trip reminders failed this round"`).
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
            do { try await work() } catch { logger.warning("\(failure): \(error)") }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}

extension PeriodicService {
    /// ``GeoQueryService/sendTripReminders(now:)`` every minute.
    public static func tripReminders(_ service: GeoQueryService, every interval: Duration = .seconds(60)) -> PeriodicService {
        PeriodicService(every: interval, logger: service.logger, failure: "trip reminders failed this round") {
            try await service.sendTripReminders()
        }
    }

    /// What the service keeps tidy, at start and then every hour: expired sessions
    /// (``GeoQueryService/deleteExpiredSessions(now:)``), photos an upload stored but never
    /// attached (``GeoQueryService/removeAbandonedPhotos(now:)``) and notifications past their
    /// retention (``GeoQueryService/deleteOldNotifications(now:)``). Each is tried whatever the
    /// others did. Several servers on one database each sweep; every delete checks its
    /// condition again as it runs, so they may overlap.
    public static func housekeeping(_ service: GeoQueryService, every interval: Duration = .seconds(3_600)) -> PeriodicService {
        PeriodicService(every: interval, logger: service.logger, failure: "housekeeping failed this round") {
            var failures: [String] = []
            do {
                let deleted = try await service.deleteExpiredSessions()
                if deleted > 0 { service.logger.info("deleted \(deleted) expired sessions") }
            } catch { failures.append("the sweep of expired sessions: \(error)") }
            do {
                let removed = try await service.removeAbandonedPhotos()
                if removed > 0 { service.logger.info("removed \(removed) photos that no upload attached") }
            } catch { failures.append("the sweep of abandoned photos: \(error)") }
            do {
                let deleted = try await service.deleteOldNotifications()
                if deleted > 0 { service.logger.info("deleted \(deleted) notifications past their retention") }
            } catch { failures.append("the sweep of old notifications: \(error)") }
            do {
                let deleted = try await service.deleteExpiredAttempts()
                if deleted > 0 { service.logger.info("forgot \(deleted) sign-in and sign-up attempts past their window, and budgets full again") }
            } catch { failures.append("the sweep of counted attempts and budgets: \(error)") }
            if !failures.isEmpty { throw HousekeepingFailure(failures: failures) }
        }
    }
}

/// The parts of a round of housekeeping that failed.
struct HousekeepingFailure: Error, CustomStringConvertible {
    let failures: [String]
    var description: String { failures.joined(separator: "; ") }
}
