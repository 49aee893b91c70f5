import DesktopIntegration
import Foundation
import Glibc
import LinkRouterAPI
import SystemKit
import Testing

/// The files distributions install are the texts `linkctl install` writes,
/// and they pass the ecosystem's own validators.
@Suite("Packaging")
struct PackagingTests {
    static func templates() -> [(String, String)] {
        let registration = HandlerRegistration(database: DesktopDatabase(), linkctl: "@bindir@/linkctl")
        return [
            ("packaging/systemd/linkrouterd.service.in", Installation.unitFile(bindir: "@bindir@")),
            ("packaging/systemd/linkrouterd-agent.socket", Installation.socketUnitFile),
            ("packaging/dbus/org.linkrouter.LinkRouter1.service.in", Installation.serviceFile(bindir: "@bindir@")),
            ("packaging/desktop-files/linkrouter-https.desktop.in", registration.httpsEntry().text),
            ("packaging/desktop-files/linkrouter-SCHEME.desktop.in", registration.schemeEntry("@scheme@").text),
        ]
    }

    @Test("packaging/ holds exactly what linkctl install writes (LINKROUTER_UPDATE_PACKAGING=1 rewrites them)")
    func templatesMatch() throws {
        for (path, text) in Self.templates() {
            if Environment.get("LINKROUTER_UPDATE_PACKAGING") == "1" {
                try FileSystem.writeAtomically(Paths.root + "/" + path, text: text, permissions: 0o644)
            }
            #expect(try FileSystem.readText(Paths.root + "/" + path) == text, "\(path)")
        }
    }

    func substituted(_ d: TestDesktop, _ template: String, as name: String) throws -> String {
        let text = try FileSystem.readText(Paths.root + "/" + template)
        let out = d.root + "/" + name
        try FileSystem.writeAtomically(
            out, text: text.replacing("@bindir@", with: Paths.bin).replacing("@scheme@", with: "com.example.app"),
            permissions: 0o644)
        return out
    }

    @Test("desktop files are clean under desktop-file-validate")
    func desktopFiles() throws {
        let d = try TestDesktop()
        for (template, name) in [
            ("packaging/desktop-files/linkrouter-https.desktop.in", "linkrouter-https.desktop"),
            ("packaging/desktop-files/linkrouter-SCHEME.desktop.in", "linkrouter-com.example.app.desktop"),
        ] {
            let r = try d.run(["desktop-file-validate", try substituted(d, template, as: name)])
            #expect(r.status == 0 && r.text.isEmpty && r.errorText.isEmpty, "\(name): \(r.text)\(r.errorText)")
        }
    }

    @Test(
        "the user unit is clean under systemd-analyze verify (its exposure is checked on the installed unit by scripts/package-check)"
    )
    func unit() throws {
        let d = try TestDesktop()
        let dir = d.root + "/units"
        try FileSystem.makeDirectories(dir)
        let unit = try substituted(d, "packaging/systemd/linkrouterd.service.in", as: "units/linkrouterd.service")
        let verify = try d.run(["systemd-analyze", "verify", "--user", unit])
        #expect(verify.status == 0 && verify.errorText.isEmpty, "\(verify.errorText)")
    }

