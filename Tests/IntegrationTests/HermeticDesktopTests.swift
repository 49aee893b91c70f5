import SystemKit
import Testing

/// The suite runs on developers' desktops, where a browser is always
/// installed and `XDG_CURRENT_DESKTOP`, `BROWSER` and a `mimeapps.list` are
/// set. A test's desktop must see none of it: only what the test puts in its
/// own directories exists (issue 13 §2).
@Suite("Hermetic test desktop")
struct HermeticDesktopTests {
    @Test("a desktop with no browser has no https handler, whatever the machine has installed")
    func noSystemBrowser() throws {
        let desktop = try TestDesktop()
        // On a machine with chromium or firefox-esr installed, xdg-mime and gio
        // find them through /usr/share/applications unless the harness hides it.
        let xdg = try desktop.run(["xdg-mime", "query", "default", "x-scheme-handler/https"])
        #expect(xdg.text.allSatisfy { $0 == "\n" || $0 == " " }, "xdg-mime found \(xdg.text)")
        let gio = try desktop.run(["gio", "mime", "x-scheme-handler/https"])
        #expect(gio.text.contains("No default applications"), "gio found \(gio.text)")
        #expect(!gio.text.contains("Registered applications"), "gio found \(gio.text)")
    }

    @Test("xdg-open of a link no handler takes starts nothing and fails")
    func noFallbackBrowser() throws {
        let desktop = try TestDesktop()
        // xdg-utils would otherwise try x-www-browser, firefox, chromium… from PATH.
        let r = try desktop.xdgOpen("com.example.unhandled:/x")
        #expect(r.status != 0)
        #expect(desktop.environment.contains("BROWSER=false"))
    }

    @Test("the runner's desktop variables do not reach the test's programs")
    func runnerEnvironmentIsNotInherited() throws {
        let desktop = try TestDesktop()
        let env = try desktop.run(["/usr/bin/env"]).text.split(separator: "\n").map(String.init)
        for name in [
            "XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "WAYLAND_DISPLAY", "GNOME_DESKTOP_SESSION_ID", "KDE_FULL_SESSION",
        ] {
            #expect(!env.contains { $0.hasPrefix(name + "=") }, "\(name) leaked into the test desktop")
        }
        #expect(env.contains("XDG_DATA_DIRS=" + desktop.systemData))
        #expect(env.contains("XDG_CONFIG_DIRS=" + desktop.systemConfig))
    }
}
