import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import StoreTesting
import SystemKit
import Testing

/// A package upgrade renames a new `linkrouterd` over the running one's
/// path. The daemon notices, stops once stopping cuts nothing short, and is
/// started again on the new executable; what users have goes on. The same
/// through dpkg in a Debian root: `scripts/package-check`.
@Suite("Upgrades")
struct UpgradeTests {
    /// A desktop whose bus activates linkrouterd from its installed copy, with the daemon running from there.
    struct Installed {
        let desktop: TestDesktop
        let bus: PrivateBus
        let installed: InstalledDaemon
        let daemon: DaemonProcess
        var executable: String { installed.executable }

        init() throws {
            desktop = try TestDesktop()
            bus = try PrivateBus(desktop: desktop, activation: true)
            try desktop.addBrowser(Harness.browser)
            installed = try InstalledDaemon(desktop: desktop, bus: bus)
            daemon = try DaemonProcess(desktop: desktop, executable: installed.executable)
        }

        func upgrade() throws { try installed.upgrade(desktop) }
    }

    @Test(
        "the executable replaced under a pending login: the daemon stops (75), its owner's Wait brings the new executable up by D-Bus activation, and the callback reaches the owner"
    )
    func pendingLoginSurvives() throws {
        let w = try Installed()
        #expect(try w.desktop.linkctl("register", "com.example.app").status == 0)
        let out = w.desktop.root + "/login.out"
        let err = w.desktop.root + "/login.err"
        let login = try Subprocess.spawn(
            [
                Paths.linkctl, "login", "--redirect-uri", "com.example.app:/callback", "--authorization-endpoint",
                "https://id.example.com/authorize",
                "--client-id", "app", "--no-browser", "--timeout", "60000",
            ], environment: w.desktop.environment, stdout: .file(out), stderr: .file(err))
        var url = ""
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                url =
                    ((try? FileSystem.readText(err)) ?? "").split(separator: "\n").first { $0.hasPrefix("  https://") }
                    .map { String($0.dropFirst(2)) } ?? ""
                return !url.isEmpty
            })
        try w.upgrade()
        #expect(w.daemon.waitForExit(timeoutMilliseconds: 10_000) == 75)
        #expect(w.daemon.log.contains("\(w.executable) was replaced; restarting on the new executable"))
        #expect(w.daemon.log.contains("linkrouterd stopped, to be started again on its new executable"))

        // Nobody but the owner's `linkctl login`, waiting again, calls: that starts the new daemon.
        let probe = try DBusConnection(address: w.bus.address)
        let pid = try #require(InstalledDaemon.owner(probe))
        #expect(Int32(pid) != w.daemon.pid)
        #expect(
            FileSystem.readLink("/proc/\(pid)/exe") == w.executable,
            "the new daemon runs the file now at the path, not a deleted one")

        let r = try w.desktop.linkctl(
            "open", "--", "com.example.app:/callback?code=after-upgrade&state=\(Harness.state(of: url))")
        #expect(r.status == 0 && r.text == "completed\n", "\(r.text) \(r.errorText)")
        #expect(Subprocess.wait(login, timeoutMilliseconds: 60_000) == 0)
        #expect(((try? FileSystem.readText(out)) ?? "").contains("after-upgrade"))
        kill(Int32(pid), SIGTERM)
        #expect(eventually { !DaemonProcess.nameHasOwner(probe) })
    }

    @Test(
        "the executable replaced while a link is with an app: the daemon keeps serving until the app has answered, then restarts; the link was delivered once"
    )
    func waitsForWorkUnderWay() throws {
        let w = try Installed()
        // An app that is running (its name is owned here) and slow to take the link.
        try FileSystem.writeAtomically(
            w.desktop.applications + "/org.example.Slow.desktop",
            text:
                "[Desktop Entry]\nType=Application\nName=Slow app\nExec=/bin/false %u\nDBusActivatable=true\nMimeType=x-scheme-handler/com.example.slow;\n",
            permissions: 0o644)
        let app = try DBusConnection(address: w.bus.address)
        _ = try app.requestName(BusName("org.example.Slow"))
        #expect(try w.desktop.linkctl("register", "com.example.slow").status == 0)
        let out = w.desktop.root + "/open.out"
        let opener = try Subprocess.spawn(
            [Paths.linkctl, "open", "--", "com.example.slow:/item/1"], environment: w.desktop.environment,
            stdout: .file(out), stderr: .file(out + ".err"))
        var open: DBusMessage?
        eventually(timeoutMilliseconds: 10_000) {
            while open == nil, let m = app.nextMessage(timeoutMilliseconds: 100) {
                if m.member == "Open" { open = m }
            }
            return open != nil
        }
        let call = try #require(open, "the daemon called the app's Open")

        let probe = try BusClient(w.bus.address)
        #expect(try probe.counters()["restart_held_back"] == 0)
        try w.upgrade()
        // The daemon saw the new executable, and holds its restart back for the link with the app.
        #expect(eventually { (try? probe.counters()["restart_held_back"]) == 1 })
        #expect(probe.ping() && w.daemon.isRunning, "still serving while the link is with the app")

        app.reply(to: call, values: [])
        #expect(w.daemon.waitForExit(timeoutMilliseconds: 10_000) == 75)
        #expect(Subprocess.wait(opener, timeoutMilliseconds: 60_000) == 0)
        #expect(try FileSystem.readText(out) == "delivered\n")
        // Once: no daemon, the old or the new, hands the app the link again.
        var again = 0
        while let m = app.nextMessage(timeoutMilliseconds: 300) { if m.member == "Open" { again += 1 } }
        #expect(again == 0)
    }

    @Test(
        "an account signed in before the upgrade: the new daemon hands out the same token, read back from the keyring")
    func accountSurvives() throws {
        let w = try AccountTests.World(installed: true)
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })
        let before = try w.desktop.linkctl("token", "work")
        #expect(before.status == 0, "\(before.errorText)")

        let installed = try #require(w.installed)
        try installed.upgrade(w.desktop)
        #expect(w.daemon.waitForExit(timeoutMilliseconds: 10_000) == 75)
        // The next call starts the new executable; it has nothing in memory, so the token comes from the keyring.
        let after = try w.desktop.linkctl("token", "work")
        #expect(after.status == 0 && after.text == before.text, "\(after.errorText)")
        let probe = try DBusConnection(address: w.bus.address)
        let pid = try #require(InstalledDaemon.owner(probe))
        #expect(Int32(pid) != w.daemon.pid && FileSystem.readLink("/proc/\(pid)/exe") == installed.executable)
        #expect(try w.accounts().first?["signed_in"] as? Bool == true)
        kill(Int32(pid), SIGTERM)
        #expect(eventually { !DaemonProcess.nameHasOwner(probe) })
    }

    @Test(
        "a store an older package left (schema 2) is migrated by the upgraded daemon at its start; the login pending in it completes for its owner"
    )
    func storeMigrated() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop, activation: true)
        try desktop.addBrowser(Harness.browser)
        let installed = try InstalledDaemon(desktop: desktop, bus: bus)
        #expect(try desktop.linkctl("register", "com.example.app").status == 0)
        let app = try BusClient(bus.address)
        guard let m = try? BusProxy.bus.message("GetId", []),
            case .string(let busID)? = try app.connection.callArguments(m).first
        else {
            Issue.record("the bus has no id")
            return
        }
        // As the package of 93dea89 (schema 2: one column a field, and the exchange plan) left it, its owner still on
        // the bus.
        let now = Clock.unixSeconds()
        let state = "state_from_schema_two_" + String(repeating: "s", count: 21)
        let path = desktop.runtimeDir + "/linkrouter/sessions.sqlite3"
        try OldStore.write(
            path, schema: 2,
            statements: """
                INSERT INTO meta VALUES ('bus_id', '\(busID)');
                INSERT INTO sessions VALUES ('from_schema_two', 'builder', '\(app.name)', NULL, '\(state)', NULL, '\(String(repeating: "v", count: 43))',
                  'com.example.app:/callback', NULL, 'https://id.example.com', '', NULL, 'browser', NULL, NULL, 0, 'pending', NULL, NULL, NULL,
                  NULL, NULL, NULL, NULL, 0, 0, \(now), \(now + 600), NULL, NULL);
                """)

        // The upgraded executable starts (by D-Bus activation, at the first call) on the old store.
        try installed.upgrade(desktop)
        let sessionPath = API.path(of: try #require(SessionID("from_schema_two"))).rawValue
        #expect(try app.status(sessionPath) == "pending")
        #expect(try desktop.run(["sqlite3", path, "PRAGMA user_version;"]).text == "3\n")
        let r = try desktop.linkctl(
            "open", "--", "com.example.app:/callback?code=kept-across-the-schema&state=\(state)")
        #expect(r.status == 0 && r.text == "completed\n", "\(r.text) \(r.errorText)")
        let result = try app.wait(sessionPath)
        #expect(
            result["code"] == "kept-across-the-schema" && result["code_verifier"] == String(repeating: "v", count: 43))
        let probe = try DBusConnection(address: bus.address)
        if let pid = InstalledDaemon.owner(probe) { kill(Int32(pid), SIGTERM) }
        #expect(eventually { !DaemonProcess.nameHasOwner(probe) })
    }
}
