import DBusKit
import DesktopIntegration
import Foundation
import LinkRouterAPI
import LinkRouterFiles
import SystemKit
import Testing

/// Deep links (issue 14): every link of an app's scheme, or under the https
/// paths its desktop entry claims, reaches the app (running, started by D-Bus
/// activation, or through its Exec), while login callbacks keep going to the
/// session that waits for them. Real xdg-open, a real GApplication, a real bus.
@Suite("Deep links")
struct DeepLinkTests {
    /// A desktop whose bus can activate apps, with the app installed before the scheme is registered.
    func world(app: (TestDesktop, PrivateBus) throws -> TestApp) throws -> (Harness, TestApp) {
        let h = try Harness(register: false, activation: true)
        let a = try app(h.desktop, h.bus)
        let r = try h.desktop.linkctl("register", "com.example.app", "--json")
        #expect(r.status == 0, "\(r.errorText)")
        #expect(r.text.jsonField("app") == a.id, "register records the app that declares the scheme")
        return (h, a)
    }

    @Test(
        "a GApplication that is not running: ten links through the real xdg-open arrive once each, in order, in one instance started by D-Bus activation"
    )
    func activation() throws {
        let (h, app) = try world { try TestApp.gapplication($0, bus: $1) }
        let links = (0..<10).map { "com.example.app:/items/\($0)?ref=mail%20\($0)" }
        for link in links {
            let r = try h.desktop.xdgOpen(link)
            #expect(r.status == 0 && r.text == "delivered\n", "\(r.text) \(r.errorText)")
        }
        #expect(app.waitForOpens(10) == links)
        let pids = Set(app.lines().compactMap { $0["pid"] as? Int })
        #expect(pids.count == 1, "one instance: \(pids)")
        #expect(app.lines().filter { $0["started"] as? Bool == true }.count == 1)
        #expect(try h.app.counter("apps_delivered") == 10)
        #expect(try h.app.counter("browsers_started") == 0)
    }

