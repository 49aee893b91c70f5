/// The page a sign-out's browser is sent to when the sign-out names the ID
/// token (issue 36): a browser's command line is readable by the machine's
/// other users (`/proc/PID/cmdline`, where `/proc` is not `hidepid`), and the
/// end-session URL would carry the ID token there — a credential for an
/// account whose `token` is `id`. So the browser is opened at a loopback
/// page of the daemon's (`/linkrouter/sign-out/NONCE`, the session's unused
/// nonce: unguessable) that answers once, and only a connection of the
/// daemon's own user (its uid read from the kernel's socket table), with a
/// form that sends the request to the provider's `end_session_endpoint`. The
/// command line then names only the page. The form is a GET (the spec's
/// first form): RP-Initiated Logout §2 says a provider MUST take POST too, but
/// neither test provider does for the first request (`CallbackPage.signOutForm`),
/// so the token still reaches the provider in the URL, as before, and the
/// browser's history (the user's own) keeps it; no other user sees it.
public struct SignOutPage: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// The provider's `end_session_endpoint`.
    public let action: String
    public let clientID: String
    public let idTokenHint: String

    /// The form's fields, with the sign-out's own redirect and state.
    public func fields(redirect: String, state: String) -> [(String, String)] {
        [
            ("id_token_hint", idTokenHint), ("client_id", clientID), ("post_logout_redirect_uri", redirect),
            ("state", state),
        ]
    }

    /// Never the ID token: a page travels in an operation, which may reach a log line.
    public var description: String { "sign-out page for \(action)" }

    /// The page of a planned sign-out, for the session `secrets` draws; nil when the sign-out names no ID token (its
    /// URL then carries nothing secret and is opened as it is).
    static func of(_ plan: SessionPlan, secrets: SessionSecrets) -> SignOutPage? {
        guard case .logout(let endpoint, let clientID, let hint?) = plan.source else { return nil }
        return SignOutPage(
            path: "/linkrouter/sign-out/" + secrets.nonce, action: endpoint.original, clientID: clientID,
            idTokenHint: hint)
    }
}

extension LoopbackBinding {
    /// A listener for a sign-out page alone (the account's redirect is not a loopback one).
    static let pageOnly = LoopbackBinding(addresses: ["127.0.0.1"], hostLiteral: "127.0.0.1", port: 0)
}
