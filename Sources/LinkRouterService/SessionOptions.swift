public import DBusKit
public import LinkRouterCore
import LinkRouterAPI

/// Turns `BeginSession`'s `a{sv}` into a `SessionRequest`, checking every
/// value's type. Unknown keys are refused rather than ignored: an option a
/// client relies on for safety (`issuer`, say) must never be dropped silently.
public enum SessionOptions {
    static var known: [String: String] { BeginSessionOptions.types }

    /// Public for the message fuzzer (fuzz/), which feeds it every decoded a{sv}.
    public static func decode(_ options: DBusValue) throws(DBusError) -> SessionRequest {
        guard let entries = options.stringKeyedEntries else {
            throw DBusError(name: DBusError.invalidArgs, message: "BeginSession takes a{sv} options")
        }
        var request = SessionRequest()
        var seen: Set<String> = []
        for (key, wrapped) in entries {
            guard seen.insert(key).inserted else {
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" is given twice")
            }
            guard let type = known[key] else {
                throw DBusError(name: DBusError.invalidArgs, message: "unknown option \"\(clip(key))\"; known options: \(known.keys.sorted().joined(separator: ", "))")
            }
            guard let value = wrapped.variantValue, value.signature == type else {
                let got = wrapped.variantValue?.signature ?? wrapped.signature
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" must be of type \(type), not \(got)")
            }
            switch (key, value) {
            case ("authorization_endpoint", .string(let s)): request.authorizationEndpoint = s
            case ("client_id", .string(let s)): request.clientID = s
            case ("redirect_uri", .string(let s)): request.redirectURI = s
            case ("scope", .string(let s)): request.scope = s
            case ("browser", .string(let s)): request.browser = s
            case ("authorize_url", .string(let s)): request.authorizeURL = s
            case ("app_callback_uri", .string(let s)): request.appCallbackURI = s
            case ("resume", .string(let s)): request.resume = s
            case ("resume_path_prefix", .string(let s)): request.resumePathPrefix = s
            case ("claim_token", .string(let s)): request.claimToken = s
            case ("code_challenge", .string(let s)): request.codeChallenge = s
            case ("issuer", .string(let s)): request.issuer = s
            case ("open_browser", .boolean(let b)): request.openBrowser = b
            case ("require_iss", .boolean(let b)): request.requireIssuer = b
            case ("ttl", .uint32(let u)): request.ttl = u
            case ("resume_hosts", .array(_, let items)):
                request.resumeHosts = items.compactMap(\.stringValue)
            case ("extra_params", let dict):
                for (k, v) in dict.stringKeyedEntries ?? [] {
                    guard request.extraParams[k] == nil else {
                        throw DBusError(name: DBusError.invalidArgs, message: "extra_params names \"\(clip(k))\" twice")
                    }
                    request.extraParams[k] = v.stringValue ?? ""
                }
            default:
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" has an unexpected value")
            }
        }
        return request
    }

    static func clip(_ s: String) -> String { s.utf8.count > 64 ? String(s.prefix(64)) + "…" : s }
}
