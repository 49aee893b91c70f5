import Foundation
import Glibc
import JOSE
import LinkRouterCore
import OpenSSLKit
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

    /// linkrouter's sign-out page fetched as a browser would (`curl`): its status, its Content-Security-Policy, its
    /// form's method, action and fields, and the end-session URL the form's GET makes.
    static func page(_ desktop: TestDesktop, _ url: String, as user: [String] = []) throws -> (
        status: Int, policy: String, method: String, action: String, fields: [String: String], endSession: String,
        script: String
    ) {
        let r = try desktop.run(user + ["curl", "-s", "-i", "--max-time", "10", url])
        let text = r.text
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let policy =
            text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-security-policy:") }.map {
                String($0.dropFirst("content-security-policy:".count)).trimmingCharacters(in: .whitespaces)
            } ?? ""
        func unescaped(_ s: Substring) -> String {
            s.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        func attribute(_ name: String, in tag: Substring) -> String? {
            guard let r = tag.range(of: name + "=\"") else { return nil }
            return unescaped(tag[r.upperBound...].prefix { $0 != "\"" })
        }
        var method = ""
        var action = ""
        var fields: [String: String] = [:]
        for tag in text.split(separator: "<").dropFirst() {
            if tag.hasPrefix("form ") {
                method = attribute("method", in: tag) ?? ""
                action = attribute("action", in: tag) ?? ""
            } else if tag.hasPrefix("input "), let name = attribute("name", in: tag) {
                fields[name] = attribute("value", in: tag) ?? ""
            }
        }
        var end = URLComponents(string: action)
        end?.queryItems = fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let script =
            text.components(separatedBy: "<script>").dropFirst().first?.components(separatedBy: "</script>")
            .first ?? ""
        return (status, policy, method, action, fields, end?.string ?? "", script)
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
        // What linkctl printed (and a browser's command line would carry) is the daemon's page, naming no token.
        let pageURL = try #require(logout.url.string)
        #expect(
            logout.url.host == "127.0.0.1" && logout.url.path.hasPrefix("/linkrouter/sign-out/")
                && logout.url.query == nil && !pageURL.contains(idToken), "\(pageURL)")
        // Another user of the machine, who could read that URL off a command line, gets nothing (and spends nothing).
        if getuid() == 0 {
            let other = try Self.page(
                w.desktop, pageURL, as: ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
            #expect(other.status == 403 && other.fields.isEmpty, "\(other.status)")
        }
        let page = try Self.page(w.desktop, pageURL)
        #expect(page.status == 200 && page.method == "get", "\(page.status) \(page.method)")
        // Its one script runs because the policy names its hash (CSP's base64, not base64url), and nothing else can.
        var hash = Base64URL.encode(try SHA256.hash(page.script)).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while hash.count % 4 != 0 { hash += "=" }
        #expect(
            !page.script.isEmpty && page.policy.contains("script-src 'sha256-\(hash)'")
                && page.policy.contains("default-src 'none'"), "\(page.policy) \(page.script)")
        #expect(URLComponents(string: page.action)?.path == "/o/logout/", "\(page.action)")
        #expect(
            page.fields["id_token_hint"] == idToken && page.fields["client_id"] == w.provider.clientID, "\(page.fields)"
        )
        #expect(
            page.fields["post_logout_redirect_uri"] == SecondProviderTests.scheme
                && (page.fields["state"]?.count ?? 0) >= 43,
            "\(page.fields)")
        // Served once.
        #expect(try Self.page(w.desktop, pageURL).status == 404)
        // Signed out here before the provider was asked anything.
        #expect(try w.desktop.linkctl("token", "dot").status == 4)
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "dot")) ?? (1, 0) == (0, 0) })

        let back = try w.desktop.run([
            "/usr/bin/python3", w.provider.signinScript, "--provider", w.provider.infoPath, "--url", page.endSession,
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
        "with a browser: the sign-out page goes to it (its command line names no token), nothing to the terminal; the way back ends the sign-out",
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
        // The browser's command line names the daemon's page, not the ID token; the fixture follows its form.
        #expect(url.contains("/linkrouter/sign-out/") && !url.contains("id_token_hint"), "\(url)")
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
        // One listener serves the page and the way back, on the port it bound.
        let page = try Self.page(w.desktop, try #require(logout.url.string))
        #expect(page.status == 200 && logout.url.port != nil)
        let target = try #require(page.fields["post_logout_redirect_uri"])
        #expect(
            target.hasPrefix("http://127.0.0.1:") && target.hasSuffix("/callback")
                && target != SecondProviderTests.loopback, "\(target)")
        #expect(target == "http://127.0.0.1:\(logout.url.port ?? 0)/callback", "\(target)")
        let back = try w.desktop.run([
            "/usr/bin/python3", w.provider.signinScript, "--provider", w.provider.infoPath, "--url", page.endSession,
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
        // A plain logout there never sends the person to --at-provider, which this provider cannot do.
        #expect(try w.login("work").status == 0)
        let plain = try w.desktop.linkctl("logout", "work")
        #expect(
            plain.status == 0 && plain.errorText.contains("no sign-out page either")
                && !plain.errorText.contains("--at-provider"), "\(plain.errorText)")
        #expect(w.daemon.isRunning)
    }
}
