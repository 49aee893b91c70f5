import DBusKit
import Foundation
import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// The whole login against a real provider, Debian's Glewlwyd (issue 16):
/// discovery from the issuer alone, the code exchanged by the daemon, the ID
/// token verified, a refresh. The user's part (the login form) is played by
/// Fixtures/scripted_login.py over Glewlwyd's own REST API, so these tests
/// need no browser; the redirect reaches the daemon through the real xdg-open.
@Suite(
    "The whole login: discovery, exchange, a verified ID token (Glewlwyd)", .serialized,
    .enabled(if: OpenIDWorld.unavailable == nil, "\(OpenIDWorld.unavailable ?? "")"))
struct OpenIDLoginTests {
    @Test(
        "linkctl login --issuer --json through the real xdg-open prints verified tokens; linkctl token refresh gets new ones with the same checks"
    )
    func linkctlLogin() throws {
        let w = try OpenIDWorld()
        let (status, out, err) = try w.linkctlLogin([
            "--issuer", w.provider.issuer, "--client-id", w.provider.clientID,
            "--redirect-uri", "com.example.app:/callback", "--scope", "openid email profile", "--json",
        ])
        #expect(status == 0, "\(err)")
        let json = try #require(try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
        #expect(json["code"] == nil && json["code_verifier"] == nil, "the code was exchanged, not handed out")
        #expect((json["access_token"] as? String)?.isEmpty == false && json["token_type"] as? String != nil)
        #expect(json["refresh_token"] as? String != nil && json["id_token"] as? String != nil)
        #expect((json["expires_at"] as? Int).map { $0 > Int(time(nil)) } == true)
        let claims = try #require(json["claims"] as? [String: Any], "claims are the verified ID token's JSON object")
        #expect(claims["iss"] as? String == w.provider.issuer && claims["nonce"] as? String == json["nonce"] as? String)
        #expect(claims["sub"] as? String != nil && json["sub"] as? String == claims["sub"] as? String)
        #expect(json["email"] as? String == "alice@example.com")

        // A refresh through the daemon (the token on stdin, never on the command line). Glewlwyd 2.7
        // answers a refresh with a new access token only: no ID token, no new refresh token.
        let refresh = try #require(json["refresh_token"] as? String)
        func refreshed(_ flags: String) throws -> Subprocess.Outcome {
            try w.h.desktop.run([
                "/bin/sh", "-c",
                "printf '%s\\n' \"$1\" | \"$2\" token refresh \(flags) --issuer \"$3\" --client-id \"$4\" --refresh-token -",
                "sh", refresh, Paths.linkctl, w.provider.issuer, w.provider.clientID,
            ])
        }
        let again = try refreshed("--json")
        #expect(again.status == 0, "\(again.errorText)")
        let renewed = try #require(
            try? JSONSerialization.jsonObject(with: Data(again.text.utf8)) as? [String: Any], "\(again.text)")
        #expect(
            (renewed["access_token"] as? String).map { !$0.isEmpty && $0 != json["access_token"] as? String } == true)
        #expect(renewed["expires_at"] as? Int != nil)
        // Plain output says what it got and hides the tokens.
        let plain = try refreshed("")
        #expect(
            plain.status == 0 && plain.text.contains("Got a new access token") && plain.text.contains("expires at"),
            "\(plain.text)")
        #expect(!plain.text.contains(renewed["access_token"] as! String) && plain.errorText.contains("--show-tokens"))
        // A refresh token the provider never issued: its refusal, exit 2.
        let forged = try w.h.desktop.run([
            "/bin/sh", "-c", "echo forged | \"$1\" token refresh --issuer \"$2\" --client-id \"$3\" --refresh-token -",
            "sh", Paths.linkctl, w.provider.issuer, w.provider.clientID,
        ])
        #expect(
            forged.status == 2 && forged.errorText.contains("TokenExchangeFailed"),
            "\(forged.status) \(forged.errorText)")
    }

    @Test(
        "an app: BeginSession({issuer, client_id, redirect_uri, scope, exchange: true}) and one Wait give the tokens, the session goes exchanging → completed"
    )
    func app() throws {
        let w = try OpenIDWorld()
        try w.h.app.subscribe("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        let (path, url) = try w.h.app.begin([
            ("issuer", .string(w.provider.issuer)), ("client_id", .string(w.provider.clientID)),
            ("redirect_uri", .string("com.example.app:/callback")), ("scope", .string("openid email")),
            ("exchange", .boolean(true)), ("open_browser", .boolean(false)),
        ])
        #expect(url.hasPrefix(w.provider.authorizationEndpoint + "?"), "the authorization endpoint came from discovery")
        let location = try w.signIn(url)
        #expect(try w.h.desktop.xdgOpen(location).status == 0)
        let result = try w.h.app.wait(path, timeoutMilliseconds: 20_000)
        #expect(result["access_token"] != nil && result["id_token"] != nil && result["code"] == nil, "\(result)")
        #expect(result["sub"] != nil && result["claims"]?.contains("\"nonce\"") == true)
        let statuses = [
            w.h.app.nextSignal(member: "PropertiesChanged")?.statusChange,
            w.h.app.nextSignal(member: "PropertiesChanged")?.statusChange,
        ]
        #expect(statuses == ["exchanging", "completed"])
        _ = try w.h.app.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
    }

    @Test(
        "bad inputs: exchange without issuer, with code_challenge or authorize_url; an issuer with no metadata; a code the provider refuses. Each gets its own error; no session is left behind or changed; the daemon stays up"
    )
    func badInputs() throws {
        let w = try OpenIDWorld()
        let base: [(String, DBusValue)] = [
            ("client_id", .string(w.provider.clientID)), ("redirect_uri", .string("com.example.app:/callback")),
            ("scope", .string("openid")), ("open_browser", .boolean(false)),
        ]
        var message = try w.h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try w.h.app.begin(
                base + [
                    ("authorization_endpoint", .string(w.provider.authorizationEndpoint)), ("exchange", .boolean(true)),
                ])
        }
        #expect(message.contains("exchange needs the issuer"))
        message = try w.h.expectRefusal(errorPrefix + "InvalidArgument") {
            _ = try w.h.app.begin(
                base + [
                    ("issuer", .string(w.provider.issuer)), ("exchange", .boolean(true)),
                    ("code_challenge", .string(String(repeating: "A", count: 43))),
                ])
        }
        #expect(message.contains("you hold the PKCE verifier"))
        message = try w.h.expectRefusal(errorPrefix + "DiscoveryFailed") {
            _ = try w.h.app.begin(
                base + [("issuer", .string(w.provider.issuer + "/nowhere")), ("exchange", .boolean(true))])
        }
        #expect(message.contains("answered HTTP 404"), "\(message)")
        message = try w.h.expectRefusal(errorPrefix + "DiscoveryFailed") {
            _ = try w.h.app.begin(
                base + [("issuer", .string("http://127.0.0.1:1/closed")), ("exchange", .boolean(true))])
        }
        #expect(message.contains("could not fetch the metadata"), "\(message)")
        #expect(try w.h.app.allSessions().isEmpty)

        // A code Glewlwyd never issued: its token endpoint refuses it (403 invalid_code in 2.7).
        let (path, url) = try w.h.app.begin(
            base + [("issuer", .string(w.provider.issuer)), ("exchange", .boolean(true))])
        #expect(
            try w.h.app.route(
                "com.example.app:/callback?code=forged&state=\(Harness.state(of: url))&iss=\(PercentEncodingForTests.encode(w.provider.issuer))"
            ) == "completed")
        // The session moves (exchanging → failed) while this Wait is parked: no snapshot check here.
        let refused = dbusError { _ = try w.h.app.wait(path, timeoutMilliseconds: 20_000) }
        #expect(
            refused?.name == errorPrefix + "TokenExchangeFailed"
                && refused?.message.contains("token endpoint refused") == true, "\(String(describing: refused))")
        #expect(try w.h.app.status(path) == "failed")
        #expect(w.h.daemonAnswers)
    }

    @Test(
        "RFC 9207 with discovery: a callback with another iss fails without an exchange; a missing iss fails when required (Glewlwyd 2.7 sends iss but does not advertise it, so only require_iss makes it required)"
    )
    func issuerChecked() throws {
        let w = try OpenIDWorld()
        let options: [(String, DBusValue)] = [
            ("issuer", .string(w.provider.issuer)), ("client_id", .string(w.provider.clientID)),
            ("redirect_uri", .string("com.example.app:/callback")), ("scope", .string("openid")),
            ("exchange", .boolean(true)), ("open_browser", .boolean(false)),
        ]
        for (iss, requireIss, outcome) in [
            ("https://evil.example.com", false, "failed"), (nil, true, "failed"), (nil, false, "completed"),
        ] {
            let (path, url) = try w.h.app.begin(options + (requireIss ? [("require_iss", .boolean(true))] : []))
            let code = try #require(try w.signIn(url).queryValue("code"))
            let link =
                "com.example.app:/callback?code=\(code)&state=\(Harness.state(of: url))"
                + (iss.map { "&iss=" + PercentEncodingForTests.encode($0) } ?? "")
            #expect(try w.h.app.route(link) == outcome)
            let e = dbusError { _ = try w.h.app.wait(path, timeoutMilliseconds: 20_000) }
            if outcome == "failed" {
                #expect(e?.name == errorPrefix + "IssuerMismatch", "\(String(describing: e))")
            } else {
                #expect(e == nil, "\(String(describing: e))")
            }
        }
    }
}

