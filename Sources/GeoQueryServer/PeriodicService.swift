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

    /// ``GeoQueryService/deleteExpiredSessions(now:)`` every hour. Several servers on one
    /// database each sweep; the deletes are idempotent.
    public static func sessionSweep(_ service: GeoQueryService, every interval: Duration = .seconds(3_600)) -> PeriodicService {
        PeriodicService(every: interval, logger: service.logger, failure: "the sweep of expired sessions failed this round") {
            let deleted = try await service.deleteExpiredSessions()
            if deleted > 0 { service.logger.info("deleted \(deleted) expired sessions") }
        }
    }

    /// ``GeoQueryService/removeAbandonedPhotos(now:)`` every hour: photos stored by an upload
    /// that stopped before attaching them. Several servers on one database each sweep; the
    /// store checks each photo again as it removes it.
    public static func photoSweep(_ service: GeoQueryService, every interval: Duration = .seconds(3_600)) -> PeriodicService {
        PeriodicService(every: interval, logger: service.logger, failure: "the sweep of abandoned photos failed this round") {
            let removed = try await service.removeAbandonedPhotos()
            if removed > 0 { service.logger.info("removed \(removed) photos that no upload attached") }
        }
    }
}
