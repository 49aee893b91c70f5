import DBusKit
import LinkRouterCore

/// `RefreshTokens`' `a{sv}`: one row per option, checked like `BeginSession`'s
/// (unknown keys and wrong types refused, never ignored).
struct RefreshOptions {
    var issuer: String
    var clientID: String
    var refreshToken: String
    var scope: String?

    /// The options: key, whether required, what it is (docs/dbus-api.md lists the same).
    static let table: [(key: String, required: Bool, doc: String)] = [
        ("issuer", true, "the issuer the refresh token came from; its metadata gives the token endpoint and keys"),
        ("client_id", true, "the client the refresh token was issued to"),
        ("refresh_token", true, "the refresh token (at most 8 KiB of printable ASCII)"),
        ("scope", false, "a narrower scope (RFC 6749 §6); default: the one granted"),
    ]

    static func decode(_ options: DBusValue, limits: Limits = Limits()) throws(DBusError) -> RefreshOptions {
        var values: [String: String] = [:]
        try OptionsArgument.forEach(options, of: "RefreshTokens", row: { key in table.first { $0.key == key } },
                                    known: table.map(\.key)) { _, key, wrapped throws(DBusError) in
            guard case .string(let s)? = wrapped.variantValue else {
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" must be of type s")
            }
            values[key] = s
        }
        for row in table where row.required && values[row.key] == nil {
            throw DBusError(RouterError(.invalidArgument, "\(row.key) is missing: \(row.doc)"))
        }
        do throws(RouterError) {
            let issuer = try SessionPlan.checkIssuer(values["issuer"]!, maxLength: limits.maxOptionBytes)
            let clientID = values["client_id"]!, token = values["refresh_token"]!
            guard clientID.utf8.count <= limits.maxOptionBytes, OAuthText.isVisibleText(clientID) else {
                throw RouterError(.invalidArgument, "client_id must be printable ASCII (RFC 6749 Appendix A)")
            }
            guard token.utf8.count <= 8192, !token.isEmpty, OAuthText.isVisibleText(token) else {
                throw RouterError(.invalidArgument, "refresh_token must be 1 to 8192 characters of printable ASCII")
            }
            if let scope = values["scope"], !OAuthText.isScope(scope) {
                throw RouterError(.invalidArgument, "scope must be space-separated tokens of printable ASCII (RFC 6749 §3.3)")
            }
            return RefreshOptions(issuer: issuer, clientID: clientID, refreshToken: token, scope: values["scope"])
        } catch {
            throw DBusError(error)
        }
    }
}
