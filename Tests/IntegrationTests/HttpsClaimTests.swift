import DBusKit
import DesktopIntegration
import Freedesktop
import Glibc
import LinkRouterAPI
import LinkRouterFiles
import SystemKit
import Testing

/// linkrouter as the http/https handler: invisible for every web link,
/// catching only pending callbacks, never looping, and undone exactly.
@Suite("Claimed https, passthrough, install and uninstall")
struct HttpsClaimTests {
    /// A harness with linkrouter installed as the https handler over the stand-in browser.
    func claimed() throws -> Harness {
        let h = try Harness()
        let r = try h.desktop.linkctl("install", "--claim-https", "--json")
        guard r.status == 0 else { throw SystemError("install failed: \(r.errorText)", code: 1) }
        return h
    }

    func defaultHandler(_ d: TestDesktop, _ scheme: String) throws -> String {
        try d.run(["xdg-mime", "query", "default", "x-scheme-handler/" + scheme]).text
    }

    @Test("install --claim-https records the browser, takes http and https, installs activation and the unit")
    func install() throws {
        let h = try claimed()
        #expect(try defaultHandler(h.desktop, "https") == "linkrouter-https.desktop\n")
        #expect(try defaultHandler(h.desktop, "http") == "linkrouter-https.desktop\n")
        let record = try #require(InstallRecord.read(h.desktop.stateHome + "/linkrouter/install.conf"))
        #expect(record.browser == Harness.browser)
        #expect(record.previousDefaults["x-scheme-handler/https"] == "standin.desktop;")
        for f in [
            h.desktop.dataHome + "/dbus-1/services/org.linkrouter.LinkRouter1.service",
            h.desktop.configHome + "/systemd/user/linkrouterd.service",
            h.desktop.applications + "/linkrouter-https.desktop",
        ] {
            #expect(record.files.contains(f) && FileSystem.exists(f), "\(f)")
        }
        let service = try FileSystem.readText(
            h.desktop.dataHome + "/dbus-1/services/org.linkrouter.LinkRouter1.service")
        #expect(
            service.contains("Exec=\(FileSystem.resolve(Paths.bin)!)/linkrouterd\n")
                && service.contains("SystemdService=linkrouterd.service"))
        let validate = try h.desktop.run([
            "desktop-file-validate", h.desktop.applications + "/linkrouter-https.desktop",
        ])
        #expect(validate.status == 0 && validate.text.isEmpty)
        // linkctl was not on the desktop's PATH: it is now, through links in ~/.local/bin (recorded, so
        // uninstall removes them), and a shell of this desktop finds it.
        let bin = h.desktop.home + "/.local/bin"
        for name in ["linkctl", "docker-credential-linkrouter", "git-credential-linkrouter"] {
            #expect(FileSystem.readLink(bin + "/" + name) == FileSystem.resolve(Paths.bin)! + "/linkctl")
            #expect(record.files.contains(bin + "/" + name))
        }
        let env = h.desktop.environment.map { $0.hasPrefix("PATH=") ? "PATH=" + bin + ":" + $0.dropFirst(5) : $0 }
        let found = try Subprocess.run(["/bin/sh", "-c", "linkctl --version"], environment: env)
        #expect(found.status == 0 && found.text.contains("linkctl"), "\(found.errorText)")
        // A second install keeps the links and says nothing is left alone.
        let again = try h.desktop.linkctl("install")
        #expect(again.status == 0 && again.text.contains("already links here"), "\(again.text)")
    }

    /// A raw space or non-ASCII character after the host reaches the browser percent-encoded (the
    /// form a launcher such as KDE's decoded it from, and RFC 3987's IRI-to-URI mapping, which the
    /// browser applies itself); every other byte, the host included, as it came.
    @Test(
        "web links reach the recorded browser byte for byte; shell metacharacters run nothing (E1)",
        arguments: [
            ("https://example.org/path?q=a%20b&x=1#frag", "https://example.org/path?q=a%20b&x=1#frag"),
            ("https://example.org/a b?c=d e", "https://example.org/a%20b?c=d%20e"),
            ("http://example.org/%E2%9C%93?%25=%26&%zz", "http://example.org/%E2%9C%93?%25=%26&%zz"),
            ("https://例え.jp/パス?q=値", "https://例え.jp/%E3%83%91%E3%82%B9?q=%E5%80%A4"),
            (
                "https://example.org/?q=$(touch CANARY)&r=`touch CANARY`;touch CANARY|cat>CANARY<x'\"\\*",
                "https://example.org/?q=$(touch%20CANARY)&r=`touch%20CANARY`;touch%20CANARY|cat>CANARY<x'\"\\*"
            ),
            (
                "https://example.org/" + String(repeating: "a", count: 10_000),
                "https://example.org/" + String(repeating: "a", count: 10_000)
            ),
        ])
    func passthrough(_ url: String, _ expected: String) throws {
        let h = try claimed()
        let r = try h.desktop.run(["sh", "-c", "cd \"$1\" && exec xdg-open \"$2\"", "sh", h.desktop.root, url])
        #expect(r.status == 0, "\(r.errorText)")
        #expect(h.desktop.waitForBrowser(Harness.browser) == [expected])
        #expect(h.desktop.invocations(Harness.browser).first == ["--new-window", expected])
        #expect(!FileSystem.exists(h.desktop.root + "/CANARY") && !FileSystem.exists(h.desktop.home + "/CANARY"))
    }

    @Test("gio open goes the same way")
    func gio() throws {
        let h = try claimed()
        #expect(try h.desktop.gioOpen("https://example.org/gio?x=1#y").status == 0)
        #expect(h.desktop.waitForBrowser(Harness.browser) == ["https://example.org/gio?x=1#y"])
    }

    @Test(
        "a claimed callback with a pending state is routed, not browsed; with an unknown state it is the website's page"
    )
    func claimedCallback() throws {
        let h = try claimed()
        let (path, url) = try h.app.beginQuiet(redirect: "https://example.com/app/callback")
        let unknown = "https://example.com/app/callback?state=someone-elses&code=x"
        #expect(try h.desktop.xdgOpen(unknown).status == 0)
        #expect(h.desktop.waitForBrowser(Harness.browser) == [unknown])
        let callback = "https://example.com/app/callback?code=claimed-code&state=\(Harness.state(of: url))"
        let r = try h.desktop.xdgOpen(callback)
        #expect(r.status == 0)
        #expect(try h.app.wait(path)["code"] == "claimed-code")
        // The daemon started the browser once (for the unknown state), never for the callback.
        #expect(try h.app.counter("browsers_started") == 1)
        #expect(h.desktop.opened(Harness.browser) == [unknown])
        // Explain says so too, for a second one.
        let (_, url2) = try h.app.beginQuiet(redirect: "https://example.com/app/callback")
        let explained = try h.desktop.linkctl(
            "explain", "https://example.com/app/callback?code=c&state=\(Harness.state(of: url2))", "--json")
        #expect(explained.text.jsonField("outcome") == "completed")
        #expect(
            try h.desktop.linkctl("explain", "https://example.org/", "--json").text.jsonField("outcome")
                == "passthrough")
    }

    @Test(
        "with the daemon killed and no activation, a web link still opens in the browser; a pending callback is queued, not browsed"
    )
    func daemonDown() throws {
        let h = try claimed()
        let (path, url) = try h.app.beginQuiet(redirect: "https://example.com/app/callback")
        #expect(eventually { ClaimedCallbacksFile.read(h.desktop).contains("https://example.com/app/callback") })
        h.daemon.stop(signal: SIGKILL)
        let r = try h.desktop.xdgOpen("https://example.org/while-down")
        let browsed = h.desktop.waitForBrowser(Harness.browser)
        #expect(
            r.status == 0 && r.text == "passthrough\n" && browsed == ["https://example.org/while-down"],
            "\(r.text) \(r.errorText)")
        let callback = "https://example.com/app/callback?code=later&state=\(Harness.state(of: url))"
        let queued = try h.desktop.xdgOpen(callback)
        // linkctl decides before it returns: the callback went to the inbox, not to a browser.
        #expect(queued.status == 0 && queued.text == "queued\n", "\(queued.text) \(queued.errorText)")
        #expect(FileSystem.list(h.desktop.runtimeDir + "/linkrouter/inbox").count == 1)
        #expect(h.desktop.opened(Harness.browser) == ["https://example.org/while-down"])
        try h.restartDaemon()
        #expect(try h.app.wait(path)["code"] == "later")
    }

    @Test("uninstall puts back exactly the previous defaults and removes every file")
    func uninstall() throws {
        let h = try Harness()
        let before = try FileSystem.readText(h.desktop.mimeappsList)
        #expect(try h.desktop.linkctl("install", "--claim-https", "--scheme", "org.example.other").status == 0)
        let record = try #require(InstallRecord.read(h.desktop.stateHome + "/linkrouter/install.conf"))
        let r = try h.desktop.linkctl("uninstall", "--json")
        #expect(r.status == 0, "\(r.errorText)")
        #expect(try defaultHandler(h.desktop, "https") == "standin.desktop\n")
        #expect(try defaultHandler(h.desktop, "http") == "standin.desktop\n")
        #expect(
            try defaultHandler(h.desktop, "org.example.other") == "\n"
                || defaultHandler(h.desktop, "org.example.other").isEmpty)
        for f in record.files { #expect(!FileSystem.exists(f), "\(f) left behind") }
        #expect(!FileSystem.exists(h.desktop.stateHome + "/linkrouter/install.conf"))
        // The register done by the harness (com.example.app) was recorded too, so it is undone as well.
        #expect(try defaultHandler(h.desktop, "com.example.app").isEmpty)
        let after = KeyFile(parsing: try FileSystem.readText(h.desktop.mimeappsList))
        let original = KeyFile(parsing: before)
        for type in ["x-scheme-handler/https", "x-scheme-handler/http", "text/html"] {
            #expect(
                after.value(type, in: "Default Applications") == original.value(type, in: "Default Applications"),
                "\(type)")
        }
        #expect(after.value("x-scheme-handler/https", in: "Added Associations")?.contains("linkrouter") != true)
    }

    @Test("doctor passes when all is well, and finds a deleted browser entry with the command that fixes it")
    func doctor() throws {
        let h = try claimed()
        let ok = try h.desktop.linkctl("doctor")
        #expect(ok.text.contains("ok    daemon: linkrouterd \(API.version) answers"))
        #expect(ok.text.contains("ok    browser: web links go to standin.desktop"))
        #expect(ok.text.contains("ok    x-scheme-handler/https: handled by linkrouter-https.desktop"))
        #expect(ok.status == 0, "\(ok.text)")
        try FileSystem.remove(h.desktop.applications + "/standin.desktop")
        let bad = try h.desktop.linkctl("doctor")
        #expect(bad.status == 1)
        #expect(
            bad.text.contains(
                "FAIL  browser: the browser recorded at install, standin.desktop, has no launchable desktop entry"))
        #expect(
            bad.text.contains(
                "      fix: linkctl uninstall && xdg-settings set default-web-browser YOUR.desktop && linkctl install --claim-https"
            ))
        let json = try h.desktop.linkctl("doctor", "--json")
        #expect(json.status == 1 && json.text.contains("{\"check\":\"browser\",\"ok\":false"))
    }

    @Test("doctor finds a stale handler whose linkctl is gone, and a stray linkrouter entry")
    func doctorStale() throws {
        let h = try claimed()
        try FileSystem.writeAtomically(
            h.desktop.applications + "/linkrouter-org.stale.app.desktop",
            text: """
                [Desktop Entry]
                Type=Application
                Name=stale
                Exec=/nonexistent/linkctl open -- %u
                MimeType=x-scheme-handler/org.stale.app;

                """, permissions: 0o644)
        let r = try h.desktop.linkctl("doctor")
        #expect(r.status == 1)
        #expect(
            r.text.contains(
                "FAIL  linkrouter-org.stale.app.desktop: a linkrouter desktop file that no install recorded"))
    }

    @Test("never a loop: a browser entry that leads back to linkrouter is refused, with one launch at most (R6)")
    func noLoop() throws {
        let h = try claimed()
        // A "browser" whose program hands the link straight back to xdg-open (and so to linkctl).
        let script = h.desktop.root + "/bin/bouncer"
        try FileSystem.writeAtomically(
            script,
            text:
                "#!/bin/sh\necho \"$@\" >> \(h.desktop.root)/bounces\nxdg-open \"$1\"\necho $? > \(h.desktop.root)/bounced\n",
            permissions: 0o755)
        try FileSystem.writeAtomically(
            h.desktop.applications + "/bouncer.desktop",
            text:
                "[Desktop Entry]\nType=Application\nName=Bouncer\nExec=\(script) %u\nMimeType=x-scheme-handler/https;\n",
            permissions: 0o644)
        var record = try #require(InstallRecord.read(h.desktop.stateHome + "/linkrouter/install.conf"))
        record.browser = "bouncer.desktop"
        try record.write(h.desktop.stateHome + "/linkrouter/install.conf")
        #expect(try h.app.route("https://example.org/loop") == "passthrough")
        // The bouncer hands the link back through xdg-open to linkctl, which sees the hop mark and refuses
        // it: once the bouncer has written its exit line, that whole chain has ended.
        #expect(eventually { ((try? FileSystem.readText(h.desktop.root + "/bounces")) ?? "").contains("loop") })
        #expect(eventually { FileSystem.exists(h.desktop.root + "/bounced") })
        #expect(try FileSystem.readText(h.desktop.root + "/bounces") == "https://example.org/loop\n")
        #expect(try h.app.counter("links_routed") == 1, "the bounced link never reached the daemon again")
        #expect(try h.app.counter("browsers_started") == 1)
        // A recorded "browser" that is linkctl itself is never launched: the default browser gets the link.
        record.browser = "linkrouter-https.desktop"
        try record.write(h.desktop.stateHome + "/linkrouter/install.conf")
        #expect(try h.app.route("https://example.org/own") == "passthrough")
        #expect(h.desktop.waitForBrowser(Harness.browser) == ["https://example.org/own"])
    }

    @Test("R5: only http and https are ever forwarded")
    func forwardsOnlyWeb() throws {
        let h = try claimed()
        for url in [
            "file:///etc/passwd", "smb://host/share", "sftp://host/x", "data:text/html,x", "javascript:alert(1)",
        ] {
            try h.expectRefusal(errorPrefix + "NotACallback") { _ = try h.app.route(url) }
        }
    }
}

/// Reading the daemon's published claimed-callbacks list.
enum ClaimedCallbacksFile {
    static func read(_ d: TestDesktop) -> String {
        (try? FileSystem.readText(d.runtimeDir + "/linkrouter/claimed-callbacks")) ?? ""
    }
}
