import Foundation
import Glibc
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
        let compositor: Compositor
        let browser: FocusApp
        let daemon: DaemonProcess

        init() throws {
            desktop = try TestDesktop()
            bus = try PrivateBus(desktop: desktop)
            compositor = try Compositor(desktop: desktop)
            browser = FocusApp(desktop, appID: "org.example.FocusBrowser")
            try browser.install(mimeTypes: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"])
            try desktop.setDefault(
                browser.appID + ".desktop", for: ["x-scheme-handler/http", "x-scheme-handler/https", "text/html"])
            daemon = try DaemonProcess(desktop: desktop)
            let r = try desktop.linkctl("register", "com.example.app")
            guard r.status == 0 else { throw SystemError("linkctl register: \(r.errorText)", code: EIO) }
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
        let app = FocusApp(w.desktop, appID: "org.example.FocusApp")
        let appPid = try app.start(w.compositor)
        defer { Subprocess.stop(appPid, name: "the focus app") }
        let browser = w.browser

        // The control: the app begins with no token; the browser opens behind it.
        try w.compositor.focus(app.appID)
        try app.arm("begin-plain", Self.login)
        try w.compositor.press()
        let plain = try #require(app.event("begun"), "\(w.why(app, browser))")
        #expect(browser.event("shown")?["with_token"] as? Bool == false, "\(w.why(app, browser))")
        #expect(w.compositor.focused() == app.appID, "the browser took the focus with no token: \(w.why(app, browser))")
        // The control's way back: the person clicks the callback in the browser, with no token on the way.
        try w.compositor.focus(browser.appID)
        let first = try #require((plain["url"] as? String)?.queryValue("state"))
        try browser.arm("run-plain", "['\(Paths.linkctl)', 'open', 'com.example.app:/callback?code=one&state=\(first)']")
        try w.compositor.press()
        let back = try #require(app.event("presented"), "\(w.why(app, browser))")
        #expect(back["with_token"] as? Bool == false)
        #expect(
            (app.event("waited")?["result"] as? [String: Any])?["activation_token"] == nil, "no token, none handed on")
        #expect(w.compositor.focused() == browser.appID, "the app took the focus with no token: \(w.why(app, browser))")

        // With the app's token: the (running) browser comes to the front with the new login.
        try w.compositor.focus(app.appID)
        try app.arm("begin", Self.login)
        try w.compositor.press()
        let begun = try #require(app.event("begun", 2), "\(w.why(app, browser))")
        let url = try #require(begun["url"] as? String)
        #expect(browser.event("open", 2).flatMap { ($0["uris"] as? [String])?.first } == url, "\(w.why(browser))")
        #expect(
            eventually(timeoutMilliseconds: 10_000) { w.compositor.focused() == browser.appID },
            "the browser stayed behind: \(w.why(app, browser))")
        // The callback clicked in the focused browser: xdg-open's token goes through linkctl open to the daemon,
        // and Wait hands it to the app, which comes back to the front with it.
        let state = try #require(url.queryValue("state"))
        try browser.arm("run", "['\(Paths.linkctl)', 'open', 'com.example.app:/callback?code=two&state=\(state)']")
        try w.compositor.press()
        let waited = try #require(app.event("waited", 2)?["result"] as? [String: Any], "\(w.why(app, browser))")
        #expect(waited["code"] as? String == "two" && (waited["activation_token"] as? String)?.isEmpty == false)
        #expect(app.event("presented", 2)?["with_token"] as? Bool == true)
        #expect(
            eventually(timeoutMilliseconds: 10_000) { w.compositor.focused() == app.appID },
            "the app stayed behind: \(w.why(app, browser))")
    }
}
