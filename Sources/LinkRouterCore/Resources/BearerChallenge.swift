/// A resource server's `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3),
/// with the parameters that say what to do next: `error`
/// (`invalid_token`, `insufficient_scope`, RFC 9470's
/// `insufficient_user_authentication`), `scope`, `resource_metadata`
/// (RFC 9728 §5.1), `acr_values` and `max_age` (RFC 9470 §3). Read from
/// RFC 9110 §11.6.1's grammar: challenges separated by commas, each a scheme
/// and its `name=token` or `name="quoted"` parameters; only Bearer's are kept.
public struct BearerChallenge: Sendable, Equatable {
    public var error: String?
    public var errorDescription: String?
    public var scope: String?
    public var resourceMetadata: String?
    public var acrValues: String?
    public var maxAge: Int64?

    public init() {}

    /// The Bearer challenge among `values` (each a `WWW-Authenticate` field's value), if there is one.
    public static func parse(_ values: [String]) -> BearerChallenge? {
        for value in values {
            if let found = parse(Array(value.utf8)) { return found }
        }
        return nil
    }

    /// Each value at most this long is read; a longer one is no challenge (a hostile server's).
    static let maxBytes = 8192

    private static func parse(_ bytes: [UInt8]) -> BearerChallenge? {
        guard bytes.count <= maxBytes else { return nil }
        var i = 0
        func skipSpace() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 } }
        func token() -> String {
            let start = i
            while i < bytes.count, isTokenChar(bytes[i]) { i += 1 }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
        var current: BearerChallenge?
        var inBearer = false
        while i < bytes.count {
            skipSpace()
            if i < bytes.count, bytes[i] == 0x2C {
                i += 1
                continue
            }
            let word = token()
            guard !word.isEmpty else { return current }  // not the grammar: what was read stands
            skipSpace()
            if i < bytes.count, bytes[i] == 0x3D {
                // `name=value`: a parameter of the challenge being read.
                i += 1
                skipSpace()
                var value = ""
                if i < bytes.count, bytes[i] == 0x22 {
                    i += 1
                    var out: [UInt8] = []
                    while i < bytes.count, bytes[i] != 0x22 {
                        if bytes[i] == 0x5C, i + 1 < bytes.count { i += 1 }
                        out.append(bytes[i])
                        i += 1
                    }
                    guard i < bytes.count else { return current }  // an unterminated string
                    i += 1
                    value = String(decoding: out, as: UTF8.self)
                } else {
                    value = token()
                }
                if inBearer { current?.set(ASCII.lowercased(word), value) }
            } else {
                // A new challenge's scheme; a Bearer one read whole ends the search.
                if inBearer, let current { return current }
                inBearer = ASCII.lowercased(word) == "bearer"
                if inBearer { current = BearerChallenge() }
            }
        }
        return inBearer ? current : nil
    }

    private mutating func set(_ name: String, _ value: String) {
        switch name {
        case "error": error = OAuthText.isErrorText(value) ? value : nil
        case "error_description": errorDescription = value
        case "scope": scope = OAuthText.isScope(value) ? value : nil
        case "resource_metadata": resourceMetadata = value
        case "acr_values": acrValues = value
        case "max_age": maxAge = Int64(value).flatMap { $0 >= 0 ? $0 : nil }
        default: break
        }
    }

    /// RFC 9110's `tchar`.
    private static func isTokenChar(_ b: UInt8) -> Bool {
        ASCII.isAlpha(b) || ASCII.isDigit(b) || "!#$%&'*+-.^_`|~".utf8.contains(b)
    }
}