    @Test(
        "the click's activation token reaches the app: platform_data for D-Bus, the environment for Exec, under both names when it came under one"
    )
    func activationToken() throws {
        let (h, app) = try world { try TestApp.gapplication($0, bus: $1) }
        h.desktop.extraEnvironment["XDG_ACTIVATION_TOKEN"] = "token-from-the-compositor"
        h.desktop.extraEnvironment["DESKTOP_STARTUP_ID"] = "startup-1"
        #expect(try h.desktop.xdgOpen("com.example.app:/focus").status == 0)
        app.waitForOpens(1)
        let line = try #require(app.lines().first { $0["uri"] != nil })
        #expect(line["activation_token"] as? String == "token-from-the-compositor")
        #expect(line["desktop_startup_id"] as? String == "startup-1")

        let (h2, exec) = try world { d, _ in try TestApp.execApp(d) }
        h2.desktop.extraEnvironment["XDG_ACTIVATION_TOKEN"] = "token-2"
        let r = try h2.desktop.xdgOpen("com.example.app:/items/9")
        #expect(r.status == 0 && r.text == "launched\n", "\(r.text) \(r.errorText)")
        #expect(exec.waitForOpens(1) == ["com.example.app:/items/9"])
        let e = try #require(exec.lines().first)
        #expect(e["activation_token"] as? String == "token-2")
        // Given under one name, handed on under both: GTK 4.8 and GLib 2.74 read only DESKTOP_STARTUP_ID (issue 45).
        #expect(e["desktop_startup_id"] as? String == "token-2")
        #expect(
            e["forwarded"] == nil || e["forwarded"] is NSNull, "an app is not marked as a browser linkrouter started")
    }

    @Test(
        "a token no compositor makes (over 1 KiB, a space, a control character) never costs the click: the link is routed and delivered, the app gets no token, and the daemon's log says what was dropped"
    )
    func unusableToken() throws {
        let (h, exec) = try world { d, _ in try TestApp.execApp(d) }
        for (n, bad) in [String(repeating: "t", count: 2000), "two words", "bell\u{7}"].enumerated() {
            h.desktop.extraEnvironment["DESKTOP_STARTUP_ID"] = bad
            let link = "com.example.app:/items/\(n)"
            let r = try h.desktop.linkctl("open", link)
            #expect(r.status == 0 && r.text == "launched\n", "\(r.status) \(r.text) \(r.errorText)")
            #expect(exec.waitForOpens(n + 1).last == link)
            let line = try #require(exec.lines().last)
            #expect(line["desktop_startup_id"] == nil || line["desktop_startup_id"] is NSNull, "\(line)")
        }
        #expect(
            eventually { h.daemon.log.contains("dropped desktop-startup-id, which is no token") },
            "\(h.daemon.log.suffix(600))")
        #expect(!h.daemon.log.contains(String(repeating: "t", count: 100)), "a token is never logged")
    }

    @Test(
        "doctor says what a window's coming to the front depends on: the session type, and linkrouter's entries letting a click's token through (StartupNotify=true; an entry written before issue 45 fails, with its fix)"
    )
    func doctorActivation() throws {
        let h = try Harness()
        h.desktop.extraEnvironment["WAYLAND_DISPLAY"] = "wayland-test"
        let ok = try h.desktop.linkctl("doctor")
        #expect(ok.text.contains("ok    session: Wayland (WAYLAND_DISPLAY=wayland-test)"), "\(ok.text)")
        #expect(
            ok.text.contains("ok    activation path: linkrouter's entries ask for startup notification"), "\(ok.text)")
        let entry = h.desktop.applications + "/linkrouter-com.example.app.desktop"
        let text = try FileSystem.readText(entry)
        #expect(text.contains("StartupNotify=true\n"))
        try FileSystem.writeAtomically(
            entry, text: text.replacingOccurrences(of: "StartupNotify=true", with: "StartupNotify=false"),
            permissions: 0o644)
        let stale = try h.desktop.linkctl("doctor")
        #expect(stale.status == 1, "\(stale.text)")
        #expect(
            stale.text.contains(
                "FAIL  activation path: linkrouter-com.example.app.desktop say StartupNotify=false: GIO (GNOME, Firefox) then hands linkctl open no activation token"
            ), "\(stale.text)")
        #expect(stale.text.contains("fix: linkctl install (and linkctl register SCHEME for each scheme) again"))
        #expect(try h.desktop.linkctl("register", "com.example.app").status == 0)
        let again = try h.desktop.linkctl("doctor")
        #expect(!again.text.contains("FAIL  activation path"), "registering again writes the entry anew: \(again.text)")
    }

    @Test("a login callback and deep links on one scheme at once: each reaches its own, neither sees the other's URL")
    func callbackAndDeepLink() throws {
        let (h, app) = try world { try TestApp.gapplication($0, bus: $1) }
        let (path, url) = try h.app.beginQuiet()
        let callback = "com.example.app:/callback?code=only-for-the-owner&state=\(Harness.state(of: url))"
        #expect(try h.desktop.xdgOpen("com.example.app:/items/1").text == "delivered\n")
        #expect(try h.desktop.xdgOpen(callback).text == "completed\n")
        #expect(try h.desktop.xdgOpen("com.example.app:/items/2").text == "delivered\n")
        let result = try h.app.wait(path)
        #expect(result["code"] == "only-for-the-owner" && result["callback_uri"] == callback)
        #expect(app.waitForOpens(2) == ["com.example.app:/items/1", "com.example.app:/items/2"])
        // A login link never becomes a deep link: a replay, an unknown state, the callback path without a state.
        for login in [
            callback, "com.example.app:/callback?code=x&state=forged-state-00000000", "com.example.app:/callback",
            "com.example.app:/elsewhere?state=s&code=c",
        ] {
            let r = try h.desktop.linkctl("open", "--", login)
            #expect(r.status == 1, "\(login): \(r.text)")
        }
        #expect(try h.app.barrier() == ())
        #expect(app.opened().count == 2)
        #expect(h.daemonAnswers)
    }

    @Test(
        "https claims with install --claim-https: a claimed path goes to the app, the rest to the browser byte for byte"
    )
    func httpsClaims() throws {
        let (h, app) = try world { d, _ in try TestApp.execApp(d, claims: ["https://example.com/app/"]) }
        try h.desktop.addBrowser(Harness.browser)
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        #expect(try h.desktop.xdgOpen("https://example.com/app/items/7?x=1#top").text == "launched\n")
        #expect(app.waitForOpens(1) == ["https://example.com/app/items/7?x=1#top"])
        for web in ["https://example.com/other", "https://example.com/app", "https://example.com/app/../admin"] {
            let r = try h.desktop.xdgOpen(web)
            #expect(r.status == 0 && r.text == "passthrough\n", "\(web): \(r.text) \(r.errorText)")
        }
        #expect(h.desktop.waitForBrowser(Harness.browser, count: 3).count == 3)
        // The same rule, without starting a browser for each (the daemon starts at most 10 programs a second).
        for web in [
            "https://example.com/application/x", "https://example.com/app/%2e%2e/admin",
            "https://EXAMPLE.com:8443/app/x", "http://example.com/app/x",
        ] {
            #expect(
                try h.desktop.linkctl("explain", web, "--json").text.jsonField("outcome") == "passthrough", "\(web)")
        }
        #expect(app.opened().count == 1)
        // gio (GLib's launcher, as Firefox uses) goes the same way.
        #expect(try h.desktop.gioOpen("https://example.com/app/gio").status == 0)
        #expect(app.waitForOpens(2).last == "https://example.com/app/gio")
        // A host left to the browser, and an app that is gone: their links go to the browser.
        #expect(try h.desktop.linkctl("install", "--claim-https", "--leave-to-browser", "example.com").status == 0)
        #expect(try h.desktop.xdgOpen("https://example.com/app/left").text == "passthrough\n")
        try FileSystem.remove(h.desktop.applications + "/" + app.id)
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        let gone = try h.desktop.xdgOpen("https://example.com/app/gone")
        #expect(gone.text == "passthrough\n", "\(gone.status) \(gone.text) \(gone.errorText)")
        #expect(app.opened().count == 2)
    }

    @Test("the longest claim wins; two apps on one prefix: the first found gets it, and doctor says so")
    func claimConflicts() throws {
        let h = try Harness(register: false)
        try h.desktop.addBrowser(Harness.browser)
        let whole = try TestApp.execApp(
            h.desktop, id: "org.example.Whole", schemes: [], claims: ["https://example.com/"])
        let deep = try TestApp.execApp(
            h.desktop, id: "org.example.Deep", schemes: [], claims: ["https://example.com/app/"])
        let rival = try TestApp.execApp(
            h.desktop, id: "org.example.Rival", schemes: [], claims: ["https://example.com/app/"])
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        #expect(try h.desktop.xdgOpen("https://example.com/app/x").text == "launched\n")
        #expect(try h.desktop.xdgOpen("https://example.com/y").text == "launched\n")
        #expect(deep.waitForOpens(1) == ["https://example.com/app/x"])
        #expect(whole.waitForOpens(1) == ["https://example.com/y"])
        #expect(rival.opened().isEmpty)
        let explained = try h.desktop.linkctl("explain", "https://example.com/app/x", "--json")
        #expect(explained.text.jsonField("outcome") == "launched")
        #expect(explained.text.jsonField("reason")?.contains("org.example.Deep.desktop") == true)
        let doctor = try h.desktop.linkctl("doctor")
        #expect(
            doctor.text.contains(
                "claimed by org.example.Deep.desktop and org.example.Rival.desktop; org.example.Deep.desktop gets its links"
            ), "\(doctor.text)")
    }

    @Test(
        "refusals: a scheme no app takes, a link of a scheme linkrouter does not route; the daemon up, nothing delivered"
    )
    func refusals() throws {
        let h = try Harness()
        let e = try h.expectRefusal(errorPrefix + "NoApp") { _ = try h.app.route("com.example.app:/items/1") }
        #expect(
            e
                == "no app takes com.example.app: links: register the app that should with `linkctl register com.example.app --app APP.desktop` (its desktop entry declares MimeType=x-scheme-handler/com.example.app;)"
        )
        let r = try h.desktop.xdgOpen("com.example.app:/items/1")
        #expect(r.status != 0 && r.errorText.contains("(NoApp)"), "\(r.errorText)")
        try h.expectRefusal(errorPrefix + "NotACallback") { _ = try h.app.route("mailto:someone@example.com") }
        try h.expectRefusal(errorPrefix + "InvalidArgument") { _ = try h.app.route("com.example.app:/items/%zz") }
        #expect(try h.app.counter("apps_delivered") + h.app.counter("apps_launched") == 0)
    }

    @Test("an app that cannot take the link: its name and the reason, and where the link went")
    func appFailures() throws {
        // D-Bus activatable, but its service cannot start: a custom-scheme link is an error naming the app.
        let (h, app) = try world { d, bus in
            let a = try TestApp.gapplication(d, bus: bus)
            try FileSystem.writeAtomically(
                bus.serviceDirectory + "/org.example.LinkApp.service",
                text: "[D-BUS Service]\nName=org.example.LinkApp\nExec=/bin/false\n", permissions: 0o644)
            return a
        }
        let r = try h.desktop.linkctl("open", "--", "com.example.app:/items/1")
        #expect(r.status == 1)
        #expect(
            r.errorText.contains("org.example.LinkApp.desktop could not open the link")
                && r.errorText.contains("(AppFailed)"), "\(r.errorText)")
        #expect(app.opened().isEmpty && h.daemonAnswers)
        // The same app claiming https: the link is not lost, the browser gets it.
        try FileSystem.writeAtomically(
            h.desktop.applications + "/org.example.LinkApp.desktop",
            text: """
                [Desktop Entry]
                Type=Application
                Name=Link test app
                Exec=/usr/bin/python3 \(Paths.fixtures)/gapp.py org.example.LinkApp \(app.record) %U
                DBusActivatable=true
                X-LinkRouter-Claims=https://example.com/app/;

                """, permissions: 0o644)
        try h.desktop.addBrowser(Harness.browser)
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        // What the click hears says what happened: the browser took it, not the app.
        let web = try h.desktop.xdgOpen("https://example.com/app/x")
        #expect(web.status == 0 && web.text == "passthrough\n", "\(web.text) \(web.errorText)")
        #expect(try h.app.counter("browsers_started") == 1, "started before the click was answered")
        #expect(h.desktop.waitForBrowser(Harness.browser) == ["https://example.com/app/x"])
        #expect(app.opened().isEmpty)
    }

    @Test("delivered means delivered: a claimed https link answers only once the app's Open returned")
    func deliveredMeansDelivered() throws {
        let h = try Harness(register: false, activation: true)
        try h.desktop.addBrowser(Harness.browser)
        let app = try TestApp.gapplication(h.desktop, bus: h.bus, schemes: [], claims: ["https://example.com/app/"])
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        let r = try h.desktop.xdgOpen("https://example.com/app/orders/7")
        #expect(r.status == 0 && r.text == "delivered\n", "\(r.text) \(r.errorText)")
        // No waiting: the app had it when the click was answered.
        #expect(app.opened() == ["https://example.com/app/orders/7"])
        #expect(try h.app.counter("apps_delivered") == 1)
        #expect(try h.app.counter("browsers_started") == 0)
    }

    @Test(
        "register --app: a missing binary, odd field codes, linkrouter itself and a forwarder are refused with the reason",
        arguments: [
            ("Exec=/nonexistent/bin/app %u", "runs /nonexistent/bin/app, which is not installed"),
            ("Exec=/bin/cat %f", "has Exec field code %f, which does not take a URL"),
            ("Exec=/bin/cat %d %u", "has Exec field code %d"),
            ("Exec=/usr/bin/xdg-open %u", "runs xdg-open, which hands links on"),
            ("Exec=/bin/cat %u\nHidden=true", "is Hidden"),
            ("Exec=/bin/cat %u\nTryExec=/nonexistent/app", "names TryExec=/nonexistent/app, which is not installed"),
        ])
    func badApps(_ exec: String, _ reason: String) throws {
        let h = try Harness(register: false)
        try FileSystem.writeAtomically(
            h.desktop.applications + "/org.example.Bad.desktop",
            text: "[Desktop Entry]\nType=Application\nName=Bad\n\(exec)\nMimeType=x-scheme-handler/com.example.app;\n",
            permissions: 0o644)
        let r = try h.desktop.linkctl("register", "com.example.app", "--app", "org.example.Bad.desktop")
        #expect(r.status == 1)
        #expect(r.errorText.contains(reason), "\(r.errorText)")
        #expect(
            !FileSystem.exists(h.desktop.applications + "/linkrouter-com.example.app.desktop"), "nothing registered")
    }

    @Test("register records the app that handled the scheme; uninstall makes it the default again")
    func registerAndUninstall() throws {
        let h = try Harness(register: false)
        let app = try TestApp.execApp(h.desktop)
        try h.desktop.setDefault(app.id, for: ["x-scheme-handler/com.example.app"])
        let r = try h.desktop.linkctl("register", "com.example.app")
        #expect(r.status == 0 && r.text.contains("app           \(app.id)"), "\(r.text)")
        let record = try #require(InstallRecord.read(h.desktop.stateHome + "/linkrouter/install.conf"))
        #expect(record.apps["com.example.app"] == app.id)
        #expect(
            try h.desktop.run(["xdg-mime", "query", "default", "x-scheme-handler/com.example.app"]).text
                == "linkrouter-com.example.app.desktop\n")
        #expect(try h.desktop.linkctl("uninstall").status == 0)
        #expect(
            try h.desktop.run(["xdg-mime", "query", "default", "x-scheme-handler/com.example.app"]).text == app.id
                + "\n")
        // Two apps declare the scheme and none is the default: linkctl asks which.
        _ = try TestApp.execApp(h.desktop, id: "org.example.Other")
        try FileSystem.writeAtomically(h.desktop.mimeappsList, text: "", permissions: 0o644)
        let ambiguous = try h.desktop.linkctl("register", "com.example.app")
        #expect(
            ambiguous.status == 64 && ambiguous.errorText.contains("several apps declare com.example.app"),
            "\(ambiguous.errorText)")
    }
}
