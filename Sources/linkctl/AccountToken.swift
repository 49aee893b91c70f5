import DBusKit

/// `GetToken` as linkctl's verbs ask it (`token NAME`, `credential git|kube`,
/// the docker helper): the token, its expiry, the daemon's warning if any,
/// and the whole reply for `--json`. A refresh, or an unlock prompt the
/// keyring shows, can take a while: the call waits up to 120 s.
enum AccountToken {
    struct Reply {
        let token: String
        let expiresAt: Int64?
        let warning: String?
        let fields: DBusValue?
    }

    static func get(_ account: String, _ options: [(String, DBusValue)] = []) throws(DaemonClient.Failure) -> Reply {
        let client = try DaemonClient.connect()
        let reply = try client.call("GetToken", [.string(account), .vardict(options)], timeoutMilliseconds: 120_000).first
        guard let token = reply?.entry("token")?.stringValue, !token.isEmpty else {
            throw .refused(name: DBusError.failed, message: "the daemon answered GetToken without a token")
        }
        var expiresAt: Int64?
        if case .int64(let e)? = reply?.entry("expires_at") { expiresAt = e }
        return Reply(token: token, expiresAt: expiresAt, warning: reply?.entry("warning")?.stringValue, fields: reply)
    }
}
