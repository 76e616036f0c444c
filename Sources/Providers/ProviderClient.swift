import Foundation
import GeoCore
import Logging

/// Sends one provider's requests: retries transient failures, turns failures into
/// ``ProviderError``s carrying the provider's own message, decodes JSON, and keeps the key out
/// of every log line and message.
struct ProviderClient: Sendable {
    let provider: ProviderName
    let transport: any HTTPTransport
    let retry: RetryPolicy
    let timeout: TimeInterval
    /// Strings that must never appear in a log or an error (the key).
    let secrets: [String]
    /// Pulls `(code, message)` out of the provider's error body.
    let errorMessage: @Sendable (ProviderResponse) -> (code: String?, message: String)

    private static let logger = Logger(label: "geoquery.providers")

    /// Sends `request` until it succeeds, fails for good, or runs out of attempts.
    func send(_ request: ProviderRequest) async throws -> ProviderResponse {
        var request = request
        request.timeout = timeout
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            let response: ProviderResponse
            do {
                response = try await transport.send(request)
            } catch let failure as TransportFailure {
                let error: ProviderError =
                    switch failure {
                    case .timedOut(let seconds): .timedOut(provider: provider, seconds: seconds)
                    case .connection(let message): .connectionFailed(provider: provider, message: redact(message))
                    case .refusedAddress(let host, let address):
                        .connectionFailed(provider: provider, message: "\(host) resolves to \(address), which is not a public address")
                    case .answerTooLarge(let limit): .malformedResponse(provider: provider, reason: "the answer is longer than \(limit) bytes")
                    }
                // An address or a size that was refused is refused again.
                if case .refusedAddress = failure { throw error }
                if case .answerTooLarge = failure { throw error }
                guard attempt < retry.maxAttempts, !Task.isCancelled else { throw error }
                try await wait(beforeRetry: attempt, retryAfter: nil, reason: error.description)
                continue
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ProviderError.connectionFailed(provider: provider, message: redact(String(describing: error)))
            }
            switch response.status {
            case 200..<300:
                return response
            case 429, 500...599:
                let (_, message) = errorMessage(response)
                guard attempt < retry.maxAttempts else {
                    if response.status == 429 {
                        throw ProviderError.rateLimited(provider: provider, attempts: attempt, message: redact(message))
                    }
                    throw ProviderError.serverError(
                        provider: provider, status: response.status, attempts: attempt,
                        message: redact(message))
                }
                try await wait(
                    beforeRetry: attempt, retryAfter: response.header("Retry-After"),
                    reason: "HTTP \(response.status)")
            default:
                let (code, message) = errorMessage(response)
                throw ProviderError.rejected(provider: provider, status: response.status, code: code, message: redact(message))
            }
        }
    }

    /// Sends `request` and decodes the body as JSON.
    func json(_ request: ProviderRequest) async throws -> (JSONValue, ProviderResponse) {
        let response = try await send(request)
        return (try decode(response.body), response)
    }

    /// Decodes a body as JSON.
    /// - Throws: ``ProviderError/malformedResponse(provider:reason:)``.
    func decode(_ body: Data) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: body)
        } catch {
            let preview = String(decoding: body.prefix(60), as: UTF8.self)
            throw ProviderError.malformedResponse(
                provider: provider, reason: "not JSON (\(body.count) bytes starting \(redact(preview).debugDescription))")
        }
    }

    private func wait(beforeRetry retryNumber: Int, retryAfter: String?, reason: String) async throws {
        let seconds = retry.delay(beforeRetry: retryNumber, retryAfter: retryAfter)
        Self.logger.info("\(provider.rawValue): \(reason); retry \(retryNumber) of \(retry.maxAttempts - 1) in \(String(format: "%.2f", seconds)) s")
        try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
    }

    /// `text` with every secret replaced by `<redacted>`.
    func redact(_ text: String) -> String {
        var text = text
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "<redacted>")
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics), encoded != secret {
                text = text.replacingOccurrences(of: encoded, with: "<redacted>")
            }
        }
        return text
    }

    /// The message of the usual error envelopes: `{"error":{"code","message"|"description","status"}}`,
    /// `{"message"}`, `{"title","cause"}`, `{"reason"}`; else the start of the body.
    static func standardErrorMessage(_ response: ProviderResponse) -> (code: String?, message: String) {
        let fallback = "HTTP \(response.status)"
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: response.body) else {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return (nil, text.isEmpty ? fallback : text)
        }
        if let error = json["error"], error.objectValue != nil {
            let code = error["status"]?.text ?? error["code"]?.text
            let message = error["message"]?.text ?? error["description"]?.text ?? fallback
            return (code, message)
        }
        if let title = json["title"]?.text {
            return (json["code"]?.text, [title, json["cause"]?.text, json["action"]?.text].compactMap { $0 }.joined(separator: ": "))
        }
        if let reason = json["reason"]?.text { return (nil, reason) }
        if let message = json["message"]?.text { return (json["cod"]?.text ?? json["code"]?.text, message) }
        return (nil, fallback)
    }
}

extension JSONValue {
    /// The member named `key` of an object; nil for anything else.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] } else { return nil }
    }

    var objectValue: [String: JSONValue]? { if case .object(let members) = self { return members } else { return nil } }
    /// The elements of an array; empty for anything else (lenient on absent lists).
    var elements: [JSONValue] { if case .array(let values) = self { return values } else { return [] } }
    var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    /// An integer, also from an integral double or a numeric string.
    var intValue: Int? {
        switch self {
        case .int(let value): return Int(exactly: value)
        case .double(let value): return value.rounded() == value && abs(value) < 1e15 ? Int(value) : nil
        case .string(let value): return Int(value)
        default: return nil
        }
    }
    /// A number, also from a numeric string.
    var number: Double? {
        switch self {
        case .int, .double: return doubleValue
        case .string(let value): return Double(value)
        default: return nil
        }
    }
    /// Non-empty text (`""` and null are nil, DESIGN.md "missing is nil"); numbers as text.
    var text: String? {
        switch self {
        case .string(let value):
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        case .int(let value): return String(value)
        default: return nil
        }
    }
}
