import DBusKit
import LinkRouterAPI
import LinkRouterCore
import OpenSSLKit
import SystemKit
import Testing

/// The core issue end to end: an app begins a login, the browser is opened,
/// the callback the browser hands to `xdg-open` reaches that app and no other.
@Suite("Custom-scheme login, end to end", .serialized)
struct CustomSchemeLoginTests {
    @Test("linkctl login gets its code and a verifier whose S256 is the challenge, through the real xdg-open")
    func linkctlLogin() throws {
        let h = try Harness()
        let outPath = h.desktop.root + "/login.out"
        let pid = try Subprocess.spawn(
            [
                Paths.linkctl, "login", "--authorization-endpoint", "https://auth.example.com/authorize", "--client-id",
                "demo",
                "--redirect-uri", "com.example.app:/callback", "--scope", "openid profile", "--json",
            ],
            environment: h.desktop.environment, stdout: .file(outPath), stderr: .file(outPath + ".err"))
        let opened = h.desktop.waitForBrowser(Harness.browser)
        let url = try #require(opened.first)
        #expect(h.desktop.invocations(Harness.browser).first?.first == "--new-window")
        #expect(
            url.hasPrefix(
                "https://auth.example.com/authorize?response_type=code&client_id=demo&redirect_uri=com.example.app%3A%2Fcallback&scope=openid%20profile&state="
            ))
        #expect(url.queryValue("code_challenge_method") == "S256")
        let state = Harness.state(of: url)
        #expect(state.count >= 43)

        let r = try h.desktop.xdgOpen("com.example.app:/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=\(state)")
        #expect(r.status == 0, "\(r.errorText)")
        #expect(Subprocess.wait(pid, timeoutMilliseconds: 60_000) == 0)
        let json = try FileSystem.readText(outPath)
        let verifier = try #require(json.jsonField("code_verifier"))
        #expect(json.jsonField("code") == "SplxlOBeZQQYbYS6WxSbIA")
        #expect(json.jsonField("state") == state)
        #expect(json.jsonField("redirect_uri") == "com.example.app:/callback")
        #expect(verifier.count >= 43)
        #expect(try SecretFactory.challenge(for: verifier) == url.queryValue("code_challenge"))
        #expect(json.jsonField("nonce") == url.queryValue("nonce"))
    }

    @Test("an app over D-Bus, the callback through gio open")
    func gioOpen() throws {
        let h = try Harness()
        let (path, url) = try h.app.begin([
            ("authorization_endpoint", .string("https://auth.example.com/authorize")), ("client_id", .string("demo")),
            ("redirect_uri", .string("com.example.app:/callback")), ("browser", .string(Harness.browser)),
        ])
        #expect(h.desktop.waitForBrowser(Harness.browser) == [url])
        #expect(try h.app.status(path) == "pending")
        let r = try h.desktop.gioOpen("com.example.app:/callback?code=abc&state=\(Harness.state(of: url))")
        #expect(r.status == 0, "\(r.errorText)")
        let result = try h.app.wait(path)
        #expect(result["code"] == "abc")
        #expect(result["callback_uri"] == "com.example.app:/callback?code=abc&state=\(Harness.state(of: url))")
        #expect(try h.app.status(path) == "completed")
    }

    @Test("the callback reaches the app that began the login and no other")
    func onlyTheOwner() throws {
        let h = try Harness()
        let other = try h.client()
        let (a, urlA) = try h.app.beginQuiet()
        let (b, _) = try other.beginQuiet()
        _ = try h.desktop.xdgOpen("com.example.app:/callback?code=for-a&state=\(Harness.state(of: urlA))")
        #expect(try h.app.wait(a)["code"] == "for-a")
        #expect(errorName { _ = try other.wait(a) } == "org.linkrouter.LinkRouter1.Error.AccessDenied")
        #expect(try other.status(b) == "pending")
        #expect(
            errorName { _ = try other.wait(b, timeoutMilliseconds: 200) } == "org.linkrouter.LinkRouter1.Error.Timeout")
    }

    @Test("linkctl begin in one process, linkctl wait (with the claim token) in another")
    func beginThenWait() throws {
        let h = try Harness()
        let begun = try h.desktop.linkctl(
            "begin", "--authorization-endpoint", "https://auth.example.com/authorize", "--client-id", "demo",
            "--redirect-uri", "com.example.app:/callback", "--no-browser", "--json")
        #expect(begun.status == 0, "\(begun.errorText)")
        let path = try #require(begun.text.jsonField("session"))
        let url = try #require(begun.text.jsonField("authorize_url"))
        let token = try #require(begun.text.jsonField("claim_token"))
        #expect(try h.app.counter("browsers_started") == 0)
        // The session outlived the process that began it (parked for Claim).
        #expect(try h.app.status(path) == "pending")
        // Without the token another process is refused.
        let refused = try h.desktop.linkctl("wait", path, "--timeout", "100")
        #expect(refused.status == 1)
        #expect(refused.errorText.contains("(AccessDenied)"))
        let wrong = try h.desktop.linkctl("wait", path, "--claim-token", String(repeating: "x", count: 43))
        #expect(wrong.status == 1 && wrong.errorText.contains("(AccessDenied)"))
        _ = try h.desktop.xdgOpen("com.example.app:/callback?code=later&state=\(Harness.state(of: url))")
        let waited = try h.desktop.linkctl("wait", String(path.split(separator: "/").last!), "--claim-token", token)
        #expect(waited.status == 0, "\(waited.errorText)")
        #expect(waited.text.contains("code           later") || waited.text.contains("code  later"))
        // Delivered once: a second wait is told so (and the code is gone).
        let again = try h.desktop.linkctl("wait", path, "--claim-token", token)
        #expect(again.status == 2 && again.errorText.contains("(AlreadyDelivered)"))
    }

    @Test("a provider error fails the session; Wait answers AuthorizationFailed with the provider's words")
    func providerError() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let r = try h.desktop.xdgOpen(
            "com.example.app:/callback?error=access_denied&error_description=The+user+said+no&state=\(Harness.state(of: url))"
        )
        #expect(r.status == 0)
        let e = try #require(dbusError { _ = try h.app.wait(path) })
        #expect(e.name == "org.linkrouter.LinkRouter1.Error.AuthorizationFailed")
        #expect(e.message.contains("access_denied") && e.message.contains("The user said no"))
        #expect(try h.app.status(path) == "failed")
    }

    @Test("many apps wait at once; each gets its own result")
    func manyWaiters() throws {
        let h = try Harness()
        let clients = try (0..<5).map { _ in try h.client() }
        let sessions = try clients.map { try $0.beginQuiet() }
        for (i, s) in sessions.enumerated().reversed() {
            #expect(
                try h.app.route("com.example.app:/callback?code=c\(i)&state=\(Harness.state(of: s.url))") == "completed"
            )
        }
        for (i, c) in clients.enumerated() { #expect(try c.wait(sessions[i].path)["code"] == "c\(i)") }
    }
}

extension String {
    /// A string field of a flat JSON object (tests only; linkctl writes no nesting).
    func jsonField(_ name: String) -> String? {
        guard let r = firstRange(of: "\"\(name)\":\"") else { return nil }
        var out = ""
        var escaped = false
        for c in self[r.upperBound...] {
            if escaped {
                out.append(c)
                escaped = false
                continue
            }
            if c == "\\" {
                escaped = true
                continue
            }
            if c == "\"" { return out }
            out.append(c)
        }
        return nil
    }
}
