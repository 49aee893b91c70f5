public import DBusKit
public import LinkRouterCore

/// The stable D-Bus error name of each refusal, and back again for clients.
extension RouterError.Code {
    public var dbusName: String { API.errorPrefix + rawValue }

    public init?(dbusName: String) {
        guard dbusName.hasPrefix(API.errorPrefix) else { return nil }
        self.init(rawValue: String(dbusName.dropFirst(API.errorPrefix.count)))
    }
}

extension DBusError {
    /// The bus form of a refusal: its stable name and its message.
    public init(_ error: RouterError) {
        self.init(name: error.code.dbusName, message: error.message)
    }
}
