/// `BeginSession`'s options and their D-Bus types: part of the public
/// contract (docs/dbus-api.md), so apps, the daemon and the tests read one table.
public enum BeginSessionOptions {
    public static let types: [String: String] = [
        "authorization_endpoint": "s", "client_id": "s", "redirect_uri": "s", "scope": "s", "extra_params": "a{ss}",
        "open_browser": "b", "browser": "s", "ttl": "u", "authorize_url": "s", "app_callback_uri": "s",
        "resume": "s", "resume_hosts": "as", "resume_path_prefix": "s", "claim_token": "s", "code_challenge": "s",
        "issuer": "s", "require_iss": "b",
    ]
}
