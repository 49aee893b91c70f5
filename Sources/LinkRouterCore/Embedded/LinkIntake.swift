/// A link as a launcher hands it to `linkctl open`, and the rules linkctl and
/// the daemon share for taking it in: what is put back, what is refused,
/// what travels with it, and how long each side waits for an app.
///
/// Launchers do not all pass links as they were written. KDE's `kde-open5`
/// (KIO 5.103, measured: `../shared/reference/desktop-launch-paths.md`)
/// percent-decodes `%20` to a space, valid UTF-8 escapes to the raw
/// characters, and unreserved escapes (`%7E%41` → `~A`), while every reserved
/// or unsafe byte (`%2F %26 %3D %3F %23 %2B %25`, controls, invalid UTF-8)
/// stays encoded. A space or a non-ASCII byte can never stand raw in a URI,
/// so it can only be such a decoding: `restoringEncoding` encodes exactly
/// those bytes again, which gives back the link the sender wrote (up to the
/// hex digits' case). Nothing else is touched: a decoded `~` is already a
/// valid URI byte and means the same (RFC 3986 §6.2.2), and nothing that
/// could be a delimiter was ever decoded, so no guess can change what a link
/// means. The strict parser and the D-Bus `Route` API stay strict.
public enum LinkIntake {
    /// The link with every raw space and non-ASCII byte after its authority
    /// percent-encoded again (uppercase hex); the same string when there is
    /// none. This is also RFC 3987 §3.1's mapping of an IRI to a URI, which a
    /// browser applies itself to a link with raw non-ASCII characters, so a web
    /// link passed through means to the browser exactly what it meant before.
    /// The authority is left as it came: KIO decodes no host, and a host's
    /// non-ASCII form is the browser's to map (IDNA).
    public static func restoringEncoding(_ text: String) -> String {
        guard text.utf8.contains(where: needsEncoding) else { return text }
        let u = Array(text.utf8)
        var start = 0
        if let colon = u.firstIndex(of: 0x3A) {
            start = colon + 1
            if start + 1 < u.count, u[start] == 0x2F, u[start + 1] == 0x2F {
                start += 2
                while start < u.count, u[start] != 0x2F, u[start] != 0x3F, u[start] != 0x23 { start += 1 }
            }
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array(u[..<start])
        out.reserveCapacity(u.count + 16)
        for b in u[start...] {
            if needsEncoding(b) {
                out.append(0x25)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A space or a byte of a non-ASCII character: what KIO decodes that no URI may hold raw.
    static func needsEncoding(_ b: UInt8) -> Bool { b == 0x20 || b >= 0x80 }

    /// Why `uri` (already restored) is not something `open` takes, or nil
    /// (threat model U5, U10). Control characters are refused, not encoded:
    /// no launcher decodes them, so a raw one is not a click's link.
    public static func refusal(_ uri: String) -> String? {
        if uri.isEmpty { return "open needs one URL; got an empty argument" }
        if uri.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return "the URL contains a control character (NUL, newline, tab…); refusing it"
        }
        guard let parsed = try? URIReference.split(uri) else {
            return
                "\"\(uri.prefix(80))\" is not an absolute URL (it has no scheme); open takes exactly one absolute URL"
        }
        let scheme = parsed.normalizedScheme
        guard SchemeRule.isRouted(scheme) else {
            return
                "linkrouter does not handle \"\(scheme):\" links; it routes http, https and reverse-domain schemes such as com.example.app"
        }
        return nil
    }

    /// How long the daemon waits for an app's `org.freedesktop.Application.Open`
    /// (D-Bus activation may have to start it first).
    public static let appAnswerMilliseconds: Int32 = 30_000
    /// How long `linkctl open` waits for the daemon's answer: longer than the
    /// daemon waits for the app, so the answer always says what became of the link.
    public static let clientWaitMilliseconds: Int32 = appAnswerMilliseconds + 5_000

    /// The keys of `RouteLink`'s context, as in `org.freedesktop.Application`'s platform data.
    public static let activationTokenKey = "activation-token"
    public static let desktopStartupIDKey = "desktop-startup-id"

    /// The variable linkrouter sets on a browser it starts; a web link that
    /// comes back to `linkctl open` with it set came round a loop.
    public static let hopVariable = "LINKROUTER_FORWARDED"

    /// A web link handed back by a browser linkrouter started: the browser's
    /// own entry leads to linkrouter, and opening it again would loop.
    public static func isLoop(_ uri: String, hopMarked: Bool) -> Bool {
        hopMarked && SchemeRule.isWebLink(uri)
    }

    /// What `linkctl open` says when it refuses such a link.
    public static let loopRefusal =
        "refusing a web link handed back by a browser linkrouter started: the browser's desktop entry leads back to linkrouter (a loop); run linkctl doctor"
}
