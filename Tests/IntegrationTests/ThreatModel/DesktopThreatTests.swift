import DesktopIntegration
import Freedesktop
import LinkRouterAPI
import SystemKit
import Testing

/// Threat model, "Desktop file / Exec / handler registration" (E1–E3).
@Suite("Threat model E: desktop files")
struct DesktopThreatTests {
    @Test(
        "E1: URLs with shell metacharacters reach linkctl and the browser as one argument, byte for byte; the desktop file validates"
    )
    func e1() throws {
        let h = try Harness()
        #expect(try h.desktop.linkctl("install", "--claim-https").status == 0)
        let url = "https://example.org/;$(touch PWNED)`touch PWNED`'\"%25 %0A|&*?#frag"
        #expect(
            try h.desktop.run(["sh", "-c", "cd \"$1\" && exec xdg-open \"$2\"", "sh", h.desktop.root, url]).status == 0)
        // One argument all through (a split at the space would lose the rest); the raw space reaches the
        // browser percent-encoded, as linkctl puts back what a launcher may have decoded (issue 20).
        #expect(
            h.desktop.waitForBrowser(Harness.browser) == [
                "https://example.org/;$(touch%20PWNED)`touch%20PWNED`'\"%25%20%0A|&*?#frag"
            ])
        #expect(!FileSystem.exists(h.desktop.root + "/PWNED") && !FileSystem.exists(h.desktop.home + "/PWNED"))
        let entry = h.desktop.applications + "/linkrouter-com.example.app.desktop"
        #expect(
            DesktopEntry(id: "x.desktop", path: entry, text: try FileSystem.readText(entry)).exec?.hasSuffix(
                " open -- %u") == true)
        #expect(try h.desktop.run(["desktop-file-validate", entry]).status == 0)
    }

    @Test("E2: several URLs or an empty argument are refused by linkctl")
    func e2() throws {
        let d = try TestDesktop()
        #expect(try d.linkctl("open", "--", "com.example.app:/a?state=1", "com.example.app:/b?state=2").status == 64)
        #expect(try d.linkctl("open", "--", "").status == 64)
        #expect(try d.linkctl("open").status == 64)
    }

    @Test(
        "E3: another handler taking linkrouter's scheme is reported at start-up and by doctor; security still rests on state and the exact match"
    )
    func e3() throws {
        let h = try Harness()
        try FileSystem.writeAtomically(
            h.desktop.applications + "/squatter.desktop",
            text:
                "[Desktop Entry]\nType=Application\nName=Squatter\nExec=/bin/true %u\nMimeType=x-scheme-handler/com.example.app;\n",
            permissions: 0o644)
        try h.desktop.setDefault("squatter.desktop", for: ["x-scheme-handler/com.example.app"])
        try h.restartDaemon()
        // Checked just after the name is owned, so the line may trail the harness's readiness.
        #expect(
            eventually {
                h.daemon.log.contains(
                    "x-scheme-handler/com.example.app is handled by squatter.desktop, not by linkrouter's linkrouter-com.example.app.desktop"
                )
            })
        let doctor = try h.desktop.linkctl("doctor")
        #expect(
            doctor.status == 1
                && doctor.text.contains("FAIL  x-scheme-handler/com.example.app: handled by squatter.desktop"))
        // A callback the squatter got and replayed still needs the state, and reaches only the owner.
        let (path, url) = try h.app.beginQuiet()
        try h.expectRefusal(errorPrefix + "UnknownState") {
            _ = try h.app.route("com.example.app:/callback?code=C&state=guessed")
        }
        #expect(try h.app.route("com.example.app:/callback?code=C&state=\(Harness.state(of: url))") == "completed")
        #expect(try h.app.wait(path)["code"] == "C")
    }
}
