#if !hasFeature(Embedded)
    import LinkRouterCore
#endif

/// One message of git's credential helper protocol (gitcredentials(7),
/// `../shared/reference/credential-helper-protocols.md`): `key=value` lines
/// up to a blank line or the end. Keys may repeat (`capability[]`,
/// `wwwauth[]`); a key cannot hold `=`, no line may hold NUL or CR (git
/// refuses CR itself), and a line is at most 65535 bytes. Anything else is
/// refused with the rule it broke rather than guessed at.
public struct GitCredentialMessage: Sendable, Equatable {
    public var entries: [(key: String, value: String)]

    public static let maxLineBytes = 65_535
    /// More than any git sends; stops a runaway input.
    public static let maxLines = 256

    public init(_ entries: [(key: String, value: String)] = []) { self.entries = entries }

    public static func == (a: GitCredentialMessage, b: GitCredentialMessage) -> Bool {
        a.entries.elementsEqual(b.entries) { $0.key == $1.key && $0.value == $1.value }
    }

    public func value(_ key: String) -> String? { entries.last { $0.key == key }?.value }
    public func values(_ key: String) -> [String] { entries.filter { $0.key == key }.map { $0.value } }

    /// Reads the bytes git wrote: up to the first blank line, or all of them.
    public static func parse(_ bytes: [UInt8]) throws(RouterError) -> GitCredentialMessage {
        var out: [(key: String, value: String)] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            let line = bytes[start..<end]
            start = end + 1
            if line.isEmpty { break }
            guard line.count <= maxLineBytes else {
                throw .invalid("a line of \(line.count) bytes; git's limit is \(maxLineBytes)")
            }
            guard !line.contains(0), !line.contains(0x0D) else {
                throw .invalid("a line holds NUL or CR, which git's credential protocol does not allow")
            }
            guard let eq = line.firstIndex(of: 0x3D), eq != line.startIndex else {
                throw .invalid("a line is not key=value")
            }
            guard out.count < maxLines else { throw .invalid("more than \(maxLines) lines") }
            out.append(
                (String(decoding: line[..<eq], as: UTF8.self), String(decoding: line[(eq + 1)...], as: UTF8.self)))
        }
        return GitCredentialMessage(out)
    }

    /// The URL the request is for, `protocol://host[/path]` (the path only when git sends it,
    /// `credential.useHttpPath`).
    public var url: String? {
        guard let scheme = value("protocol"), let host = value("host"), !scheme.isEmpty, !host.isEmpty else {
            return nil
        }
        return scheme + "://" + host + "/" + (value("path") ?? "")
    }

    /// Whether a token may answer this request (issue 36): over https, or http to a loopback host (git's own test
    /// servers); never to a host reached in the clear.
    public var servable: Bool {
        guard let url, let uri = try? URIReference.split(url) else { return false }
        return IssuerScheme.allows(uri)
    }

    /// The message as git reads it, each line ended by a newline.
    public var text: String { entries.map { $0.key + "=" + $0.value + "\n" }.joined() }

    /// The answer to `get` with a token: Bearer where git offered `capability[]=authtype`
    /// (2.46+), always the classic user name and password too (Debian 12's git 2.39 uses
    /// those, as HTTP Basic), with the token's expiry so git never uses it past that.
    public static func answer(to request: GitCredentialMessage, token: String, username: String, expiresAt: Int64?)
        -> GitCredentialMessage
    {
        var out: [(key: String, value: String)] = []
        if request.values("capability[]").contains("authtype") {
            out += [("capability[]", "authtype"), ("authtype", "Bearer"), ("credential", token)]
        }
        out += [("username", username), ("password", token)]
        if let expiresAt { out.append(("password_expiry_utc", String(expiresAt))) }
        return GitCredentialMessage(out)
    }
}
