import Foundation

/// A small, fast codec for the flat `{"key":"value",…}` objects the index stores tags in.
///
/// Decoding tags happens once per returned place, so it must cost far less than
/// `JSONSerialization`; anything that is not a flat object of strings falls back to it.
enum FlatJSON {
    /// Encodes with sorted keys, so equal tag sets give equal text.
    static func encode(_ object: [String: String]) -> String {
        var out = "{"
        var first = true
        for key in object.keys.sorted() {
            if !first { out += "," }
            first = false
            appendQuoted(key, to: &out)
            out += ":"
            appendQuoted(object[key]!, to: &out)
        }
        out += "}"
        return out
    }

    private static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Decodes a flat object of strings; nil if the bytes are not one.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: String]? {
        var index = 0
        let count = bytes.count
        func skipSpace() { while index < count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 } }
        func string() -> String? {
            guard index < count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            index += 1
            let start = index
            var plain = true
            while index < count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\") { plain = false; index += 2 } else { index += 1 }
            }
            guard index < count else { return nil }
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
            index += 1
            if plain { return String(decoding: slice, as: UTF8.self) }
            // Rare: escapes. Let JSONSerialization unescape this one string.
            var quoted = Data([UInt8(ascii: "[")])
            quoted.append(UInt8(ascii: "\""))
            quoted.append(contentsOf: slice)
            quoted.append(contentsOf: Array("\"]".utf8))
            return (try? JSONSerialization.jsonObject(with: quoted)) .flatMap { ($0 as? [String])?.first }
        }
        skipSpace()
        guard index < count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        var result: [String: String] = [:]
        skipSpace()
        if index < count, bytes[index] == UInt8(ascii: "}") { return result }
        while true {
            skipSpace()
            guard let key = string() else { return nil }
            skipSpace()
            guard index < count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace()
            guard let value = string() else { return nil }
            result[key] = value
            skipSpace()
            guard index < count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { return result }
            return nil
        }
    }

    /// Decodes any JSON object, turning non-string values into their JSON text.
    static func decodeLenient(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: String]? {
        if let fast = decode(bytes) { return fast }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        return object.mapValues { value in
            if let text = value as? String { return text }
            if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) {
                return String(decoding: data, as: UTF8.self)
            }
            return "\(value)"
        }
    }
}
