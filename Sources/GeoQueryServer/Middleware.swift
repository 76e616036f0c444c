import Foundation
import Hummingbird
import Logging

/// One structured log line per request: method, path (never the query string or headers, so
/// no key, token or position ends up in a log), status, duration and the request id.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        guard logger.logLevel <= .info else { return response }
        logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code),
                "ms": .string(Self.milliseconds(ContinuousClock.now - start)),
                "request_id": .string(context.id),
            ])
        return response
    }

    /// A duration in milliseconds to two decimals, `0.41` (without `String(format:)`, which
    /// cost a few µs a request).
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let hundredths = max(0, seconds) * 100_000 + (attoseconds + 5_000_000_000_000) / 10_000_000_000_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Runs `body`, or answers 503 when it runs past `timeout`. The work under way is cancelled (a
/// route search stops at its next check; a store call finishes on its own thread and its
/// answer is dropped).
func withDeadline<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw APIProblem(
                .serviceUnavailable, "the request did not finish within \(timeout); narrow it (a smaller radius, a filter, fewer stops)",
                headers: [.retryAfter: "1"])
        }
        return value
    }
}
