import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// No lost logins, no lost links: kill -9, restarts, D-Bus activation, the
/// inbox when no daemon can be had, bursts, broken stores, file modes.
@Suite("Durability")
struct DurabilityTests {
    @Test(
        "kill -9 after BeginSession: the restarted daemon restores the session, its object and expiry, and the callback completes"
    )
    func killAfterBegin() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(extra: [("ttl", .uint32(120))])
        let expiresBefore = try h.app.call(
            "Get", [.string(API.sessionInterface.rawValue), .string("ExpiresAt")], path: path,
            interface: API.propertiesInterface.rawValue)
        h.daemon.stop(signal: SIGKILL)
        try h.restartDaemon()
        #expect(try h.app.counter("sessions_restored") == 1)
        #expect(try h.app.status(path) == "pending")
        #expect(
            try h.app.call(
                "Get", [.string(API.sessionInterface.rawValue), .string("ExpiresAt")], path: path,
                interface: API.propertiesInterface.rawValue) == expiresBefore)
        let r = try h.desktop.xdgOpen("com.example.app:/callback?code=after-crash&state=\(Harness.state(of: url))")
        #expect(r.status == 0, "\(r.errorText)")
        // Still the owner: the app's connection never left the bus.
        let result = try h.app.wait(path)
        #expect(result["code"] == "after-crash" && result["code_verifier"] != nil)
    }

    @Test(
        "kill -9 between the callback and Wait: the result survives until its owner acknowledges it; a replay stays refused (P1)"
    )
    func killAfterCallback() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let uri = "com.example.app:/callback?code=kept&state=\(Harness.state(of: url))"
        #expect(try h.app.route(uri) == "completed")
        h.daemon.stop(signal: SIGKILL)
        try h.restartDaemon()
        try h.expectRefusal(errorPrefix + "Replayed") { _ = try h.app.route(uri) }
        #expect(try h.app.wait(path)["code"] == "kept")
        // Until the owner says it has it: a reply cannot be confirmed (issue 13 §1).
        #expect(try h.app.wait(path)["code"] == "kept")
        _ = try h.app.call("Acknowledge", path: path, interface: API.sessionInterface.rawValue)
        #expect(errorName { _ = try h.app.wait(path) } == errorPrefix + "AlreadyDelivered")
        // Acknowledged means wiped, on disk too.
        h.daemon.stop()
        let db = h.desktop.runtimeDir + "/linkrouter/sessions.sqlite3"
        let dump = try h.desktop.run(["sh", "-c", "cat '\(db)' '\(db)-wal' 2>/dev/null | grep -c kept || true"])
        #expect(dump.text == "0\n")
    }

    @Test(
        "owners that left while the daemon was down: their sessions come back cancelled, recorded so, and refuse their callbacks"
    )
    func ownersGoneWhileDown() throws {
        let h = try Harness()
        var gone: BusClient? = try h.client()
        let started = try (0..<3).map { _ in try gone!.beginQuiet() }
        let (keptPath, keptURL) = try h.app.beginQuiet()
        h.daemon.stop(signal: SIGKILL)
        gone = nil
        try h.restartDaemon()
        #expect(try h.app.counter("sessions_restored") == 4)
        for (path, _) in started { #expect(try h.app.status(path) == "cancelled") }
        #expect(try h.app.status(keptPath) == "pending", "a session whose owner is still on the bus is untouched")
        // Recorded, not only decided: the rows say so after another crash.
        h.daemon.stop(signal: SIGKILL)
        let db = h.desktop.runtimeDir + "/linkrouter/sessions.sqlite3"
        let rows = try h.desktop.run([
            "sqlite3", db, "SELECT status, count(*) FROM sessions GROUP BY status ORDER BY status",
        ])
        #expect(rows.text == "cancelled|3\npending|1\n", "\(rows.errorText)")
        try h.restartDaemon()
        #expect(try h.app.allSessions().filter { $0.status == "pending" }.count == 1)
        _ = try h.expectRefusal(errorPrefix + "Cancelled") {
            _ = try h.app.route("com.example.app:/callback?code=late&state=\(Harness.state(of: started[0].1))")
        }
        #expect(try h.app.route("com.example.app:/callback?code=ok&state=\(Harness.state(of: keptURL))") == "completed")
    }

    @Test("a restarted client claims its session back with its token")
    func clientRestart() throws {
        let h = try Harness()
        let token = Base64URL.encode([UInt8](repeating: 7, count: 32))
        var first: BusClient? = try h.client()
        let (path, url) = try first!.beginQuiet(extra: [("claim_token", .string(token))])
        first = nil
        h.daemon.stop(signal: SIGKILL)
        try h.restartDaemon()
        let second = try h.client()
        #expect(errorName { _ = try second.wait(path, timeoutMilliseconds: 100) } == errorPrefix + "AccessDenied")
        _ = try second.call("Claim", [.string(token)], path: path, interface: API.sessionInterface.rawValue)
        _ = try h.desktop.xdgOpen("com.example.app:/callback?code=claimed&state=\(Harness.state(of: url))")
        #expect(try second.wait(path)["code"] == "claimed")
    }

    @Test("expiry is restored: a session whose ttl passed while the daemon was down comes back expired")
    func expiryAcrossRestart() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(extra: [("ttl", .uint32(60))])
        h.daemon.stop(signal: SIGKILL)
        // The minute passes while the daemon is down: the stored times say so.
        let db = h.desktop.runtimeDir + "/linkrouter/sessions.sqlite3"
        let aged = try h.desktop.run([
            "sqlite3", db, "UPDATE sessions SET created_at = created_at - 61, expires_at = expires_at - 61",
        ])
        #expect(aged.status == 0, "\(aged.errorText)")
        try h.restartDaemon()
        #expect(eventually { (try? h.app.status(path)) == "expired" })
        try h.expectRefusal(errorPrefix + "Expired") {
            _ = try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))")
        }
    }

    @Test("a loopback session is restored with its listener on the same port")
    func loopbackRestored() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet(redirect: "http://127.0.0.1/callback")
        let redirect = try PercentEncoding.decode(Substring(url.queryValue("redirect_uri")!), form: true)
        h.daemon.stop(signal: SIGKILL)
        try h.restartDaemon()
        let r = try h.desktop.run([
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
            redirect + "?code=loop&state=\(Harness.state(of: url))",
        ])
        #expect(r.text == "200")
        #expect(try h.app.wait(path)["code"] == "loop")
    }

    @Test("D-Bus activation: with no daemon running, the first link click starts it and is routed")
    func activation() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop, activation: true)
        try desktop.addBrowser(Harness.browser)
        #expect(try desktop.linkctl("register", "com.example.app").status == 0)
        // A session begun by a daemon that is gone now (stopped, not running).
        var first: DaemonProcess? = try DaemonProcess(desktop: desktop)
        let app = try BusClient(bus.address)
        let (path, url) = try app.beginQuiet()
        first?.stop()
        first = nil
        try bus.installService(bindir: Paths.bin)
        let r = try desktop.xdgOpen("com.example.app:/callback?code=activated&state=\(Harness.state(of: url))")
        #expect(r.status == 0, "\(r.errorText)")
        #expect(try app.wait(path)["code"] == "activated")
        #expect(DaemonProcess.nameHasOwner(app.connection))
        // And `linkctl status` activates it the same way.
        #expect(try desktop.linkctl("status").status == 0)
        withExtendedLifetime(bus) {}
    }

    @Test(
        "no daemon and no activation: the link is queued, then routed exactly once when the daemon starts",
        arguments: [false, true])
    func queue(_ noBusAtAll: Bool) throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        h.daemon.stop()
        let link = "com.example.app:/callback?code=queued&state=\(Harness.state(of: url))"
        if noBusAtAll {
            h.desktop.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + h.desktop.root + "/nothing-here"
        }
        let r = try h.desktop.xdgOpen(link)
        #expect(r.status == 0, "\(r.errorText)")
        #expect(r.errorText.contains("queued the link"))
        let inbox = h.desktop.runtimeDir + "/linkrouter/inbox"
        let entries = FileSystem.list(inbox)
        #expect(entries.count == 1)
        #expect(FileSystem.status(inbox)?.permissions == 0o700)
        #expect(FileSystem.status(inbox + "/" + entries[0])?.permissions == 0o600)
        #expect(try FileSystem.readText(inbox + "/" + entries[0]) == link + "\n")
        h.desktop.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = nil
        try h.restartDaemon()
        #expect(try h.app.wait(path)["code"] == "queued")
        #expect(eventually { FileSystem.list(inbox).isEmpty })
        #expect(try h.app.counter("inbox_links") == 1)
        #expect(try h.app.counter("links_routed") == 1, "the queued link was routed once")
        // A link queued while the daemon runs is taken at once.
        let (p2, u2) = try h.app.beginQuiet()
        try FileSystem.writeAtomically(
            inbox + "/00000000000000000001-1-x.link",
            text: "com.example.app:/callback?code=live&state=\(Harness.state(of: u2))\n")
        #expect(try h.app.wait(p2)["code"] == "live")
    }

    @Test("a burst of 100 parallel linkctl open for 100 sessions: each routed exactly once")
    func burst() throws {
        let h = try Harness(daemonArguments: ["--max-pending-per-client", "200"])
        let sessions = try (0..<100).map { _ in try h.app.beginQuiet() }
        let pids = try sessions.enumerated().map { i, s in
            try Subprocess.spawn(
                [
                    Paths.linkctl, "open", "--",
                    "com.example.app:/callback?code=c\(i)&state=\(Harness.state(of: s.url))",
                ],
                environment: h.desktop.environment, stdout: .file(h.desktop.root + "/burst.\(i).out"),
                stderr: .file(h.desktop.root + "/burst.err"))
        }
        let statuses = pids.map { Subprocess.wait($0, timeoutMilliseconds: 60_000) }
        #expect(statuses.allSatisfy { $0 == 0 }, "\((try? FileSystem.readText(h.desktop.root + "/burst.err")) ?? "")")
        // Each click was answered "completed" (a second delivery would have been refused as a replay).
        for i in 0..<100 { #expect(try FileSystem.readText(h.desktop.root + "/burst.\(i).out") == "completed\n") }
        for (i, s) in sessions.enumerated() { #expect(try h.app.wait(s.path)["code"] == "c\(i)") }
        #expect(FileSystem.list(h.desktop.runtimeDir + "/linkrouter/inbox").isEmpty)
    }

    @Test("a corrupted store is moved aside with a clear log line; the daemon starts fresh (P2)")
    func corrupted() throws {
        let h = try Harness()
        _ = try h.app.beginQuiet()
        h.daemon.stop()
        let db = h.desktop.runtimeDir + "/linkrouter/sessions.sqlite3"
        for suffix in ["-wal", "-shm"] { try? FileSystem.remove(db + suffix) }
        try FileSystem.writeAtomically(db, text: String(repeating: "garbage ", count: 1000), permissions: 0o600)
        try h.restartDaemon()
        #expect(
            FileSystem.list(h.desktop.runtimeDir + "/linkrouter").contains { $0.hasPrefix("sessions.sqlite3.corrupt-") }
        )
        let (path, url) = try h.app.beginQuiet()
        #expect(try h.app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: url))") == "completed")
        #expect(try h.app.wait(path)["code"] == "c")
    }

    @Test(
        "a full disk: BeginSession fails before any browser opens, a callback is acknowledged only if recorded, the daemon stays up (P6)"
    )
    func diskFull() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        try desktop.addBrowser(Harness.browser)
        let app = try BusClient(bus.address)
        // Start with room for the store, and little more: the next writes fill the disk.
        let disk = try FullDisk(desktop: desktop, kilobytes: 200, log: desktop.root + "/d.log")
        #expect(eventually { DaemonProcess.nameHasOwner(app.connection) })
        var begun: [(path: String, url: String)] = []
        let padded =
            BeginSessionRefusalTests.good + [
                ("open_browser", .boolean(false)),
                ("extra_params", .stringDict([("pad", String(repeating: "p", count: 1500))])),
            ]
        /// Sessions as large as the one refused (a smaller one might fit in what is left), until one is refused.
        func fill() -> DBusError? {
            for _ in 0..<400 {
                do { begun.append(try app.begin(padded)) } catch { return error }
            }
            return nil
        }
        #expect(fill()?.name == errorPrefix + "StorageFailed")
        // Refused again while the disk stays full. A checkpoint may give a little
        // back between two calls (seen under load): then the next begins fill it
        // again, and the refusal that follows is StorageFailed too, never another error.
        #expect(fill()?.name == errorPrefix + "StorageFailed")
        // A callback is acknowledged only if it was recorded (a small update may still fit).
        let first = try #require(begun.first)
        let routed = dbusError {
            _ = try app.route("com.example.app:/callback?code=c&state=\(Harness.state(of: first.url))")
        }
        let status = try app.status(first.path)
        #expect(
            routed == nil
                ? status == "completed" : routed?.name == errorPrefix + "StorageFailed" && status == "pending",
            "\(String(describing: routed)) \(status)")
        #expect(try app.counter("browsers_started") == 0)
        #expect(desktop.invocations(Harness.browser).isEmpty)
        #expect(app.ping())
        _ = disk
    }

    @Test(
        "a read-only runtime directory: BeginSession is refused with StorageFailed, links still pass through (P6)",
        .enabled(if: geteuid() == 0, "mounting a read-only tmpfs needs root"))
    func readOnly() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        try desktop.addBrowser(Harness.browser)
        let dir = desktop.runtimeDir + "/linkrouter"
        try FileSystem.makeDirectories(dir, permissions: 0o700)
        let mount = try Subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,mode=0700,size=64k", "tmpfs", dir])
        try #require(mount.status == 0, "mount failed: \(mount.errorText)")
        defer { _ = try? Subprocess.run(["umount", "-l", dir]) }
        let daemon = try DaemonProcess(desktop: desktop)
        let app = try BusClient(bus.address)
        let store = try app.call(
            "Get", [.string(API.managerInterface.rawValue), .string("Store")],
            interface: API.propertiesInterface.rawValue)
        #expect(store.first?.variantValue?.stringValue?.hasPrefix("unavailable: ") == true, "\(store)")
        let e = try #require(dbusError { _ = try app.begin(BeginSessionRefusalTests.good) })
        #expect(e.name == errorPrefix + "StorageFailed" && e.message.contains("nothing was started"))
        #expect(try app.counter("browsers_started") == 0)
        #expect(try app.route("https://example.org/page") == "passthrough")
        #expect(desktop.waitForBrowser(Harness.browser) == ["https://example.org/page"])
        #expect(daemon.isRunning)
    }

    @Test("file modes: runtime directory 0700, store 0600; a symlinked store is not followed (P3)")
    func modes() throws {
        let h = try Harness()
        _ = try h.app.beginQuiet()
        let dir = h.desktop.runtimeDir + "/linkrouter"
        #expect(FileSystem.status(dir)?.permissions == 0o700)
        for f in ["sessions.sqlite3", "sessions.sqlite3-wal", "sessions.sqlite3-shm"] {
            #expect(FileSystem.status(dir + "/" + f)?.permissions == 0o600, "\(f)")
        }
        h.daemon.stop()
        let db = dir + "/sessions.sqlite3"
        for suffix in ["", "-wal", "-shm"] { try? FileSystem.remove(db + suffix) }
        let target = h.desktop.root + "/victim"
        try FileSystem.writeAtomically(target, text: "precious", permissions: 0o600)
        try FileSystem.symlink(target, at: db)
        try h.restartDaemon()
        #expect(try FileSystem.readText(target) == "precious")
        #expect(FileSystem.status(db)?.kind == .regular)
        // The symlink itself was moved aside, not followed.
        #expect(
            FileSystem.list(dir).contains {
                $0.hasPrefix("sessions.sqlite3.corrupt-") && FileSystem.status(dir + "/" + $0)?.kind == .symlink
            })
    }
}
