import DBusKit
import LinkRouterCore

/// `RefreshTokens`' `a{sv}`: checked like `BeginSession`'s (unknown keys and
/// wrong types refused, never ignored); the values are the core's to check.
enum RefreshOptions {
    static let keys = ["issuer", "client_id", "refresh_token", "scope"]

    static func decode(_ options: DBusValue) throws(DBusError) -> RefreshRequest {
        var request = RefreshRequest()
        try OptionsArgument.forEach(options, of: "RefreshTokens", row: { key in keys.contains(key) ? key : nil },
                                    known: keys) { _, key, wrapped throws(DBusError) in
            guard case .string(let s)? = wrapped.variantValue else {
                throw DBusError(name: DBusError.invalidArgs, message: "option \"\(key)\" must be of type s")
            }
            switch key {
            case "issuer": request.issuer = s
            case "client_id": request.clientID = s
            case "refresh_token": request.refreshToken = s
            default: request.scope = s
            }
        }
        return request
    }
}
