import Foundation
import Glibc
import LinkRouterCore
import SystemKit
import Testing

/// Every hand-off of a login comes to the front on a Wayland desktop (issue
/// 45): a real compositor (headless sway), real GTK 4 apps whose windows take
/// focus only with an xdg-activation token, the person's key presses from a
/// virtual keyboard. Each check has its control: the same hand-off without
/// linkrouter's token leaves the window behind, so a pass is the token's doing.
@Suite(
    "Wayland focus: every hand-off of a login comes to the front", .serialized,
    .enabled(if: Compositor.unavailable == nil, "\(Compositor.unavailable ?? "")"))
struct FocusTests {
    /// A desktop on the compositor, its bus and daemon (started after the compositor, so the browsers and apps it
    /// starts reach it), the app's scheme registered, and a GTK 4 stand-in browser as the default for web links.
    final class World {
        let desktop: TestDesktop
        let bus: PrivateBus
        let compositor: any WaylandCompositor
        let browser: FocusApp
        let daemon: DaemonProcess

        /// On headless sway, or with `mutter` on GNOME's compositor.
        init(mutter: Bool = false) throws {
            desktop = try TestDesktop()
            // The compositor first: the bus starts D-Bus-activated apps with the environment it was started with.
            compositor = mutter ? try Mutter(desktop: desktop) : try Compositor(desktop: desktop)
            bus = try PrivateBus(desktop: desktop, activation: true)
            browser = FocusApp(desktop, appID: "org.example.FocusBrowser")
            try browser.install(mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"])
            try desktop.setDefault(
                browser.appID + ".desktop", for: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"])
            daemon = try DaemonProcess(desktop: desktop)
            let r = try desktop.linkctl("register", "com.example.app")
            guard r.status == 0 else { throw SystemError("linkctl register: \(r.errorText)", code: EIO) }
        }

        /// Every GTK app of this world, so none outlives it (the ones the daemon started are no child of the test's).
        private var apps: [FocusApp] = []

        /// A GTK app of this world (stopped with it).
        func app(_ appID: String) -> FocusApp {
            let app = FocusApp(desktop, appID: appID)
            apps.append(app)
            return app
        }

        deinit {
            for app in apps + [browser] { app.kill() }
        }

        /// The person, with `app` at the front, does what `action` arms for the next key press (a click, a command).
        func act(in app: FocusApp, _ action: String, _ argument: String) throws {
            try compositor.focus(app.appID)
            try app.arm(action, argument)
            try compositor.press()
        }

        /// The focus after a hand-off from `from` to `to`: with the click's token `to` comes to the front; without it
        /// (the control) `from` keeps the focus.
        func expectFocus(
            after from: FocusApp, handedTo to: FocusApp, token: Bool, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            if token {
                #expect(
                    eventually(timeoutMilliseconds: 10_000) { compositor.focused() == to.appID },
                    "\(to.appID) stayed behind: \(why(from, to))", sourceLocation: sourceLocation)
            } else {
                #expect(
                    compositor.focused() == from.appID, "\(to.appID) took the focus with no token: \(why(from, to))",
                    sourceLocation: sourceLocation)
            }
        }

        /// Why a focus check failed: what the compositor did with activation requests, and each app's log.
        func why(_ apps: FocusApp...) -> String {
            let activation = compositor.log.split(separator: "\n").filter { $0.contains("activation") }.suffix(6)
            return "focused \(compositor.focused() ?? "nothing"); "
                + apps.map { "\($0.appID): \($0.events().suffix(6))" }.joined(separator: "; ")
                + "; compositor: " + activation.joined(separator: " | ")
        }
    }

    static let login =
        #"'{"authorization_endpoint": "https://id.example.com/authorize", "client_id": "app", "redirect_uri": "com.example.app:/callback"}'"#

