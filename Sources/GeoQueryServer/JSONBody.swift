import Foundation
import GeoCore
import Hummingbird

/// A JSON object request body with typed members, each bad or unknown member answered 400
/// with its name and what is valid.
struct JSONBody {
    let members: [String: Any]
    /// Where this object sits in the request body (`budget.`, `stops[2].`; empty at the top),
    /// so that an error names the member as the client wrote it.
    let path: String

    /// A nested object already parsed (its members checked by the caller), at `path`.
    init(members: [String: Any], path: String = "") {
        self.members = members
        self.path = path
    }

    /// `name` as the client wrote it: with the path of the object it is in.
    func qualified(_ name: String) -> String { path + name }

    /// Reads at most `limit` bytes and parses one JSON object whose members are all in `allowed`.
    /// A body sent as another media type is refused before it is read (415); one sent with no
    /// `Content-Type` is read as JSON.
    init(_ request: Request, limit: Int, allowed: [String]) async throws {
        try self.init(data: try await Self.collect(request, limit: limit), allowed: allowed)
    }

    /// The bytes of a JSON body, at most `limit`: refused unread when sent as another media
    /// type (415) or declared larger (413, and the connection closes).
    static func collect(_ request: Request, limit: Int) async throws -> Data {
        if let problem = Self.unacceptedMediaType(request.headers[.contentType]) { throw problem }
        if let problem = APIProblem.declaredTooLarge(request, limit: limit) { throw problem }
        var request = request
        do {
            return Data(try await request.collectBody(upTo: limit).readableBytesView)
        } catch {
            throw APIProblem(.contentTooLarge, "the request body is larger than \(limit) bytes, the most this service accepts")
        }
    }

    init(data: Data, allowed: [String]) throws {
        guard !data.isEmpty else {
            throw APIProblem.badRequest("the request body is empty: send a JSON object with \(allowed.joined(separator: ", "))")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw APIProblem.badRequest("the request body is not a JSON object: send one with \(allowed.joined(separator: ", "))")
        }
        if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIProblem.badRequest("unknown field '\(unknown)': the fields are \(allowed.joined(separator: ", "))")
        }
        members = object
        path = ""
    }

    /// The 415 for a `Content-Type` that is not JSON (`application/json`, or any `+json` type
    /// such as `application/merge-patch+json`), or nil.
    static func unacceptedMediaType(_ contentType: String?) -> APIProblem? {
        guard let contentType else { return nil }
        let essence =
            contentType.split(separator: ";", maxSplits: 1).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard essence != "application/json", !essence.hasSuffix("+json") else { return nil }
        let hint =
            essence == "application/x-www-form-urlencoded"
            ? " (curl -d sends that unless told otherwise: add -H 'Content-Type: application/json')" : ""
        return APIProblem(
            .unsupportedMediaType,
            "Content-Type '\(essence.prefix(100))' is not accepted; send a JSON object as application/json\(hint)")
    }

    func has(_ name: String) -> Bool { members[name] != nil }

    func string(_ name: String, maxLength: Int = 10_000) throws -> String? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw Self.mistyped(qualified(name), value, "a string") }
        guard text.count <= maxLength else {
            throw APIProblem.badRequest("\(qualified(name)) is \(text.count) characters long; give at most \(maxLength)")
        }
        return text
    }

    /// A string that must be there; `expected` says what it is, for the error when it is not
    /// (`an RFC 3339 time with an offset, e.g. …`).
    func requiredString(_ name: String, maxLength: Int = 10_000, expected: String? = nil) throws -> String {
        guard let text = try string(name, maxLength: maxLength) else {
            throw APIProblem.badRequest("field '\(qualified(name))' is required" + (expected.map { ": " + $0 } ?? ""))
        }
        return text
    }

    func double(_ name: String) throws -> Double? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        // JSON true and false arrive as NSNumbers too; their Objective-C type is `c` (char).
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c", number.doubleValue.isFinite else {
            throw Self.mistyped(qualified(name), value, "a number")
        }
        return number.doubleValue
    }

    func strings(_ name: String, maxCount: Int = 50, maxLength: Int = 100) throws -> [String]? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        guard let list = value as? [Any], let texts = list as? [String] else {
            throw Self.mistyped(qualified(name), value, "an array of strings")
        }
        guard texts.count <= maxCount else { throw APIProblem.badRequest("\(qualified(name)) has \(texts.count) entries; give at most \(maxCount)") }
        if let long = texts.first(where: { $0.count > maxLength }) {
            throw APIProblem.badRequest("\(qualified(name)) entry '\(long.prefix(40))…' is longer than \(maxLength) characters")
        }
        return texts
    }

    func stringMap(_ name: String, maxCount: Int = 50, maxLength: Int = 500) throws -> [String: String]? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        guard let map = value as? [String: Any], let texts = map as? [String: String] else {
            throw Self.mistyped(qualified(name), value, "an object of string values")
        }
        guard texts.count <= maxCount else { throw APIProblem.badRequest("\(qualified(name)) has \(texts.count) entries; give at most \(maxCount)") }
        if let long = texts.first(where: { $0.key.count > 100 || $0.value.count > maxLength }) {
            throw APIProblem.badRequest(
                "\(qualified(name)) entry '\(long.key.prefix(40))' is too long: keys up to 100 characters, values up to \(maxLength)")
        }
        return texts
    }

    /// A `{"lat", "lon"}` object.
    func coordinate(_ name: String) throws -> Coordinate? {
        guard let value = members[name], !(value is NSNull) else { return nil }
        guard let object = value as? [String: Any], let lat = (object["lat"] as? NSNumber)?.doubleValue,
            let lon = (object["lon"] as? NSNumber)?.doubleValue, object.count == 2
        else {
            throw Self.mistyped(qualified(name), value, "an object {\"lat\": …, \"lon\": …} and nothing else")
        }
        return try Coordinate(latitude: lat, longitude: lon)
    }

    /// The 400 for a member of the wrong type: its name, what it holds and what it must be.
    static func mistyped(_ name: String, _ value: Any, _ expected: String) -> APIProblem {
        APIProblem.badRequest("\(name) is \(describe(value)); it must be \(expected)")
    }

    /// A JSON value in a few words, for an error: `the string "Paris"`, `the number 3`, `true`,
    /// `an array of 2 entries`, `an object with name, lat`.
    static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let text as String:
            let shown = text.count > 60 ? text.prefix(60) + "…" : Substring(text)
            return "the string \"\(shown)\""
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return number.boolValue ? "true" : "false" }
            return "the number \(number)"
        case let list as [Any]: return list.isEmpty ? "an empty array" : "an array of \(list.count) \(list.count == 1 ? "entry" : "entries")"
        case let object as [String: Any]:
            let keys = object.keys.sorted()
            guard !keys.isEmpty else { return "an empty object" }
            let shown = keys.prefix(5).map { $0.count > 30 ? $0.prefix(30) + "…" : Substring($0) }.joined(separator: ", ")
            return "an object with \(shown)\(keys.count > 5 ? ", …" : "")"
        default: return "a value of another kind"
        }
    }
}
