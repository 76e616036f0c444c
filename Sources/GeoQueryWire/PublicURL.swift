/// The public base of the service's own URLs (photos, avatars, share links), so that every URL
/// in an answer is absolute and an app can text it as it is (docs/api-conventions.md).
///
/// The service binds ``base`` for each request (from `--public-url`, else the request's `Host`);
/// writers call ``absolute(_:)`` on the server-relative paths they write. Outside a request
/// (the CLI, a library user) no base is bound and paths stay as they are.
public enum PublicURL {
    /// `https://api.example.org` or `http://127.0.0.1:8080`: a scheme and an authority, no
    /// trailing slash; nil when unknown.
    @TaskLocal public static var base: String?

    /// `path` (a server-relative path, `/v1/photos/…`) on ``base``; anything else (an absolute
    /// URL from a provider, or any path when no base is bound) as it is.
    public static func absolute(_ path: String) -> String {
        guard let base, path.hasPrefix("/"), !path.hasPrefix("//") else { return path }
        return base + path
    }

    /// The base a request's `Host` names, for `scheme`: nil when the value is not a host name or
    /// address with an optional port (nothing a client could smuggle a path or a second URL in).
    public static func base(scheme: String, host: String?) -> String? {
        guard let host, (1...255).contains(host.utf8.count) else { return nil }
        let allowed = host.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]")].contains(byte)
        }
        guard allowed, host.first != ":", host.first != "." else { return nil }
        return scheme + "://" + host
    }
}
