import Foundation
import GeoCore

/// Why a provider gave no answer. Messages name what to change and never contain a key.
public enum ProviderError: ClassifiedError, Sendable, Hashable {
    /// The provider's API key is not set.
    case missingKey(provider: ProviderName, variable: String)
    /// An environment setting has an unusable value.
    case invalidSetting(variable: String, value: String, expected: String)
    /// The provider refused the request (a 4xx other than 429); its own code and message.
    case rejected(provider: ProviderName, status: Int, code: String?, message: String)
    /// Still 429 after every retry.
    case rateLimited(provider: ProviderName, attempts: Int, message: String)
    /// Still 5xx after every retry.
    case serverError(provider: ProviderName, status: Int, attempts: Int, message: String)
    /// No answer within the timeout (per request) or the search's deadline.
    case timedOut(provider: ProviderName, seconds: TimeInterval)
    /// The connection failed.
    case connectionFailed(provider: ProviderName, message: String)
    /// The body is not the JSON the provider documents.
    case malformedResponse(provider: ProviderName, reason: String)
    /// An HTTP 200 that carries an error status (Google's legacy API: `OVER_QUERY_LIMIT`, …).
    case providerStatus(provider: ProviderName, status: String, message: String?)
    /// The request asks for something the provider cannot do.
    case unsupported(provider: ProviderName, reason: String)
    /// Any other failure of a source (the local index's own errors).
    case sourceFailed(provider: ProviderName, message: String)
    /// A place id that this provider could not have given (a character or a length outside its
    /// ids' alphabet): never sent.
    case invalidPlaceID(provider: ProviderName, localID: String, expected: String)
    /// The question itself cannot be asked (no point and no title for an image search).
    case invalidQuery(String)

    public var description: String {
        switch self {
        case .missingKey(let provider, let variable):
            return "\(provider.rawValue): no API key; set the environment variable \(variable)"
        case .invalidSetting(let variable, let value, let expected):
            return "\(variable)=\(value) is not valid; expected \(expected)"
        case .rejected(let provider, let status, let code, let message):
            return "\(provider.rawValue) refused the request (HTTP \(status)\(code.map { ", \($0)" } ?? "")): \(message)"
        case .rateLimited(let provider, let attempts, let message):
            return "\(provider.rawValue) is rate-limiting (HTTP 429 on all \(attempts) attempts): \(message)"
        case .serverError(let provider, let status, let attempts, let message):
            return "\(provider.rawValue) failed (HTTP \(status) on all \(attempts) attempts): \(message)"
        case .timedOut(let provider, let seconds):
            return "\(provider.rawValue) did not answer within \(Self.seconds(seconds))"
        case .connectionFailed(let provider, let message):
            return "\(provider.rawValue): connection failed: \(message)"
        case .malformedResponse(let provider, let reason):
            return "\(provider.rawValue) sent a response that is not its documented JSON: \(reason)"
        case .providerStatus(let provider, let status, let message):
            return "\(provider.rawValue) answered \(status)\(message.map { ": \($0)" } ?? "")"
        case .unsupported(let provider, let reason):
            return "\(provider.rawValue): \(reason)"
        case .sourceFailed(let provider, let message):
            return "\(provider.rawValue): \(message)"
        case .invalidPlaceID(let provider, let localID, let expected):
            return "place id '\(provider.rawValue):\(localID)' is not a \(provider.rawValue) id: \(expected)"
        case .invalidQuery(let message):
            return message
        }
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value >= 1 ? String(format: "%.1f s", value) : String(format: "%.0f ms", value * 1000)
    }
}

/// Every source an answer can come from: the local index, the place providers and the weather
/// providers. The raw value is what the CLI's `--provider` takes and what place ids start with.
public enum ProviderName: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case local, google, yelp, foursquare, here
    case openMeteo = "open-meteo", openWeatherMap = "openweathermap", pirateWeather = "pirateweather"
    case wikimediaCommons = "wikimedia-commons", pixabay, unsplash

    /// The place sources, in merge priority: the local index first, then by richness of data.
    public static let places: [ProviderName] = [.local, .google, .yelp, .foursquare, .here]
    /// The remote place providers.
    public static let remotePlaces: [ProviderName] = [.google, .yelp, .foursquare, .here]
    /// The weather providers, the keyless default first.
    public static let weather: [ProviderName] = [.openMeteo, .openWeatherMap, .pirateWeather]
    /// The image sources, the keyless default first.
    public static let images: [ProviderName] = [.wikimediaCommons, .pixabay, .unsplash]

    var priority: Int { ProviderName.allCases.firstIndex(of: self)! }

    public static func < (lhs: ProviderName, rhs: ProviderName) -> Bool { lhs.priority < rhs.priority }
}

extension ProviderError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        switch self {
        case .unsupported: .invalidInput
        // A missing key is the deployment's to fix, not the client's: the provider is unavailable here.
        default: .unavailable(retryAfter: nil)
        }
    }
}
