import Foundation
import Glibc
import SystemKit
import Testing

/// Signing out at the provider (OpenID Connect RP-Initiated Logout) with
/// django-oauth-toolkit: `linkctl logout NAME --at-provider` forgets the
/// tokens here, opens the provider's end-session page, and waits until the
/// provider sends the browser back to the account's redirect with the state.
@Suite("Signing out at the provider")
struct ProviderLogoutTests {
    /// `linkctl logout NAME --at-provider --no-browser` started, and the end-session URL it printed.
    static func start(_ desktop: TestDesktop, _ name: String) throws -> (pid: Int32, err: String, url: URLComponents) {
        let err = desktop.root + "/logout-\(name).err"
        let pid = try Subprocess.spawn(
            [Paths.linkctl, "logout", name, "--at-provider", "--no-browser", "--timeout", "60000"],
            environment: desktop.environment, stdout: .null,
            stderr: .file(err))
        var url: URLComponents?
        _ = eventually(timeoutMilliseconds: 20_000) {
            let line = ((try? FileSystem.readText(err)) ?? "").split(separator: "\n").first { $0.hasPrefix("  http") }
            url = line.flatMap { URLComponents(string: $0.trimmingCharacters(in: .whitespaces)) }
            return url != nil
        }
        guard let url else {
            Subprocess.stop(pid, name: "linkctl logout")
            throw SystemError("linkctl logout printed no URL: \((try? FileSystem.readText(err)) ?? "")", code: EPROTO)
        }
        return (pid, err, url)
    }

