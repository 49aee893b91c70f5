import DBusKit
import LinkRouterCore

/// `Wait`'s answer: the result as `a{sv}`, with optional keys left out when absent.
enum ResultDictionary {
    static func make(_ r: AuthorizationResult) -> DBusValue {
        var entries: [(String, DBusValue)] = [
            ("code", .string(r.code)), ("state", .string(r.state)),
            ("redirect_uri", .string(r.redirectURI)), ("callback_uri", .string(r.callbackURI)),
        ]
        if let v = r.codeVerifier { entries.append(("code_verifier", .string(v))) }
        if let v = r.issuer { entries.append(("iss", .string(v))) }
        if let v = r.nonce { entries.append(("nonce", .string(v))) }
        return .vardict(entries)
    }
}