    @Test(
        "a login's browser and its return trip: BeginSession with the focused app's token brings the browser it opens to the front, and the callback clicked in the browser (xdg-open's token) brings the app back with Wait's activation_token; without the tokens (the controls) neither window moves"
    )
    func loginRoundTrip() throws {
        let w = try World()
        let app = w.app("org.example.FocusApp")
        let appPid = try app.start(w.compositor)
        defer { Subprocess.stop(appPid, name: "the focus app") }
        let browser = w.browser

        // The control: the app begins with no token; the browser opens behind it.
        try w.act(in: app, "begin-plain", Self.login)
        let plain = try #require(app.event("begun"), "\(w.why(app, browser))")
        #expect(browser.event("shown")?["with_token"] as? Bool == false, "\(w.why(app, browser))")
        w.expectFocus(after: app, handedTo: browser, token: false)
        // The control's way back: the person clicks the callback in the browser, with no token on the way.
        let first = try #require((plain["url"] as? String)?.queryValue("state"))
        try w.act(
            in: browser, "run-plain",
            "['\(Paths.linkctl)', 'open', 'com.example.app:/callback?code=one&state=\(first)']")
        let back = try #require(app.event("presented"), "\(w.why(app, browser))")
        #expect(back["with_token"] as? Bool == false)
        #expect(
            (app.event("waited")?["result"] as? [String: Any])?["activation_token"] == nil, "no token, none handed on")
        w.expectFocus(after: browser, handedTo: app, token: false)

