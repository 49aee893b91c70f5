import LinkRouterCore
import SystemKit

/// The small static pages the listener answers with (threat model L6):
/// nothing from the request is reflected but a provider error code that
/// passed the RFC 6749 charset, escaped; no scripts, styles or images from anywhere.
public enum CallbackPage {
    public static func page(title: String, message: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">\
        <title>\(Markup.escape(title))</title></head>
        <body><h1>\(Markup.escape(title))</h1><p>\(Markup.escape(message))</p></body></html>

        """
    }

    /// What the browser shows when the login reached the app: short, and what to do next.
    public static let signedIn = page(
        title: "Signed in", message: "You are signed in. Go back to the app; you can close this window.")

    /// The same with the way back to the app (`ReturnLink`): a link whose click the browser hands to linkrouter
    /// with a fresh activation token, so the app's window comes to the front (issue 45).
    public static func signedIn(returningTo app: String, link: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">\
        <title>Signed in</title></head>
        <body><h1>Signed in</h1><p>You are signed in. <a href="\(Markup.escape(link))">Return to \(Markup.escape(app))</a>; \
        you can close this window.</p></body></html>

        """
    }

    /// What the browser shows when the provider ended the login without a code: what failed, what to try.
    public static func failed(_ providerError: String?) -> String {
        let reason: String
        switch providerError {
        case "access_denied"?: reason = "The sign-in was declined. Go back to the app to sign in again."
        case "login_required"?, "consent_required"?, "interaction_required"?:
            reason = "The provider needs you to sign in again. Go back to the app and start the sign-in again."
        case "temporarily_unavailable"?, "server_error"?:
            reason =
                "The provider could not complete the sign-in right now. Go back to the app and try again in a moment."
        case let e?:
            reason =
                "The provider ended the sign-in with the error \"\(e)\". Go back to the app and try again; if it happens again, the app's sign-in settings need fixing."
        case nil: reason = "The sign-in did not complete. Go back to the app and try again."
        }
        return page(title: "Sign-in not completed", message: reason + " You can close this window.")
    }

    public static func status(_ code: Int) -> String {
        switch code {
        case 400:
            return page(title: "Bad request", message: "This is not a sign-in callback this listener is waiting for.")
        case 404: return page(title: "Not found", message: "Nothing is here.")
        case 405: return page(title: "Method not allowed", message: "Only GET is answered here.")
        default: return page(title: "Error", message: "The request was refused.")
        }
    }

    /// A sign-out's page (`SignOutPage`): a form that sends the fields to the provider's end-session endpoint, sent at
    /// once by the one script the page's policy allows (its hash), or by the person's click where scripts are off. A
    /// GET form: neither test provider takes the first request as a POST (Glewlwyd 2.7.5 serves `end_session` on GET
    /// only; django-oauth-toolkit 3.4 answers it 403, Django's CSRF check refusing a form posted from another
    /// origin: seen when the page was made to POST for the test).
    public static func signOutForm(action: String, fields: [(String, String)]) -> HTTPResponse {
        let inputs = fields.map {
            "<input type=\"hidden\" name=\"\(Markup.escape($0.0))\" value=\"\(Markup.escape($0.1))\">"
        }
        .joined()
        let body = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">\
            <meta name="referrer" content="no-referrer"><title>Signing out</title></head>
            <body><h1>Signing out</h1><form method="get" action="\(Markup.escape(action))">\(inputs)\
            <p>Continuing to your provider to sign out… <button type="submit">Continue</button></p></form>\
            <script>\(signOutScript)</script></body></html>

            """
        var r = HTTPResponse(status: 200, body: body)
        r.contentSecurityPolicy =
            "default-src 'none'; script-src '\(signOutScriptHash)'; base-uri 'none'; frame-ancestors 'none'"
        return r
    }

    /// The page's one script, and its hash for the policy (a test computes it again).
    public static let signOutScript = "document.forms[0].submit();"
    public static let signOutScriptHash = "sha256-8lDeP0UDwCO6/RhblgeH/ctdBzjVpJxrXizsnIk3cEQ="
}
