/// docker's credential-helper protocol as `docker-credential-linkrouter get`
/// answers it (`../shared/reference/credential-helper-protocols.md` §3): which
/// registry a server URL names, the answer's JSON, and the words docker
/// clients match on. linkctl's front compiles this file as it is.
enum DockerRegistry {
    /// What docker clients match on, on stdout, with exit 1.
    static let notFound = "credentials not found in native keychain"
    /// What is said, on stdout with exit 1, when no server URL came on stdin.
    static let noServerURL = "no credentials server URL"

    /// The server URL docker wrote on stdin, without the white space around it.
    static func serverURL(_ input: [UInt8]) -> String {
        func space(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        var bytes = input[...]
        while let f = bytes.first, space(f) { bytes.removeFirst() }
        while let l = bytes.last, space(l) { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `https://registry.example.com/v1/` → `registry.example.com`; a bare host stays as it is. Lowercase. Nil for
    /// any scheme but https: a token never goes to a registry reached in the clear (issue 36).
    static func host(of server: String) -> String? {
        var bytes = Array(server.utf8)[...]
        if let colon = bytes.indices.first(where: { i in
            bytes[i] == 0x3A && bytes[(i + 1)...].starts(with: [0x2F, 0x2F])
        }) {
            guard String(decoding: bytes[..<colon], as: UTF8.self).lowercased() == "https" else { return nil }
            bytes = bytes[(colon + 3)...]
        }
        if let slash = bytes.firstIndex(of: 0x2F) { bytes = bytes[..<slash] }
        return String(decoding: bytes, as: UTF8.self).lowercased()
    }

    /// `get`'s answer, with the Go field names docker reads.
    static func answer(serverURL: String, username: String, secret: String) -> JSON {
        .object([("ServerURL", .string(serverURL)), ("Username", .string(username)), ("Secret", .string(secret))])
    }
}
