/// Exact comparison of a received callback with the registered one, naming
/// the first difference (RFC 8252 §8.10; the Vipps and STX documents warn
/// about trailing slashes and percent-encoding).
extension CallbackURI {
    /// Nil when `received` is this callback; otherwise what differs, in words.
    public func mismatch(with received: URIReference, query: QueryParameters) -> String? {
        if received.normalizedScheme != uri.normalizedScheme {
            return "scheme \"\(received.scheme)\" differs from the registered \"\(uri.scheme)\""
        }
        if style == .loopback {
            let host = received.host.map(ASCII.lowercased) ?? ""
            if host != loopbackHost {
                return "host \"\(host)\" differs from the registered loopback host \"\(loopbackHost ?? "")\""
            }
            if received.hasUserinfo {
                return "the URI carries userinfo (\"user@\"), which the registered callback does not"
            }
        } else if received.authority != uri.authority {
            switch (received.authority, uri.authority) {
            case (let got?, nil):
                return
                    "the URI has an authority \"//\(got)\" where the registered \"\(string)\" has none (\":/\" versus \"://\")"
            case (nil, let want?):
                return "the URI has no authority where the registered one has \"//\(want)\""
            case (let got?, let want?):
                return "authority \"\(got)\" differs from the registered \"\(want)\""
            case (nil, nil):
                break
            }
        }
        if received.path != uri.path {
            return "path \"\(received.path)\" differs from the registered \"\(uri.path)\""
                + Self.describePathDifference(received.path, uri.path)
        }
        for want in ownQuery {
            let got = query.pairs.filter { $0.rawName == want.rawName }
            if got.isEmpty {
                if query.contains(want.name) {
                    return
                        "query parameter \"\(want.name)\" differs from the registered one by percent-encoding of its name"
                }
                return "the registered query parameter \"\(want.raw)\" is missing"
            }
            if got.count > 1 { return "query parameter \"\(want.rawName)\" appears \(got.count) times" }
            if got[0].rawValue != want.rawValue {
                if got[0].value == want.value {
                    return
                        "query parameter \"\(want.rawName)\" is \"\(got[0].rawValue ?? "")\" where the registered one is \"\(want.rawValue ?? "")\": they differ by percent-encoding"
                }
                return
                    "query parameter \"\(want.rawName)\" is \"\(got[0].rawValue ?? "")\" where the registered one is \"\(want.rawValue ?? "")\""
            }
        }
        return nil
    }

    static func describePathDifference(_ got: String, _ want: String) -> String {
        if got == want + "/" { return " by a trailing slash" }
        if want == got + "/" { return ": the registered path's trailing slash is missing" }
        if ASCII.lowercased(got) == ASCII.lowercased(want) { return " by letter case" }
        if let g = try? PercentEncoding.decode(Substring(got), form: false),
            let w = try? PercentEncoding.decode(Substring(want), form: false), g == w
        {
            return " by percent-encoding"
        }
        if got.contains("//") || got.contains("/./") || got.contains("/../") || got.hasSuffix("/.")
            || got.hasSuffix("/..")
        {
            return " by dot segments or doubled slashes, which are compared as written"
        }
        return ""
    }
}
