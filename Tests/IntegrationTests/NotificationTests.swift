import DBusKit
import Foundation
import SecretServiceTesting
import SystemKit
import Testing

/// A face when one is needed (issue 34): a desktop notification when an
/// account needs a sign-in, on a real notification server (Debian's dunst
/// under Xvfb), its action invoked as a person would (`dunstctl action`).
@Suite("Sign-in notices on a real notification server")
struct NotificationTests {
    @Test(
        "a notice outlives nothing: SIGTERM withdraws the sign-in notice (no click can land on a daemon that is gone), the next daemon posts its own, and a click on that one opens the sign-in"
    )
    func noticeAcrossARestart() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        let keyring = try GnomeKeyring(desktop: desktop)
        let provider = try Glewlwyd(desktop: desktop, redirectURIs: [AccountTests.redirect])
        let browser = "org.example.Browser.desktop"
        try desktop.addBrowser(browser)
        let dunst = try Dunst(desktop: desktop)
        var daemon = try DaemonProcess(desktop: desktop)
        let added = try desktop.linkctl(
            "account", "add", "work", "--issuer", provider.issuer, "--client-id", provider.clientID,
            "--redirect-uri", AccountTests.redirect)
        #expect(added.status == 0, "\(added.errorText)")
        #expect(try desktop.linkctl("token", "work").status == 4)
        #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 1 })
        // doctor finds what the account needs: the keyring unlocked, a notification server; then the keyring locked.
        let doctor = try desktop.linkctl("doctor")
        #expect(
            doctor.text.contains(
                "ok    keyring: the Secret Service's default collection is there and unlocked, for work")
                && doctor.text.contains("ok    notification server:"), "\(doctor.text)")
        try keyring.lockDefault()
        let locked = try desktop.linkctl("doctor")
        #expect(
            locked.status == 1
                && locked.text.contains("FAIL  keyring: the Secret Service's default collection is locked"),
            "\(locked.text)")
        try keyring.unlockDefault()
        #expect(daemon.stop() == 0)
        #expect(
            eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") + dunst.count("waiting") == 0 },
            "the stopped daemon's notice is still up")
        daemon = try DaemonProcess(desktop: desktop)
        #expect(
            eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 1 }, "not posted again: \(daemon.log)"
        )
        try dunst.click()
        let url = try #require(desktop.waitForBrowser(browser, timeoutMilliseconds: 20_000).last)
        #expect(url.hasPrefix(provider.authorizationEndpoint), "\(url)")
        #expect(daemon.isRunning)
        _ = (bus, keyring)
    }

    @Test(
        "five calls for a signed-out account bring one notification; clicking it opens the account's sign-in in the browser and the token is there after; a notice is withdrawn when its account signs in another way"
    )
    func signInFromTheNotice() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        let keyring = try GnomeKeyring(desktop: desktop)
        let provider = try Glewlwyd(desktop: desktop, redirectURIs: [AccountTests.redirect])
        let browser = "org.example.Browser.desktop"
        try desktop.addBrowser(browser)
        let dunst = try Dunst(desktop: desktop)
        let daemon = try DaemonProcess(desktop: desktop)
        for name in ["work", "other"] {
            let added = try desktop.linkctl(
                "account", "add", name, "--issuer", provider.issuer, "--client-id", provider.clientID,
                "--redirect-uri", AccountTests.redirect)
            #expect(added.status == 0, "\(added.errorText)")
        }
        // Five callers (git, a script, a sync) find it signed out: each hears so at once, the person is told once.
        for _ in 0..<5 {
            let r = try desktop.linkctl("token", "work")
            #expect(r.status == 4 && r.errorText.contains("linkctl login work"), "\(r.status) \(r.errorText)")
        }
        // The notifications sent before the replies above reach dunst before dunstctl's question does.
        #expect(dunst.count("displayed") + dunst.count("waiting") == 1)

        // A click: the sign-in opens in the person's browser, at the provider, for this account's client.
        try dunst.click()
        let url = try #require(desktop.waitForBrowser(browser, timeoutMilliseconds: 20_000).last)
        let parts = try #require(URLComponents(string: url))
        #expect(
            url.hasPrefix(provider.authorizationEndpoint)
                && parts.queryItems?.contains { $0.name == "client_id" && $0.value == provider.clientID } == true,
            "\(url)")
        let signin = try desktop.run([
            "/usr/bin/python3", provider.signinScript, "--provider", provider.infoPath, "--url", url,
        ])
        #expect(signin.status == 0, "\(signin.errorText)")
        #expect(try desktop.linkctl("open", signin.text.trimmingCharacters(in: .whitespacesAndNewlines)).status == 0)
        #expect(eventually(timeoutMilliseconds: 20_000) { (try? desktop.linkctl("token", "work"))?.status == 0 })
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? keyring.items(account: "work")) ?? (0, 0) == (1, 0) })

        // Another account's notice goes once it is signed in from the terminal.
        #expect(try desktop.linkctl("token", "other").status == 4)
        #expect(
            eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 1 },
            "\(dunst.count("displayed")) \(dunst.count("waiting")) \(dunst.count("history")) \(daemon.log)")
        #expect(try desktop.signIn("other", at: provider).status == 0)
        #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 0 }, "not withdrawn")
        #expect(daemon.isRunning)
        _ = bus
    }

    @Test(
        "a click when no browser can start tells the person what to do (linkctl login NAME) in a notification: with no browser set, and with one whose program is gone; nothing opens, and linkctl login then prints the address and signs in"
    )
    func clickWithoutABrowser() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        let keyring = try GnomeKeyring(desktop: desktop)
        let provider = try Glewlwyd(desktop: desktop, redirectURIs: [AccountTests.redirect])
        let dunst = try Dunst(desktop: desktop)
        let daemon = try DaemonProcess(desktop: desktop)
        let watcher = try BusClient(bus.address)
        try watcher.subscribe(
            "type='method_call',interface='org.freedesktop.Notifications',member='Notify',eavesdrop='true'")
        /// The summary and body of the next notification the daemon posts.
        func posted() throws -> (summary: String, body: String) {
            let m = try #require(watcher.nextMessage(.methodCall, member: "Notify", timeoutMilliseconds: 20_000))
            let args = try m.arguments()
            return (args[3].stringValue ?? "", args[4].stringValue ?? "")
        }
        let browser = "org.example.Browser.desktop"
        for (name, setBrowser) in [("work", false), ("other", true)] {
            let added = try desktop.linkctl(
                "account", "add", name, "--issuer", provider.issuer, "--client-id", provider.clientID,
                "--redirect-uri", AccountTests.redirect)
            #expect(added.status == 0, "\(added.errorText)")
            // The second time, a default browser whose program has gone since (uninstalled under the desktop).
            if setBrowser { try FileSystem.remove(try desktop.addBrowser(browser)) }
            #expect(try desktop.linkctl("token", name).status == 4)
            #expect(try posted().summary == "Sign in to \(name)")
            #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 1 })
            try dunst.click()
            let told = try posted()
            #expect(told.summary == "Could not sign in to \(name)", "\(told) \(daemon.log)")
            #expect(
                told.body.contains("Run linkctl login \(name) in a terminal")
                    && told.body.contains(setBrowser ? browser : "no default web browser is set"), "\(told.body)")
            #expect(desktop.invocations(browser).isEmpty)
            #expect(daemon.isRunning)
            try dunst.dismissAll()
            #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 0 })
        }
        // What it advises works: linkctl login says the browser failed, prints the address, and signs in through it.
        let login = try desktop.signIn(
            "other", at: provider, command: [Paths.linkctl, "login", "other", "--timeout", "60000"])
        #expect(
            login.status == 0 && login.errorText.contains("the browser could not be started"), "\(login.errorText)")
        #expect(try desktop.linkctl("token", "other").status == 0)
        _ = keyring
    }

    @Test(
        "a locked keyring that keeps a caller's tokens from it: one notification to unlock it; unlocked, it is withdrawn; clicked, the daemon asks the Secret Service to unlock (its own prompt)"
    )
    func unlockFromTheNotice() throws {
        let w = try AccountTests.World()
        let dunst = try Dunst(desktop: w.desktop)
        #expect(try w.add("work").status == 0)
        let signed = try w.login("work")
        #expect(signed.status == 0 && !signed.errorText.contains("memory only"), "\(signed.errorText)")
        // A daemon that starts while the keyring is locked cannot read the account's tokens.
        func lockedAtStart() throws {
            try w.keyring.lockDefault()
            try w.restart()
            for _ in 0..<3 {
                let r = try w.desktop.linkctl("token", "work")
                #expect(r.status == 5 && r.errorText.contains("locked"), "\(r.status) \(r.errorText)")
            }
        }
        try lockedAtStart()
        #expect(
            eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 1 },
            "\(dunst.count("displayed")) \(w.daemon.log)")
        // The person unlocks it elsewhere (their keyring manager): the notice goes, and the token is there.
        try w.keyring.unlockDefault()
        #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 0 }, "not withdrawn")
        // What it said (dunst's history keeps what was closed).
        #expect(dunst.history() == ["Unlock the keyring for work"], "\(dunst.history())")
        #expect(try w.desktop.linkctl("token", "work").status == 0)

        // Locked again, and this time clicked: the daemon asks the Secret Service to unlock its default collection
        // and to show its prompt (gnome-keyring's is gcr's dialog, which the person answers; none runs here).
        try lockedAtStart()
        #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 1 })
        let watcher = try BusClient(w.bus.address)
        for member in ["Unlock", "Prompt"] {
            try watcher.subscribe("type='method_call',member='\(member)',eavesdrop='true'")
        }
        try dunst.click()
        let unlock = try #require(watcher.nextMessage(.methodCall, member: "Unlock", timeoutMilliseconds: 10_000))
        #expect(unlock.interface == "org.freedesktop.Secret.Service" && unlock.destination == "org.freedesktop.secrets")
        let args = try unlock.arguments()
        #expect("\(args)".contains("/org/freedesktop/secrets/collection/"), "\(args)")
        let prompt = try #require(watcher.nextMessage(.methodCall, member: "Prompt", timeoutMilliseconds: 10_000))
        #expect(prompt.interface == "org.freedesktop.Secret.Prompt" && prompt.sender == unlock.sender)
        #expect(eventually(timeoutMilliseconds: 10_000) { dunst.count("displayed") == 0 })
        #expect(w.daemon.isRunning)
        // The password reaches the keyring from the person, never through linkrouter; then the token is there.
        try w.keyring.unlockDefault()
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.desktop.linkctl("token", "work"))?.status == 0 })
    }

    @Test(
        "AccountChanged: a program that has called the daemon hears its account sign in (with the new expiry) and sign out (with why), unicast to it, never a token in it"
    )
    func accountChanged() throws {
        let w = try AccountTests.World()
        #expect(try w.add("work").status == 0)
        let listener = try BusClient(w.bus.address)
        try listener.subscribe(
            "type='signal',interface='org.linkrouter.LinkRouter1.Manager',member='AccountChanged'")
        // A call makes it known (identified as a program of the host's, to whom the user's accounts belong).
        _ = try listener.call("ListAccounts")
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        func news(_ m: DBusMessage?) throws -> (String, [String: DBusValue]) {
            let m = try #require(m)
            #expect(m.destination == listener.name, "unicast, not broadcast")
            let args = try m.arguments()
            guard args.count == 2, case .string(let account) = args[0] else { throw SystemError("shape: \(args)") }
            var state: [String: DBusValue] = [:]
            for (k, v) in args[1].stringKeyedEntries ?? [] { state[k] = v.variantValue }
            // Nothing in it is a token.
            #expect(!"\(args)".contains(token) && !token.isEmpty)
            return (account, state)
        }
        let (account, signedIn) = try news(listener.nextSignal(member: "AccountChanged", timeoutMilliseconds: 10_000))
        #expect(account == "work" && signedIn["change"] == .string("signed_in"), "\(signedIn)")
        if case .int64(let at)? = signedIn["expires_at"] {
            #expect(at > Clock.unixSeconds())
        } else {
            Issue.record("no expires_at: \(signedIn)")
        }
        #expect(
            signedIn["issuer"] == .string(w.provider.issuer)
                && Set(signedIn.keys) == ["change", "issuer", "expires_at"])
        #expect(try w.desktop.linkctl("logout", "work").status == 0)
        let (_, signedOut) = try news(listener.nextSignal(member: "AccountChanged", timeoutMilliseconds: 10_000))
        #expect(signedOut["change"] == .string("signed_out") && signedOut["why"] != nil, "\(signedOut)")
    }
}
