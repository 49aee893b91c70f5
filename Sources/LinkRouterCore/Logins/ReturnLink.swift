/// The way back from a loopback login's success page (issue 45): a loopback
/// callback carries no activation token (the browser fetches a URL; nothing
/// is launched), so the page offers a link of linkrouter's own scheme,
/// "Return to APP", whose click the browser hands to `linkctl open` with a
/// fresh token; the daemon passes that token to the login's owner
/// (`ReturnRequested`), and the app presents its window with it.
///
/// `org.linkrouter.return:/back?state=STATE`: the state the callback already
/// showed in the address bar, so the link tells a page nothing new; it only
/// ever brings the login's own app to the front.
public enum ReturnLink {
    public static let scheme = "org.linkrouter.return"
    static let path = "/back"

    /// The link for the login whose state is `state`.
    public static func link(state: String) -> String { scheme + ":" + path + "?state=" + state }

    /// Whether `uri`, read, is a return link: linkrouter's scheme and its one path.
    static func isReturn(_ uri: URIReference) -> Bool { uri.normalizedScheme == scheme && uri.path == path }
}
