/// What kind of failure an error is, as whoever asked should read it: the service answers it
/// with an HTTP status, the CLI with an exit status. A library's error says its kind; the
/// faces map kinds, never a library's cases.
public enum FailureKind: Sendable, Equatable {
    /// The input is wrong: the message names the bad value and what is valid (400; CLI 64).
    case invalidInput
    /// Nobody is signed in, or the session ended (401).
    case notSignedIn
    /// Signed in, but this account may not do it (403).
    case forbidden
    /// What was asked for does not exist, or the asker may not know it does (404; CLI 66).
    case notFound
    /// It clashes with what is stored (409).
    case conflict
    /// Well-formed, but cannot be done as asked (422; CLI 65).
    case unprocessable
    /// Asked too often: try again after the time given (429).
    case rateLimited(retryAfter: Duration)
    /// A part the work needs is not there now (503).
    case unavailable(retryAfter: Duration?)
}

/// An error whose ``kind`` tells the faces how to answer it and whose `description` is the
/// sentence to show: the bad value and what to do.
public protocol ClassifiedError: Error, CustomStringConvertible {
    var kind: FailureKind { get }
}
