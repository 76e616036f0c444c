import Foundation
import GeoCore

/// The rules a new account's fields follow, with sentences a person can act on.
public enum AccountRules {
    /// bcrypt reads at most 72 bytes of a password; longer ones are refused rather than cut.
    public static let maximumPasswordBytes = 72
    public static let minimumPasswordLength = 12
    public static let usernameLengths = 3...30

    /// The username in its stored form (lower case), or why it cannot be one.
    public static func username(_ raw: String) throws(AccountError) -> String {
        let name = raw.lowercased()
        guard usernameLengths.contains(name.count),
            name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2E })
        else {
            throw .invalid(
                field: "username", value: raw,
                rule: "use 3 to 30 of the letters a-z, digits, '_' and '.'")
        }
        return name
    }

    /// The email in its stored form (lower case), or why it cannot be one.
    public static func email(_ raw: String) throws(AccountError) -> String {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
        else {
            throw .invalid(field: "email", value: raw, rule: "give an address of the form name@example.org")
        }
        return email
    }

    /// Checks a new password: 12 characters or more that are not all white space, at most 72
    /// bytes of UTF-8, no control characters, not one of the most common passwords, neither
    /// containing the username nor the email address (or its name part).
    public static func checkPassword(_ password: String, username: String, email: String? = nil) throws(AccountError) {
        if password.count < minimumPasswordLength {
            throw .weakPassword("it has \(password.count) characters: use at least \(minimumPasswordLength)")
        }
        if password.utf8.count > maximumPasswordBytes {
            throw .weakPassword(
                "it is \(password.utf8.count) bytes long: bcrypt reads only the first \(maximumPasswordBytes) bytes, so use at most \(maximumPasswordBytes) (a long passphrase of plain letters fits)"
            )
        }
        if password.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .weakPassword("it holds a control character: use printable characters only")
        }
        if password.allSatisfy(\.isWhitespace) {
            throw .weakPassword("it is only white space: use letters, digits or symbols")
        }
        let folded = password.lowercased()
        if commonPasswords.contains(folded) {
            throw .weakPassword("it is one of the most common passwords: choose one nobody would guess")
        }
        if folded.contains(username.lowercased()) && username.count >= 3 {
            throw .weakPassword("it contains the username: choose one nobody would guess")
        }
        if let email = email?.lowercased(), !email.isEmpty {
            let name = email.split(separator: "@").first.map(String.init) ?? email
            if folded.contains(email) || (name.count >= 3 && folded.contains(name)) {
                throw .weakPassword("it contains the email address: choose one nobody would guess")
            }
        }
    }

    /// Passwords of 10 characters or more that lead the published lists of leaked passwords
    /// (lower case; a password is compared in lower case).
    static let commonPasswords: Set<String> = [
        "1234567890", "12345678910", "123456789a", "1q2w3e4r5t", "1qaz2wsx3edc", "0987654321", "1111111111",
        "0000000000", "qwertyuiop", "password12", "password123", "password1234", "passw0rd123", "iloveyou12",
        "qwerty1234", "qwerty12345", "qwerty123456", "1234qwerty", "abcdefghij", "abc1234567", "a123456789",
        "football12", "baseball12", "superman12", "princess12", "sunshine12", "trustno1234", "letmein123",
        "welcome123", "welcome1234", "administrator", "adminadmin", "admin12345", "1234567890a", "q1w2e3r4t5",
        "zaq12wsx34", "asdfghjkl1", "asdfghjkl;", "zxcvbnm123", "aaaaaaaaaa", "iloveyou123", "michael123",
        "1234554321", "9876543210", "11111111111", "123123123123", "pokemon123", "dragon1234", "monkey1234",
        "changeme123", "starwars12", "whatever12", "computer12", "internet12", "samsung123", "master1234",
        "1234512345", "1122334455", "1029384756", "qazwsxedcrfv", "password!1", "p@ssw0rd12", "p@ssword12",
        "geoquery123", "correcthorse", "correcthorsebatterystaple",
    ]
}

/// Why an account operation was refused, in words the person can act on.
public enum AccountError: ClassifiedError, Equatable, Sendable {
    /// A field breaks its rule.
    case invalid(field: String, value: String, rule: String)
    case weakPassword(String)
    /// The same answer for an unknown login and a wrong password.
    case wrongCredentials
    /// Missing, unknown, expired or revoked token.
    case notSignedIn
    /// Too many attempts; try again after the interval.
    case rateLimited(retryAfter: Duration)
    case taken(field: String, value: String)

    public var description: String {
        switch self {
        case .invalid(let field, let value, let rule): return "\(field) '\(value)' is invalid: \(rule)"
        case .weakPassword(let why): return "password is too weak: \(why)"
        case .wrongCredentials: return "the username (or email) and password do not match an account"
        case .notSignedIn:
            return
                "sign in first: the token is missing, unknown or ended (tokens end 30 days after their last use, at sign-out and at a password change)"
        case .rateLimited(let wait): return "too many sign-in attempts: try again in \(Int(wait.components.seconds) + 1) s"
        case .taken(let field, let value): return "\(field) '\(value)' is taken: choose another"
        }
    }
}

extension AccountError {
    /// How the faces answer it: the service's status.
    public var kind: FailureKind {
        switch self {
        case .invalid, .weakPassword: .invalidInput
        case .wrongCredentials, .notSignedIn: .notSignedIn
        case .rateLimited(let wait): .rateLimited(retryAfter: wait)
        case .taken: .conflict
        }
    }
}