/// A harness with a private Glewlwyd whose client may redirect to `com.example.app:/callback`.
struct OpenIDWorld {
    let h: Harness
    let provider: Glewlwyd

    static let unavailable: String? =
        ["/usr/bin/glewlwyd", "/usr/bin/python3"].allSatisfy(FileSystem.isExecutable)
        ? nil
        : "OpenID Connect suite skipped: glewlwyd not installed (scripts/setup --test installs it)"

    init(redirectURIs: [String] = ["com.example.app:/callback"]) throws {
        h = try Harness(browser: false)
        provider = try Glewlwyd(desktop: h.desktop, redirectURIs: redirectURIs)
    }

    /// Signs in at Glewlwyd as its user would, for the authorize URL; the redirect's Location.
    func signIn(_ url: String) throws -> String {
        let r = try h.desktop.run([
            "/usr/bin/python3", Paths.fixtures + "/scripted_login.py", "--provider", provider.infoPath, "--url", url,
            "--no-follow",
        ])
        guard let json = try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any],
            let location = json["location"] as? String
        else {
            throw SystemError("scripted login failed: \(r.text) \(r.errorText)", code: EINVAL)
        }
        return location
    }

    /// `linkctl login … --no-browser` in the background; this signs in at the URL it prints and
    /// hands the redirect to xdg-open, as the browser would. Its exit status, stdout and stderr.
    func linkctlLogin(_ args: [String]) throws -> (Int32, String, String) {
        let out = h.desktop.root + "/login.out"
        let err = h.desktop.root + "/login.err"
        let pid = try Subprocess.spawn(
            [Paths.linkctl, "login", "--no-browser"] + args, environment: h.desktop.environment,
            stdout: .file(out), stderr: .file(err))
        var url: String?
        _ = eventually(timeoutMilliseconds: 20_000) {
            url = ((try? FileSystem.readText(err)) ?? "").split(separator: "\n").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.first { $0.hasPrefix("http") }
            return url != nil
        }
        guard let url else {
            kill(pid, SIGTERM)
            throw SystemError("linkctl login printed no URL: \((try? FileSystem.readText(err)) ?? "")", code: ETIMEDOUT)
        }
        let location = try signIn(url)
        let opened = try h.desktop.xdgOpen(location)
        guard opened.status == 0 else { throw SystemError("xdg-open failed: \(opened.errorText)", code: EINVAL) }
        let status = Subprocess.wait(pid, timeoutMilliseconds: 30_000)
        return (status, (try? FileSystem.readText(out)) ?? "", (try? FileSystem.readText(err)) ?? "")
    }
}

/// Percent-encoding of a query value, for the tests' own links.
enum PercentEncodingForTests {
    static func encode(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? s
    }
}