    @Test("make install PREFIX DESTDIR puts every file in place with the real paths")
    func makeInstall() throws {
        let d = try TestDesktop()
        let dest = d.root + "/dest"
        // BUILT: swift test holds the build directory's lock, so make must not build.
        let r = try Subprocess.run(
            ["make", "-C", Paths.root, "install", "PREFIX=/usr", "DESTDIR=" + dest, "BUILT=" + Paths.bin],
            environment: Environment.entries(), timeoutMilliseconds: 60_000)
        #expect(r.status == 0, "\(r.errorText)")
        for f in ["/usr/bin/linkrouterd", "/usr/bin/linkctl", "/usr/libexec/linkrouter/linkctl-full"] {
            #expect(FileSystem.isExecutable(dest + f), "\(f)")
        }
        // The front on PATH finds the full linkctl where the installation put it, and hands it a verb it does not serve.
        let version = try Subprocess.run([dest + "/usr/bin/linkctl", "--version"], environment: Environment.entries())
        #expect(version.status == 0 && version.text == "linkctl \(API.version)\n", "\(version.errorText)")
        let unit = try FileSystem.readText(dest + "/usr/lib/systemd/user/linkrouterd.service")
        #expect(unit.contains("ExecStart=/usr/bin/linkrouterd\n") && !unit.contains("@bindir@"))
        let service = try FileSystem.readText(dest + "/usr/share/dbus-1/services/org.linkrouter.LinkRouter1.service")
        #expect(service == Installation.serviceFile(bindir: "/usr/bin"))
        // The reviewed interface file, where D-Bus tools look for one, as it is in the tree.
        let interfaces = dest + "/usr/share/dbus-1/interfaces/org.linkrouter.LinkRouter1.xml"
        #expect(
            try FileSystem.readText(interfaces)
                == FileSystem.readText(Paths.root + "/docs/org.linkrouter.LinkRouter1.xml"))
        #expect(FileSystem.exists(dest + "/usr/share/doc/linkrouter/README.md"))
        #expect(
            try FileSystem.readText(dest + "/usr/share/linkrouter/desktop-files/linkrouter-https.desktop").contains(
                "Exec=/usr/bin/linkctl open -- %u\n"))
        // Manual pages and completion, made from the programs' own tables (help2man reads --help).
        let page = try FileSystem.readText(dest + "/usr/share/man/man1/linkctl.1")
        #expect(
            page.contains(".SS token") && page.contains("--interactive")
                && page.contains("docker-credential-linkrouter"))
        // UTF-8 throughout: help2man in the C locale wrote every "…" of the help as "???".
        #expect(!page.contains("???") && page.contains("…"), "the page lost the help's UTF-8")
        #expect(
            try FileSystem.readText(dest + "/usr/share/man/man1/linkrouterd.1").contains(#"\-\-system\-accounts\-dir"#))
        #expect(
            try FileSystem.readText(dest + "/usr/share/bash-completion/completions/linkctl").contains(
                "complete -o default -F _linkctl linkctl"))
        #expect(
            FileSystem.exists(dest + "/usr/share/zsh/vendor-completions/_linkctl")
                && FileSystem.exists(dest + "/usr/share/fish/vendor_completions.d/linkctl.fish"))
        // make uninstall takes back what install put there.
        let u = try Subprocess.run(
            ["make", "-C", Paths.root, "uninstall", "PREFIX=/usr", "DESTDIR=" + dest],
            environment: Environment.entries(), timeoutMilliseconds: 60_000)
        #expect(u.status == 0, "\(u.errorText)")
        for f in [interfaces, dest + "/usr/bin/linkctl", dest + "/usr/share/doc/linkrouter/README.md"] {
            #expect(!FileSystem.exists(f), "\(f) is still there after make uninstall")
        }
    }

    @Test(
        "the daemon runs a whole login under NoNewPrivileges, MemoryDenyWriteExecute and a read-only file system but %t, as the unit sets them",
        .enabled(if: geteuid() == 0, "a private read-only mount namespace needs root"))
    func underHardening() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        try desktop.addBrowser(Harness.browser)
        // PR_SET_NO_NEW_PRIVS, then PR_SET_MDWE(REFUSE_EXEC_GAIN) (Linux 6.3+), then exec the daemon.
        let wrapper = """
            import ctypes, os, sys
            libc = ctypes.CDLL(None, use_errno=True)
            assert libc.prctl(38, 1, 0, 0, 0) == 0
            mdwe = libc.prctl(65, 1, 0, 0, 0) == 0
            sys.stderr.write("<6>test wrapper: mdwe=%s\\n" % mdwe); sys.stderr.flush()
            os.execv(sys.argv[1], sys.argv[1:])
            """
        try FileSystem.writeAtomically(desktop.root + "/harden.py", text: wrapper, permissions: 0o644)
        let log = desktop.root + "/hardened.log"
        // What a ProtectSystem=strict + ReadWritePaths=%t drop-in would amount to where it can be
        // had (the shipped unit cannot: docs/packaging.md): a private mount namespace whose root is
        // read-only but for the runtime directory (and the test's own record directory, where the
        // stand-in browser, a child here, writes).
        let namespace =
            "mount --bind '\(desktop.runtimeDir)' '\(desktop.runtimeDir)' && mount --bind '\(desktop.records)' '\(desktop.records)' && mount -o remount,bind,ro / && exec python3 '\(desktop.root)/harden.py' '\(Paths.linkrouterd)'"
        let pid = try Subprocess.spawn(
            ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", namespace],
            environment: desktop.environment,
            stdout: .file(log), stderr: .file(log))
        defer {
            Subprocess.stop(pid, name: "the mount namespace")
        }
        let app = try BusClient(bus.address)
        #expect(eventually { DaemonProcess.nameHasOwner(app.connection) }, "\((try? FileSystem.readText(log)) ?? "")")
        let status = try FileSystem.readText("/proc/\(pid)/status")
        #expect(status.contains("NoNewPrivs:\t1"))
        #expect(try desktop.linkctl("register", "com.example.app").status == 0)
        let (path, url) = try app.begin(BeginSessionRefusalTests.good)
        #expect(desktop.waitForBrowser(Harness.browser).count == 1)
        #expect(
            try desktop.xdgOpen("com.example.app:/callback?code=hardened&state=\(Harness.state(of: url))").status == 0)
        #expect(try app.wait(path)["code"] == "hardened")
        #expect((try FileSystem.readText(log)).contains("mdwe=True"))
        #expect(!(try FileSystem.readText(log)).contains("<3>"), "\((try? FileSystem.readText(log)) ?? "")")
    }
}
