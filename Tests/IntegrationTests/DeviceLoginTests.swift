import Foundation
import Glibc
import SystemKit
import Testing

/// Signing in with no browser here (RFC 8628), against Glewlwyd's device
/// grant: `linkctl login NAME --device` prints a code and a page, a person
/// approves it on their phone (the test, with the user's cookies, as
/// `glewlwyd_signin.py --user-code`), the daemon polls and keeps the tokens.
@Suite("Device logins at Glewlwyd (RFC 8628)")
struct DeviceLoginEndToEndTests {
    /// `linkctl login NAME --device` (or `arguments`) started, with what it printed once the code was shown.
    struct Started {
        let pid: Int32
        let out: String
        let err: String
        var errorText: String { (try? FileSystem.readText(err)) ?? "" }
    }

    static func start(
        _ desktop: TestDesktop, _ arguments: [String] = ["login", "work", "--device", "--timeout", "60000"],
        environment: [String]? = nil
    ) throws -> Started {
        let out = desktop.root + "/device.out"
        let err = desktop.root + "/device.err"
        let pid = try Subprocess.spawn(
            [Paths.linkctl] + arguments, environment: environment ?? desktop.environment, stdout: .file(out),
            stderr: .file(err))
        return Started(pid: pid, out: out, err: err)
    }

    /// The page and the code the login printed, once it has.
    static func shown(_ s: Started) -> (page: String, code: String)? {
        var found: (String, String)?
        _ = eventually(timeoutMilliseconds: 20_000) {
            let lines = s.errorText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let p = lines.firstIndex(where: { $0.hasPrefix("To sign in, open this page") }),
                let c = lines.firstIndex(of: "and enter the code:"),
                p + 1 < lines.count, c + 1 < lines.count
            else { return false }
            found = (lines[p + 1], lines[c + 1])
            return true
        }
        return found
    }

    /// The phone: the provider's sign-in script approves `code` at `page` with the user's cookies.
    static func approve(_ desktop: TestDesktop, at provider: some OpenIDTestProvider, page: String, code: String) throws
        -> Subprocess.Outcome
    {
        try desktop.run([
            "/usr/bin/python3", provider.signinScript, "--provider", provider.infoPath, "--url", page, "--user-code",
            code,
        ])
    }

