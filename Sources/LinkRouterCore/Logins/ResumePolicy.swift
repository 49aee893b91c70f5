/// Whether a `resume_uri` from the Vipps/MobilePay app may be opened: the
/// callback is an open-redirect risk (RFC 9700 §4.11, threat model R1).
public enum ResumePolicy {
    /// Checks the once-decoded `resume_uri` against the session's allow-list:
    /// https only, no userinfo, on the authorization endpoint's origin or on a
    /// host the session named in `resume_hosts` (default port), under
    /// `resume_path_prefix` when one was given. Returns the URL to open.
    public static func check(_ text: String, for session: CodeLogin, maxLength: Int) throws(RouterError) -> String {
        let uri: URIReference
        do { uri = try URIReference.strict(text, maxLength: maxLength) } catch {
            throw RouterError(.resumeRefused, "resume_uri is not a valid URI (\(error.message)); nothing was opened")
        }
        guard uri.normalizedScheme == "https" else {
            throw RouterError(
                .resumeRefused, "resume_uri uses \"\(uri.scheme)\"; only https is reopened; nothing was opened")
        }
        guard !uri.hasUserinfo else {
            throw RouterError(
                .resumeRefused, "resume_uri carries userinfo (\"…@\"), the classic look-alike trick; nothing was opened"
            )
        }
        let lowered = ASCII.lowercased(text)
        for escape in ["%0d", "%0a", "%00"] where lowered.contains(escape) {
            throw RouterError(
                .resumeRefused,
                "resume_uri carries an encoded control character (\(escape.uppercased())); nothing was opened")
        }
        let origin = AuthorizeURL.origin(of: uri)
        let host = uri.host.map(ASCII.lowercased) ?? ""
        let onEndpoint = origin == session.authorizationOrigin
        let onNamedHost = uri.port == nil && session.options.resumeHosts.contains(host)
        guard onEndpoint || onNamedHost else {
            let allowed = ([session.authorizationOrigin] + session.options.resumeHosts.map { "https://" + $0 }).joined(
                separator: ", ")
            throw RouterError(
                .resumeRefused,
                "resume_uri is on \(origin), which is not the authorization endpoint's origin or a resume host (allowed: \(allowed)); nothing was opened"
            )
        }
        if let prefix = session.options.resumePathPrefix, !uri.path.hasPrefix(prefix) {
            throw RouterError(
                .resumeRefused,
                "resume_uri path \"\(uri.path)\" is not under the session's resume_path_prefix \"\(prefix)\"; nothing was opened"
            )
        }
        // The scheme is case-insensitive (RFC 3986 §3.1); hand browsers the canonical spelling.
        return "https" + text.dropFirst(5)
    }
}
