import Foundation
import Glibc
import LinkRouterCore
import SystemKit
import Testing

/// The same hand-offs on GNOME's own compositor (issue 45): headless mutter
/// 43, real GTK 4 apps, key presses through mutter's input API. mutter
/// focuses every window that maps, token or not (measured: 9 of 9 new windows
/// without one), so here the browser is running before the login begins and
/// every check is a running window's coming to the front; each beside its
/// control, which mutter refuses (0 of 40 measured without a valid token).
@Suite(
    "Wayland focus on GNOME's compositor (mutter): a login's hand-offs come to the front", .serialized,
    .enabled(if: Mutter.unavailable == nil, "\(Mutter.unavailable ?? "")"))
struct MutterFocusTests {
    @Test(
        "a login's browser and its return trip on mutter: BeginSession with the focused app's token brings the running browser to the front with the login, and the callback clicked there brings the app back with Wait's activation_token; without the tokens (the controls) neither moves"
    )
    func loginRoundTrip() throws {
        let w = try FocusTests.World(mutter: true)
        let browser = w.browser
        let browserPid = try browser.start(w.compositor)
        defer { Subprocess.stop(browserPid, name: "the stand-in browser") }
        let app = w.app("org.example.FocusApp")
        let appPid = try app.start(w.compositor)
        defer { Subprocess.stop(appPid, name: "the focus app") }
        for (n, plain) in [(1, true), (2, false)] {
            // The login begins in the focused app; the running browser gets the authorize URL.
            try w.act(in: app, plain ? "begin-plain" : "begin", FocusTests.login)
            let begun = try #require(app.event("begun", n), "\(w.why(app, browser))")
            let url = try #require(begun["url"] as? String)
            #expect(
                browser.event("open", n).flatMap { ($0["uris"] as? [String])?.first } == url, "\(w.why(browser))")
            w.expectFocus(after: app, handedTo: browser, token: !plain)
            // The person, in the browser, is sent to the callback: the app's Wait answers, and it presents itself.
            let state = try #require(url.queryValue("state"))
            try w.act(
                in: browser, plain ? "run-plain" : "run",
                "['\(Paths.linkctl)', 'open', 'com.example.app:/callback?code=c\(n)&state=\(state)']")
            let waited = try #require(app.event("waited", n)?["result"] as? [String: Any], "\(w.why(app, browser))")
            #expect(waited["code"] as? String == "c\(n)")
            #expect(app.event("presented", n)?["with_token"] as? Bool == !plain, "\(w.why(app))")
            if plain { #expect(waited["activation_token"] == nil, "a token from a click that carried none") }
            w.expectFocus(after: browser, handedTo: app, token: !plain)
        }
    }

    @Test(
        "a deep link on mutter: a link clicked in the focused app brings the running app it goes to to the front; without the click's token (the control) it stays behind"
    )
    func deepLink() throws {
        let w = try FocusTests.World(mutter: true)
        // A deep link to a running app: the app first (mutter focuses every new window), then the one clicked in.
        let target = w.app("org.example.FocusDeep")
        try target.install(mimeTypes: ["x-scheme-handler/com.example.deep"], bus: w.bus)
        #expect(try w.desktop.linkctl("register", "com.example.deep").status == 0)
        let targetPid = try target.start(w.compositor)
        defer { Subprocess.stop(targetPid, name: "the deep-link app") }
        let clicker = w.app("org.example.FocusApp")
        let clickerPid = try clicker.start(w.compositor)
        defer { Subprocess.stop(clickerPid, name: "the clicking app") }
        for (n, plain) in [(1, true), (2, false)] {
            let link = "com.example.deep:/item/\(n)"
            try w.act(in: clicker, plain ? "run-plain" : "run", "['\(Paths.linkctl)', 'open', '\(link)']")
            #expect(clicker.event("ran", n)?["status"] as? Int == 0, "\(w.why(clicker))")
            #expect(
                target.event("open", n).flatMap { ($0["uris"] as? [String])?.first } == link,
                "\(w.why(clicker, target))")
            w.expectFocus(after: clicker, handedTo: target, token: !plain)
        }
    }

    @Test(
        "a click on linkrouter's sign-in notification on mutter brings the running browser to the front with the sign-in (the server's ActivationToken, as GNOME Shell sends it); a server that sends none (the control) leaves it behind"
    )
    func notice() throws {
        let w = try FocusTests.World(mutter: true)
        // The browser running first (mutter focuses every new window), then the notification server's window.
        let provider = try Glewlwyd(desktop: w.desktop, redirectURIs: [AccountTests.redirect])
        let browser = w.browser
        let browserPid = try browser.start(w.compositor)
        defer { Subprocess.stop(browserPid, name: "the stand-in browser") }
        let server = w.app("org.example.FocusNotifications")
        let serverPid = try server.start(w.compositor, arguments: ["--notifications"])
        defer { Subprocess.stop(serverPid, name: "the notification server") }
        #expect(server.event("serving-notifications") != nil)
        for (n, (name, plain)) in [("work", true), ("home", false)].enumerated() {
            let add = try w.desktop.linkctl(
                "account", "add", name, "--issuer", provider.issuer, "--client-id", provider.clientID,
                "--redirect-uri", AccountTests.redirect, "--store", "memory")
            #expect(add.status == 0, "\(add.errorText)")
            #expect(try w.desktop.linkctl("token", name).status == 4)
            #expect(server.event("notify", n + 1) != nil, "no notice: \(w.daemon.log.suffix(600))")
            try w.act(in: server, plain ? "click-notification-plain" : "click-notification", "'Sign in'")
            let opened = try #require(browser.event("open", n + 1), "\(w.why(server, browser))")
            #expect(
                (opened["uris"] as? [String])?.first?.hasPrefix(provider.authorizationEndpoint) == true, "\(opened)")
            w.expectFocus(after: server, handedTo: browser, token: !plain)
        }
    }
}