    @Test(
        "linkctl login NAME --device: a code and a page on stderr, the page with the code as a QR code a phone reads; approved on the phone, the tokens kept in the keyring and handed out"
    )
    func approved() throws {
        let w = try AccountTests.World(deviceSeconds: 600)
        #expect(try w.add("work").status == 0)
        let login = try Self.start(w.desktop, ["login", "work", "--device", "--qr", "--timeout", "60000"])
        let shown = try #require(Self.shown(login), "no code shown: \(login.errorText)")
        #expect(shown.page.hasPrefix(w.provider.issuer + "/device") && !shown.code.isEmpty, "\(shown)")
        let complete = login.errorText.split(separator: "\n").first { $0.hasPrefix("(or open ") }.map {
            String($0.dropFirst(9).prefix { $0 != "," })
        }
        #expect(complete?.contains(shown.code) == true, "Glewlwyd gives verification_uri_complete: \(login.errorText)")
        if QRReader.unavailable == nil {
            #expect(eventually { login.errorText.contains("█") })
            #expect(
                try QRReader.read(login.errorText, in: w.desktop.root) == complete,
                "the QR code is the page with the code in it")
        }
        let approval = try Self.approve(w.desktop, at: w.provider, page: shown.page, code: shown.code)
        #expect(approval.status == 0 && approval.text == "deviceComplete\n", "\(approval.errorText)")
        #expect(Subprocess.wait(login.pid, timeoutMilliseconds: 60_000) == 0, "\(login.errorText)")
        #expect(((try? FileSystem.readText(login.out)) ?? "").contains("Signed in"), "\(login.errorText)")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        let token = try w.desktop.linkctl("token", "work")
        #expect(token.status == 0 && !token.text.isEmpty, "\(token.errorText)")
        #expect(try w.accounts().first?["signed_in"] as? Bool == true)
    }

    @Test(
        "the daemon stops while the person is on the phone: the session and its device code were stored; the login's Wait, asked again, brings a new daemon up by D-Bus activation, which polls again; the login completes"
    )
    func restarted() throws {
        let w = try AccountTests.World(installed: true, deviceSeconds: 600)
        #expect(try w.add("work").status == 0)
        let login = try Self.start(w.desktop)
        let shown = try #require(Self.shown(login), "no code shown: \(login.errorText)")
        #expect(w.daemon.stop() == 0)
        let approval = try Self.approve(w.desktop, at: w.provider, page: shown.page, code: shown.code)
        #expect(approval.status == 0, "\(approval.errorText)")
        #expect(
            Subprocess.wait(login.pid, timeoutMilliseconds: 60_000) == 0,
            "\(login.errorText)\n\(w.daemon.log.suffix(1500))")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        #expect(try w.desktop.linkctl("token", "work").status == 0)
    }

    @Test("a code nobody enters expires: the login ends with exit 2 saying so, nothing is stored, the daemon stays up")
    func expires() throws {
        let w = try AccountTests.World(deviceSeconds: 3)
        #expect(try w.add("work").status == 0)
        let login = try Self.start(w.desktop)
        #expect(Self.shown(login) != nil, "\(login.errorText)")
        #expect(Subprocess.wait(login.pid, timeoutMilliseconds: 60_000) == 2, "\(login.errorText)")
        #expect(login.errorText.contains("expire"), "\(login.errorText)")
        #expect(try w.keyring.items(account: "work") == (unlocked: 0, locked: 0))
        #expect(try w.desktop.linkctl("token", "work").status == 4)
        #expect(w.daemon.isRunning)
    }

    @Test(
        "slow_down, again and again: each poll waits 5 s longer than the one before, never sooner; then access_denied ends it, saying the other device refused"
    )
    func slowedThenDenied() throws {
        let w = try AccountTests.World(counted: true, deviceSeconds: 600)
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        try proxy.set("device-slow-down")
        let login = try Self.start(w.desktop)
        #expect(Self.shown(login) != nil, "\(login.errorText)")
        func polls() -> [Double] {
            proxy.requests().filter { ($0["grant_type"] as? String)?.hasSuffix("device_code") == true }.compactMap {
                $0["time"] as? Double
            }
        }
        // Glewlwyd asks for a poll a second; slowed down, the next comes 6 s later; slowed again, 11 s later: that one
        // is refused.
        #expect(eventually(timeoutMilliseconds: 30_000) { polls().count >= 2 }, "\(polls()) \(login.errorText)")
        try proxy.set("device-denied")
        #expect(Subprocess.wait(login.pid, timeoutMilliseconds: 60_000) == 2, "\(login.errorText)")
        #expect(
            login.errorText.contains("refused on the other device") && login.errorText.contains("AuthorizationFailed"),
            "\(login.errorText)")
        let times = polls()
        #expect(times.count == 3, "three polls, the last refused: \(times)")
        if times.count == 3 {
            #expect(times[1] - times[0] >= 6 - 0.2 && times[2] - times[1] >= 11 - 0.2, "polls at \(times)")
        }
        #expect(try w.keyring.items(account: "work") == (unlocked: 0, locked: 0))
        #expect(w.daemon.isRunning)
    }

    @Test(
        "linkctl token NAME --interactive over SSH (no display): the device grant, as linkctl login does, never a browser that cannot start; approved on the phone, stdout holds the token alone; at a provider with no device grant, the URL to open elsewhere"
    )
    func interactiveOverSSH() throws {
        let w = try AccountTests.World(deviceSeconds: 600)
        #expect(try w.add("work").status == 0)
        let ssh =
            w.desktop.environment.filter { !$0.hasPrefix("DISPLAY=") && !$0.hasPrefix("WAYLAND_DISPLAY=") }
            + ["SSH_CONNECTION=192.0.2.1 50000 192.0.2.2 22"]
        let token = try Self.start(w.desktop, ["token", "work", "--interactive"], environment: ssh)
        let shown = try #require(Self.shown(token), "no code shown: \(token.errorText)")
        #expect(!token.errorText.contains("browser was opened"), "\(token.errorText)")
        let approval = try Self.approve(w.desktop, at: w.provider, page: shown.page, code: shown.code)
        #expect(approval.status == 0, "\(approval.errorText)")
        #expect(Subprocess.wait(token.pid, timeoutMilliseconds: 60_000) == 0, "\(token.errorText)")
        let printed = ((try? FileSystem.readText(token.out)) ?? "").trimmingCharacters(in: .newlines)
        let kept = try w.desktop.linkctl("token", "work")
        #expect(
            !printed.isEmpty && !printed.contains("\n") && printed == kept.text.trimmingCharacters(in: .newlines),
            "stdout: \(printed)")

        // No device grant there: the URL to open elsewhere, not a silent wait on a browser.
        let bare = try AccountTests.World()
        #expect(try bare.add("work").status == 0)
        let noGrant = bare.desktop.environment.filter { !$0.hasPrefix("DISPLAY=") } + ["SSH_TTY=/dev/pts/9"]
        let url = try Self.start(bare.desktop, ["token", "work", "--interactive"], environment: noGrant)
        #expect(
            eventually(timeoutMilliseconds: 20_000) {
                url.errorText.contains(
                    "Open this URL in your browser to sign in to work:\n  "
                        + bare.provider.authorizationEndpoint)
            }, "\(url.errorText)")
        Subprocess.stop(url.pid, name: "linkctl token --interactive")
        #expect(w.daemon.isRunning && bare.daemon.isRunning)
    }

    @Test(
        "no device grant at the provider: --device is refused saying so; with no display and no flag, the URL to open elsewhere is printed instead"
    )
    func notOffered() throws {
        let w = try AccountTests.World()
        #expect(try w.add("work").status == 0)
        let refused = try w.desktop.linkctl("login", "work", "--device")
        #expect(
            refused.status == 1 && refused.errorText.contains("offers no device login")
                && refused.errorText.contains("--no-browser"), "\(refused.errorText)")
        // A terminal with no display: the device grant is tried, and the hand-off follows.
        let headless = w.desktop.environment.filter { !$0.hasPrefix("DISPLAY=") }
        let login = try Self.start(w.desktop, ["login", "work", "--timeout", "1500"], environment: headless)
        #expect(Subprocess.wait(login.pid, timeoutMilliseconds: 30_000) == 3, "\(login.errorText)")
        #expect(
            login.errorText.contains(
                "Open this URL in your browser to sign in:\n  " + w.provider.authorizationEndpoint),
            "\(login.errorText)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a device login over D-Bus: options of a browser login are refused by name; only the session's owner may wait on it"
    )
    func overDBus() throws {
        let w = try AccountTests.World(deviceSeconds: 600)
        func call(_ method: String, _ args: [String]) throws -> Subprocess.Outcome {
            try w.desktop.run(
                [
                    "gdbus", "call", "--session", "--dest", "org.linkrouter.LinkRouter1", "--object-path",
                    "/org/linkrouter/LinkRouter1", "--method",
                    "org.linkrouter.LinkRouter1." + method,
                ] + args)
        }
        let issuer = w.provider.issuer
        let client = w.provider.clientID
        let bad = try call(
            "BeginDeviceLogin",
            [
                "{'issuer': <'\(issuer)'>, 'client_id': <'\(client)'>, 'authorize_url': <'https://a.example/auth?state=x'>}"
            ])
        #expect(
            bad.status != 0 && bad.errorText.contains("authorize_url has no meaning in a device login"),
            "\(bad.errorText)")
        let begun = try call(
            "BeginDeviceLogin", ["{'issuer': <'\(issuer)'>, 'client_id': <'\(client)'>, 'scope': <'openid'>}"])
        #expect(
            begun.status == 0 && begun.text.contains("'user_code': <'")
                && begun.text.contains("'verification_uri': <'"), "\(begun.text) \(begun.errorText)")
        // gdbus left the bus: its session was the only thing waiting for it, and another connection may not Wait on it.
        guard
            let path = begun.text.split(separator: "'").first(where: {
                $0.hasPrefix("/org/linkrouter/LinkRouter1/sessions/")
            })
        else {
            Issue.record("no session path in \(begun.text)")
            return
        }
        let other = try w.desktop.run(
            [
                "gdbus", "call", "--session", "--dest", "org.linkrouter.LinkRouter1", "--object-path", String(path),
                "--method", "org.linkrouter.LinkRouter1.Session.Wait", "1000",
            ])
        #expect(other.status != 0, "\(other.text)")
        #expect(w.daemon.isRunning)
    }
}