        // With the app's token: the (running) browser comes to the front with the new login.
        try w.act(in: app, "begin", Self.login)
        let begun = try #require(app.event("begun", 2), "\(w.why(app, browser))")
        let url = try #require(begun["url"] as? String)
        #expect(browser.event("open", 2).flatMap { ($0["uris"] as? [String])?.first } == url, "\(w.why(browser))")
        w.expectFocus(after: app, handedTo: browser, token: true)
        // The callback clicked in the focused browser: xdg-open's token goes through linkctl open to the daemon,
        // and Wait hands it to the app, which comes back to the front with it.
        let state = try #require(url.queryValue("state"))
        try browser.arm("run", "['\(Paths.linkctl)', 'open', 'com.example.app:/callback?code=two&state=\(state)']")
        try w.compositor.press()
        let waited = try #require(app.event("waited", 2)?["result"] as? [String: Any], "\(w.why(app, browser))")
        #expect(waited["code"] as? String == "two" && (waited["activation_token"] as? String)?.isEmpty == false)
        #expect(app.event("presented", 2)?["with_token"] as? Bool == true)
        w.expectFocus(after: browser, handedTo: app, token: true)
    }

    @Test(
        "a deep link clicked in the focused app brings its app to the front, whether it was started by D-Bus activation, was running, or is reached through its Exec (a second instance handing the link to the first); the same clicks without a token (the controls) leave it behind"
    )
    func deepLinks() throws {
        let w = try World()
        let clicker = w.app("org.example.FocusApp")
        let clickerPid = try clicker.start(w.compositor)
        defer { Subprocess.stop(clickerPid, name: "the clicking app") }
        let dbus = w.app("org.example.FocusDeep")
        try dbus.install(mimeTypes: ["x-scheme-handler/com.example.deep"], bus: w.bus)
        let exec = w.app("org.example.FocusExec")
        try exec.install(mimeTypes: ["x-scheme-handler/com.example.exec"])
        for scheme in ["com.example.deep", "com.example.exec"] {
            let r = try w.desktop.linkctl("register", scheme)
            #expect(r.status == 0, "\(r.errorText)")
        }
        var clicks = 0
        /// The person clicks `link` in the clicking app (with the click's token unless `plain`); `app` takes it, as
        /// its `n`th link.
        func click(_ link: String, plain: Bool = false, reaches app: FocusApp, _ n: Int) throws {
            try w.act(in: clicker, plain ? "run-plain" : "run", "['\(Paths.linkctl)', 'open', '\(link)']")
            clicks += 1
            let ran = try #require(clicker.event("ran", clicks), "\(w.why(clicker, app))")
            #expect(ran["status"] as? Int == 0, "\(ran)")
            #expect(
                app.event("open", n).flatMap { ($0["uris"] as? [String])?.first } == link, "\(w.why(clicker, app))")
        }
        /// Kills `app` (its window gone), so the next link starts it again.
        func quit(_ app: FocusApp) {
            for case let pid as Int in app.events().compactMap({ $0["pid"] }) { kill(Int32(pid), SIGKILL) }
            _ = eventually { !w.compositor.hasWindow(app.appID) }
        }

        for app in [dbus, exec] {
            let scheme = app === dbus ? "com.example.deep" : "com.example.exec"
            // Not running, no token (the control): started, its window behind the clicker's.
            try click(scheme + ":/one", plain: true, reaches: app, 1)
            #expect(app.event("shown")?["with_token"] as? Bool == false, "\(w.why(app))")
            w.expectFocus(after: clicker, handedTo: app, token: false)
            // Running, with the click's token: to the front.
            try click(scheme + ":/two", reaches: app, 2)
            w.expectFocus(after: clicker, handedTo: app, token: true)
            // Running, no token (the control): stays behind.
            try click(scheme + ":/three", plain: true, reaches: app, 3)
            w.expectFocus(after: clicker, handedTo: app, token: false)
            // Not running, with the click's token: started, and to the front once its window is shown.
            quit(app)
            try click(scheme + ":/four", reaches: app, 4)
            #expect(app.event("shown", 2)?["with_token"] as? Bool == true, "\(w.why(app))")
            w.expectFocus(after: clicker, handedTo: app, token: true)
            quit(app)
        }

        // Through GIO, as GNOME apps and Firefox open a link: the launch of linkrouter's entry carries the click's
        // token to linkctl open (DESKTOP_STARTUP_ID: GLib 2.74 hands one only to an entry with StartupNotify=true),
        // and the app comes to the front; a bare launch context (the control) hands none.
        for (n, plain) in [(1, true), (2, false)] {
            let link = "com.example.deep:/gio/\(n)"
            try w.act(in: clicker, plain ? "open-uri-plain" : "open-uri", "'\(link)'")
            #expect(clicker.event("launched", n)?["error"] == nil, "\(w.why(clicker))")
            #expect(
                dbus.event("open", 4 + n).flatMap { ($0["uris"] as? [String])?.first } == link,
                "\(w.why(clicker, dbus))")
            w.expectFocus(after: clicker, handedTo: dbus, token: !plain)
        }
    }

    @Test(
        "Vipps app-to-app: the app_callback_uri clicked in the focused \"Vipps app\" reopens resume_uri in the login's own browser and brings it to the front; the same click without a token (the control, its own login) leaves the browser behind"
    )
    func vippsResume() throws {
        let w = try World()
        let app = w.app("org.example.FocusApp")
        let appPid = try app.start(w.compositor)
        defer { Subprocess.stop(appPid, name: "the focus app") }
        let vipps = w.app("org.example.FocusVipps")
        let vippsPid = try vipps.start(w.compositor)
        defer { Subprocess.stop(vippsPid, name: "the Vipps app") }
        let browser = w.browser
        let login =
            #"'{"authorization_endpoint": "https://id.example.com/authorize", "client_id": "app", "redirect_uri": "com.example.app:/callback", "app_callback_uri": "com.example.app:/app-callback"}'"#
        for (n, plain) in [(1, true), (2, false)] {
            // The login begins (its browser opens: `open` n), then the person is in the Vipps app and confirms there.
            try w.act(in: app, "begin-plain", login)
            let begun = try #require(app.event("begun", n), "\(w.why(app, browser))")
            let state = try #require((begun["url"] as? String)?.queryValue("state"))
            #expect(browser.event("open", 2 * n - 1) != nil, "\(w.why(browser))")
            let resume = "https://id.example.com/resume?step=\(n)"
            let link = "com.example.app:/app-callback?state=\(state)&resume_uri=\(PercentEncoding.encode(resume))"
            try w.act(in: vipps, plain ? "run-plain" : "run", "['\(Paths.linkctl)', 'open', '\(link)']")
            let ran = try #require(vipps.event("ran", n), "\(w.why(vipps))")
            #expect(ran["out"] as? String == "resumed\n", "\(ran)")
            // Reopened in the same (running) browser.
            #expect(
                browser.event("open", 2 * n).flatMap { ($0["uris"] as? [String])?.first } == resume, "\(w.why(browser))"
            )
            w.expectFocus(after: vipps, handedTo: browser, token: !plain)
        }
    }

    @Test(
        "a click on linkrouter's sign-in notification brings the browser it opens for the sign-in to the front, with the token the notification server sent for the click (ActivationToken, just before ActionInvoked, as GNOME Shell does); a server that sends none (the control) leaves the browser behind"
    )
    func notificationSignIn() throws {
        let w = try World()
        let provider = try Glewlwyd(desktop: w.desktop, redirectURIs: [AccountTests.redirect])
        let server = w.app("org.example.FocusNotifications")
        let serverPid = try server.start(w.compositor, arguments: ["--notifications"])
        defer { Subprocess.stop(serverPid, name: "the notification server") }
        #expect(server.event("serving-notifications") != nil)
        let browser = w.browser
        // One account a click: a notice of one need is not posted again for 15 minutes.
        for (n, (name, plain)) in [("work", true), ("home", false)].enumerated() {
            let add = try w.desktop.linkctl(
                "account", "add", name, "--issuer", provider.issuer, "--client-id", provider.clientID,
                "--redirect-uri", AccountTests.redirect, "--store", "memory")
            #expect(add.status == 0, "\(add.errorText)")
            // A program finds it signed out: the person is told.
            #expect(try w.desktop.linkctl("token", name).status == 4)
            let notice = try #require(server.event("notify", n + 1), "no notice: \(w.daemon.log.suffix(600))")
            #expect(notice["summary"] as? String == "Sign in to \(name)")
            // The person clicks it.
            try w.act(in: server, plain ? "click-notification-plain" : "click-notification", "'Sign in'")
            #expect(server.event("clicked", n + 1) != nil)
            let opened = try #require(
                browser.event("open", n + 1), "\(w.why(server, browser)) \(w.daemon.log.suffix(600))")
            #expect(
                (opened["uris"] as? [String])?.first?.hasPrefix(provider.authorizationEndpoint) == true, "\(opened)")
            if plain { #expect(browser.event("shown")?["with_token"] as? Bool == false) }
            w.expectFocus(after: server, handedTo: browser, token: !plain)
        }
    }

    @Test(
        "a loopback login's way back: its success page offers \"Return to NAME\" (return_to's entry), and the link's click in the browser (through GIO, linkrouter's own scheme) brings the app to the front with ReturnRequested's token; the same click with no token (the control) leaves it behind; a way back no completed login offered is refused"
    )
    func loopbackWayBack() throws {
        let w = try World()
        #expect(try w.desktop.linkctl("install").status == 0, "install registers the way back's scheme")
        let app = w.app("org.example.FocusApp")
        try app.install(mimeTypes: [])
        let appPid = try app.start(w.compositor)
        defer { Subprocess.stop(appPid, name: "the focus app") }
        let browser = w.browser
        let login =
            #"'{"authorization_endpoint": "https://id.example.com/authorize", "client_id": "app", "redirect_uri": "http://127.0.0.1/callback", "return_to": "org.example.FocusApp.desktop"}'"#
        for (n, plain) in [(1, true), (2, false)] {
            try w.act(in: app, "begin-plain", login)
            let begun = try #require(app.event("begun", n), "\(w.why(app, browser))")
            let url = try #require(begun["url"] as? String)
            let redirect = try #require(url.queryValue("redirect_uri")?.removingPercentEncoding)
            let state = try #require(url.queryValue("state"))
            // The provider sends the browser to the listener; the page it gets offers the way back.
            let page = try w.desktop.run(["curl", "-s", redirect + "?code=c\(n)&state=\(state)"])
            let back = Self.wayBack(on: page.text)
            #expect(page.text.contains("Return to Focus test org.example.FocusApp</a>"), "\(page.text)")
            #expect(back == "org.linkrouter.return:/back?state=\(state)", "\(page.text)")
            #expect((app.event("waited", n)?["result"] as? [String: Any])?["code"] as? String == "c\(n)")
            #expect(browser.event("open", n) != nil, "the login's browser opened: \(w.why(browser))")
            // The person clicks it in the (focused) browser: GIO hands it to linkrouter's entry.
            try w.act(in: browser, plain ? "open-uri-plain" : "open-uri", "'\(back ?? "")'")
            let returned = try #require(app.event("returned", n), "\(w.why(app, browser)) \(w.daemon.log.suffix(500))")
            #expect(returned["with_token"] as? Bool == !plain)
            w.expectFocus(after: browser, handedTo: app, token: !plain)
        }
        // A way back that names no completed login offering one.
        let bogus = try w.desktop.linkctl("open", "org.linkrouter.return:/back?state=nobody-knows-this-state-at-all")
        #expect(bogus.status != 0 && bogus.errorText.contains("UnknownState"), "\(bogus.errorText)")
    }

    /// The way back's link on a success page.
    static func wayBack(on page: String) -> String? {
        guard let start = page.range(of: "href=\"") else { return nil }
        let rest = page[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