    @Test(
        "at django-oauth-toolkit: the tokens are forgotten here at once; the end-session URL names the ID token, the client, a state and the account's redirect; a way back with another state is refused and changes nothing; the real one, routed by state, ends the sign-out; again, it is a replay",
        .enabled(if: DjangoOAuthToolkit.unavailable == nil, "\(DjangoOAuthToolkit.unavailable ?? "")"))
    func signedOutAtProvider() throws {
        let w = try SecondProviderTests.World()
        #expect(try w.add("dot", redirect: SecondProviderTests.scheme).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        let idToken = try w.desktop.linkctl("token", "dot", "--id-token").text.trimmingCharacters(in: .newlines)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "dot")) ?? (0, 0) == (1, 0) })

        let logout = try Self.start(w.desktop, "dot")
        let query = Dictionary(
            (logout.url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(logout.url.path == "/o/logout/", "\(logout.url)")
        #expect(query["id_token_hint"] == idToken && query["client_id"] == w.provider.clientID, "\(query)")
        #expect(
            query["post_logout_redirect_uri"] == SecondProviderTests.scheme && (query["state"]?.count ?? 0) >= 43,
            "\(query)")
        // Signed out here before the provider was asked anything.
        #expect(try w.desktop.linkctl("token", "dot").status == 4)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "dot")) ?? (1, 0) == (0, 0) })

        let back = try w.desktop.run([
            "/usr/bin/python3", w.provider.signinScript, "--provider", w.provider.infoPath, "--url",
            try #require(logout.url.string),
        ])
        let way = back.text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            back.status == 0 && way.hasPrefix(SecondProviderTests.scheme + "?state="), "\(back.text) \(back.errorText)")
        let forged = try w.desktop.linkctl(
            "open", SecondProviderTests.scheme + "?state=" + String(repeating: "A", count: 43))
        #expect(forged.status != 0 && forged.errorText.contains("UnknownState"), "\(forged.status) \(forged.errorText)")
        // The sign-out's session is still pending (the forged state reached nothing).
        let pending =
            try JSONSerialization.jsonObject(with: Data(try w.desktop.linkctl("sessions", "--json").text.utf8))
            as? [[String: Any]]
        #expect(pending?.filter { $0["status"] as? String == "pending" }.count == 1, "\(String(describing: pending))")
        // A sign-out is a kind of login of its own, and says so on the bus.
        let client = try BusClient(w.bus.address)
        let signOut = try #require(try client.allSessions().first { $0.status == "pending" })
        #expect(try client.sessionProperty("Flow", of: signOut.path) == "signout")

        #expect(try w.desktop.linkctl("open", way).status == 0)
        #expect(
            Subprocess.wait(logout.pid, timeoutMilliseconds: 30_000) == 0,
            "\((try? FileSystem.readText(logout.err)) ?? "")")
        #expect(((try? FileSystem.readText(logout.err)) ?? "").contains("Signed out of dot at its provider too"))
        let replay = try w.desktop.linkctl("open", way)
        #expect(replay.status != 0 && replay.errorText.contains("Replayed"), "\(replay.errorText)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "with a browser: the end-session URL goes to it, not to the terminal (it names the ID token); the way back ends the sign-out",
        .enabled(if: DjangoOAuthToolkit.unavailable == nil, "\(DjangoOAuthToolkit.unavailable ?? "")"))
    func inTheBrowser() throws {
        let w = try SecondProviderTests.World()
        _ = try w.desktop.addBrowser(Harness.browser)
        #expect(try w.add("dot", redirect: SecondProviderTests.scheme).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        let err = w.desktop.root + "/logout-browser.err"
        let pid = try Subprocess.spawn(
            [Paths.linkctl, "logout", "dot", "--at-provider", "--timeout", "60000"], environment: w.desktop.environment,
            stdout: .null, stderr: .file(err))
        let opened = w.desktop.waitForBrowser(Harness.browser, timeoutMilliseconds: 20_000)
        let url = try #require(opened.first, "the browser was not opened")
        #expect(url.contains("/o/logout/?id_token_hint="), "\(url)")
        let back = try w.desktop.run([
            "/usr/bin/python3", w.provider.signinScript, "--provider", w.provider.infoPath, "--url", url,
        ])
        #expect(back.status == 0, "\(back.errorText)")
        #expect(try w.desktop.linkctl("open", back.text.trimmingCharacters(in: .whitespacesAndNewlines)).status == 0)
        #expect(Subprocess.wait(pid, timeoutMilliseconds: 30_000) == 0)
        let said = (try? FileSystem.readText(err)) ?? ""
        #expect(
            said.contains("The browser was opened") && !said.contains("id_token_hint")
                && said.contains("at its provider too"), "\(said)")
    }

    @Test(
        "a loopback account: the way back is the daemon's own listener, on the port it bound for the sign-out",
        .enabled(if: DjangoOAuthToolkit.unavailable == nil, "\(DjangoOAuthToolkit.unavailable ?? "")"))
    func loopback() throws {
        let w = try SecondProviderTests.World()
        #expect(try w.add("dot", redirect: SecondProviderTests.loopback).status == 0)
        #expect(try w.desktop.signIn("dot", at: w.provider).status == 0)
        let logout = try Self.start(w.desktop, "dot")
        let target = try #require(logout.url.queryItems?.first { $0.name == "post_logout_redirect_uri" }?.value)
        #expect(
            target.hasPrefix("http://127.0.0.1:") && target.hasSuffix("/callback")
                && target != SecondProviderTests.loopback, "\(target)")
        let back = try w.desktop.run([
            "/usr/bin/python3", w.provider.signinScript, "--provider", w.provider.infoPath, "--url",
            try #require(logout.url.string),
        ])
        let way = back.text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(back.status == 0 && way.hasPrefix(target + "?state="), "\(back.text) \(back.errorText)")
        _ = try w.desktop.run(["curl", "-s", "-o", "/dev/null", "--max-time", "10", way])
        #expect(
            Subprocess.wait(logout.pid, timeoutMilliseconds: 30_000) == 0,
            "\((try? FileSystem.readText(logout.err)) ?? "")")
    }

    @Test(
        "a provider whose metadata lists no end_session_endpoint (Glewlwyd without session management): signed out here all the same, and the refusal says the provider offers no sign-out; nothing is opened"
    )
    func noEndSession() throws {
        let w = try AccountTests.World()
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        let r = try w.desktop.linkctl("logout", "work", "--at-provider", "--no-browser")
        #expect(
            r.status == 1 && r.errorText.contains("offers no sign-out") && r.errorText.contains("InvalidArgument"),
            "\(r.status) \(r.errorText)")
        #expect(try w.desktop.linkctl("token", "work").status == 4)
        #expect((try? w.keyring.items(account: "work")) ?? (1, 0) == (0, 0))
        let sessions = try w.desktop.linkctl("sessions", "--json")
        let listed = try #require(
            try JSONSerialization.jsonObject(with: Data(sessions.text.utf8)) as? [[String: Any]], "\(sessions.text)")
        #expect(
            !listed.isEmpty && listed.allSatisfy { $0["status"] as? String == "completed" },
            "only the login's session, no sign-out's: \(sessions.text)")
        let stray = try w.desktop.linkctl("logout", "work", "--no-browser")
        #expect(stray.status == 64, "--no-browser without --at-provider is a usage error")
        #expect(w.daemon.isRunning)
    }
}
