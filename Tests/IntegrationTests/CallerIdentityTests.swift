import DesktopIntegration
import Foundation
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// The app behind a caller (issue 21): found out after `BeginSession`
/// (GetConnectionCredentials → the process → its `/.flatpak-info`, its Snap
/// label or cgroup, or the host), recorded on the session's owner, shown by
/// `OwnerApp` and `linkctl sessions`. Nothing is decided on it yet.
@Suite("The caller's app")
struct CallerIdentityTests {
    /// The JSON lines a fixture printed so far.
    static func lines(_ path: String) -> [[String: Any]] {
        ((try? FileSystem.readText(path)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    @Test(
        "a Flatpak-made app (bubblewrap, /.flatpak-info, its bus through xdg-dbus-proxy) is recorded as flatpak:ID; its result still goes to it alone",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func flatpak() throws {
        let h = try Harness()
        let sandbox = try FlatpakSandbox(desktop: h.desktop, appID: "org.example.SandboxedApp")
        let bus = try sandbox.startProxy(talk: [API.busName.rawValue])
        let out = h.desktop.root + "/sandboxed.out"
        let pid = try Subprocess.spawn(
            sandbox.command([
                "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + bus, "/usr/bin/python3",
                Paths.fixtures + "/sandbox_begin.py",
            ]),
            environment: h.desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        defer {
            Subprocess.stop(pid, name: "the sandboxed caller")
        }
        try #require(
            eventually(timeoutMilliseconds: 15_000) { !Self.lines(out).isEmpty },
            "\((try? FileSystem.readText(out + ".err")) ?? "")")
        let begun = Self.lines(out)[0]
        let path = try #require(begun["session"] as? String)
        let url = try #require(begun["url"] as? String)
        #expect(
            try eventually { try h.app.sessionProperty("OwnerApp", of: path) == "flatpak:org.example.SandboxedApp" })
        let row = try h.desktop.linkctl("sessions", "--json")
        #expect(row.text.contains("\"owner_app\":\"flatpak:org.example.SandboxedApp\""))
        // The test's own session, begun from the host, is the host's.
        let (mine, _) = try h.app.beginQuiet()
        #expect(try eventually { try h.app.sessionProperty("OwnerApp", of: mine) == "host" })
        // The callback completes the sandboxed app's session, and its Wait (through the proxy) hears the code.
        #expect(
            try h.app.route("com.example.app:/callback?code=sandboxed-code&state=\(Harness.state(of: url))")
                == "completed")
        #expect(eventually(timeoutMilliseconds: 15_000) { Self.lines(out).count >= 2 })
        let result = try #require(Self.lines(out).last?["result"] as? [String: Any], "\(Self.lines(out))")
        #expect((result["code"] as? String)?.contains("sandboxed-code") == true)
        #expect(try h.app.status(mine) == "pending", "the other session is untouched")
        #expect(h.app.ping())
    }

    @Test(
        "a daemon in a user namespace of its own (systemd's PrivateUsers=, a container) cannot enter its callers' roots: a sandboxed app and the host alike are unknown, never the host, and get none of the user's accounts",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func ownUserNamespace() throws {
        let desktop = try TestDesktop()
        let bus = try PrivateBus(desktop: desktop)
        try desktop.addBrowser(Harness.browser)
        // What PrivateUsers=yes does to a unit: a user namespace whose only member is the daemon.
        let daemon = try DaemonProcess(
            desktop: desktop, arguments: ["--user", "--map-root-user", "--", Paths.linkrouterd],
            executable: "/usr/bin/unshare")
        #expect(daemon.log.contains("runs in a user namespace other than the initial one"))
        #expect(try desktop.linkctl("register", "com.example.app").status == 0)
        #expect(
            try desktop.linkctl("account", "add", "work", "--issuer", "https://id.example.com", "--client-id", "app")
                .status == 0)
        let app = try BusClient(bus.address)
        let (mine, _) = try app.beginQuiet()
        #expect(
            try eventually { try app.sessionProperty("OwnerApp", of: mine) == "unknown" },
            "the host is not known for the host either")

        let sandbox = try FlatpakSandbox(desktop: desktop, appID: "org.example.Curious")
        let proxied = try sandbox.startProxy(talk: [API.busName.rawValue])
        let inside = try desktop.run(
            sandbox.command([
                "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + proxied, Paths.linkctl, "accounts", "--json",
            ]))
        #expect(
            inside.status == 0 && !inside.text.contains("\"work\""),
            "a sandboxed app sees the user's account: \(inside.text) \(inside.errorText)")
        let token = try desktop.run(
            sandbox.command(["/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + proxied, Paths.linkctl, "token", "work"]))
        #expect(token.status != 0 && token.text.isEmpty, "\(token.text)")
        #expect(app.ping())
        withExtendedLifetime(daemon) {}
    }

    @Test(
        "the zombie trick: a child in a Flatpak-made sandbox connects to the bus, hands the socket to its parent and stays unreaped; the parent's GetToken for the person's account is refused as unknown (no token, no prompt, never the host's); the same caller without the trick is identified as its app (the control: asked about, AccessDenied with no one to ask); the daemon stays up",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func zombie() throws {
        let w = try AccountTests.World()
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let sandbox = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Zombie")
        let socket = try #require(w.desktop.busAddress?.split(separator: "=", maxSplits: 1).last.map(String.init))
        func call(trick: Bool) throws -> Subprocess.Outcome {
            try w.desktop.run(
                sandbox.command(
                    [
                        "/usr/bin/python3", Paths.fixtures + "/zombie_caller.py", "--socket", socket, "--account",
                        "work",
                    ] + (trick ? ["--trick"] : [])))
        }
        let tricked = try call(trick: true)
        #expect(
            tricked.status == 1 && tricked.text.contains("UnknownAccount") && !tricked.text.contains("token\n"),
            "\(tricked.status) \(tricked.text) \(tricked.errorText)")
        let control = try call(trick: false)
        #expect(
            control.status == 1 && control.text.contains("AccessDenied")
                && control.text.contains("no one could be asked"),
            "\(control.status) \(control.text) \(control.errorText)")
        #expect(try w.desktop.linkctl("token", "work").status == 0, "the daemon is up")
    }

    @Test(
        "a connection older than the daemon whose pid a host process took after the daemon began watching the bus is unknown, never the host (issue 44): the bound is when the daemon began watching, not the moment of its first call",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"),
        .enabled(if: geteuid() == 0, "choosing the next pid (/proc/sys/kernel/ns_last_pid) needs root"))
    func reusedPidOlderThanDaemon() throws {
        let w = try AccountTests.World()
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        _ = w.daemon.stop()
        // Inside an app's sandbox, a child connects to the bus, hands the socket over and is reaped: the bus keeps
        // its pid for the connection, which is now older than any daemon.
        let sandbox = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Reuser")
        let socket = try #require(w.desktop.busAddress?.split(separator: "=", maxSplits: 1).last.map(String.init))
        let go = w.desktop.root + "/go"
        let out = w.desktop.root + "/reuser.out"
        let caller = try Subprocess.spawn(
            sandbox.command([
                "/usr/bin/python3", Paths.fixtures + "/zombie_caller.py", "--socket", socket, "--account", "work",
                "--trick", "--reap", go,
            ]), environment: w.desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        let pid = try #require(
            eventuallyValue(timeoutMilliseconds: 20_000) {
                ((try? FileSystem.readText(out)) ?? "").split(separator: "\n").first { $0.hasPrefix("pid ") }
                    .flatMap { Int32($0.dropFirst(4)) }
            }, "\((try? FileSystem.readText(out + ".err")) ?? "")")
        // The daemon starts (and watches names from now), then a host program of the user takes the pid.
        w.daemon = try DaemonProcess(desktop: w.desktop, arguments: ["--system-accounts-dir", w.systemAccounts])
        var taker: Int32?
        for _ in 0..<500 where taker == nil {
            // The kernel gives the next process ns_last_pid + 1 (another test forking meanwhile takes it: again). A
            // process of another test's that took the pid first holds it until it exits: wait for that.
            _ = eventually(timeoutMilliseconds: 10_000) { kill(pid, 0) != 0 }
            let fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)
            let text = "\(pid - 1)"
            #expect(fd >= 0 && write(fd, text, text.utf8.count) == text.utf8.count)
            close(fd)
            let p = try Subprocess.spawn(["/bin/sleep", "120"], environment: w.desktop.environment)
            if p == pid { taker = p } else { Subprocess.stop(p, name: "sleep") }
        }
        let host = try #require(taker, "no process took pid \(pid)")
        defer { Subprocess.stop(host, name: "sleep") }
        try FileSystem.writeAtomically(go, text: "", permissions: 0o600)
        Subprocess.wait(caller, timeoutMilliseconds: 60_000)
        let said = (try? FileSystem.readText(out)) ?? ""
        #expect(
            said.contains("UnknownAccount") && !said.contains("token\n"),
            "the reused pid read as the host: \(said) \((try? FileSystem.readText(out + ".err")) ?? "")")
        #expect(try w.desktop.linkctl("token", "work").status == 0, "the daemon is up")
    }

    @Test(
        "what /proc says: a Flatpak id only when it is a valid app id, a runtime is no app, Snap by label or cgroup, else the host only for a live process of the connection's uid that started by the time its name appeared; a gone, zombie, later-started or other-uid process or an unreadable file is unknown"
    )
    func fromProc() throws {
        let dir = TestDirectory()
        let me = UInt32(getuid())
        // A running process of this user, unless `files` says otherwise (its stat, its status).
        func process(_ pid: Int, files: [String: String]) throws {
            try FileSystem.makeDirectories(dir.path + "/\(pid)/root", permissions: 0o700)
            try FileSystem.makeDirectories(dir.path + "/\(pid)/attr", permissions: 0o700)
            let running = [
                "stat": "\(pid) (some (prog)) S 1 \(pid) \(pid) 0 -1\n",
                "status": "Name:\tprog\nUid:\t\(me)\t\(me)\t\(me)\t\(me)\n",
            ]
            for (name, text) in running.merging(files, uniquingKeysWith: { $1 }) {
                try FileSystem.writeAtomically(dir.path + "/\(pid)/" + name, text: text, permissions: 0o600)
            }
        }
        try process(10, files: ["root/.flatpak-info": "[Application]\nname=org.example.App\n"])
        try process(11, files: ["root/.flatpak-info": "[Application]\nname=notanid\n"])
        try process(
            12, files: ["root/.flatpak-info": "[Runtime]\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n"])
        try process(13, files: ["attr/current": "snap.firefox.firefox (enforce)\n"])
        try process(
            14,
            files: [
                "cgroup":
                    "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.chromium.chromium-1234.scope\n"
            ])
        try process(15, files: ["attr/current": "unconfined\n", "cgroup": "0::/user.slice/session-2.scope\n"])
        #expect(CallerApps.app(ofProcess: 10, uid: me, procRoot: dir.path) == .flatpak("org.example.App"))
        #expect(CallerApps.app(ofProcess: 11, uid: me, procRoot: dir.path) == .unknown)
        #expect(CallerApps.app(ofProcess: 12, uid: me, procRoot: dir.path) == .unknown)
        #expect(CallerApps.app(ofProcess: 13, uid: me, procRoot: dir.path) == .snap("firefox"))
        #expect(CallerApps.app(ofProcess: 14, uid: me, procRoot: dir.path) == .snap("chromium"))
        #expect(CallerApps.app(ofProcess: 15, uid: me, procRoot: dir.path) == .host)
        #expect(CallerApps.app(ofProcess: 16, uid: me, procRoot: dir.path) == .unknown)
        // A .flatpak-info that cannot be read (here a directory) is not knowing, never the host.
        try process(17, files: [:])
        try FileSystem.makeDirectories(dir.path + "/17/root/.flatpak-info", permissions: 0o700)
        #expect(CallerApps.app(ofProcess: 17, uid: me, procRoot: dir.path) == .unknown)
        // Fails closed (issue 36): no .flatpak-info is the host only for a live process of the connection's uid. A
        // zombie (its root gone, so no file) or a dead one, a process of another uid (a pid reused), a uid the bus did
        // not give: not knowing.
        try process(18, files: ["stat": "18 (zombie) Z 1 18 18 0 -1\n"])
        try process(19, files: ["stat": "19 (dead) X 1 19 19 0 -1\n"])
        try process(20, files: ["status": "Name:\tother\nUid:\t\(me + 1)\t\(me + 1)\t\(me + 1)\t\(me + 1)\n"])
        try process(21, files: [:])
        #expect(CallerApps.app(ofProcess: 18, uid: me, procRoot: dir.path) == .unknown)
        #expect(CallerApps.app(ofProcess: 19, uid: me, procRoot: dir.path) == .unknown)
        #expect(CallerApps.app(ofProcess: 20, uid: me, procRoot: dir.path) == .unknown)
        #expect(CallerApps.app(ofProcess: 21, uid: nil, procRoot: dir.path) == .unknown)
        #expect(CallerApps.app(ofProcess: 21, uid: me, procRoot: dir.path) == .host, "the control: alive, this uid")
        // A zombie's .flatpak-info is not read either: a process that is gone names no app.
        try process(
            22,
            files: ["stat": "22 (z) Z 1 22 22 0 -1\n", "root/.flatpak-info": "[Application]\nname=org.example.App\n"])
        #expect(CallerApps.app(ofProcess: 22, uid: me, procRoot: dir.path) == .unknown)
        // Started after its connection's name appeared: another process on a reused pid, not knowing. Started in
        // the same clock tick or before: the one that connected. (starttime is field 22, in ticks of 1/CLK_TCK s.)
        let tick = Int64(sysconf(Int32(_SC_CLK_TCK)))
        func started(_ pid: Int, ticks: Int64) throws {
            let fields = (4...21).map { _ in "0" }.joined(separator: " ")
            try process(pid, files: ["stat": "\(pid) (some (prog)) S \(fields) \(ticks) 0 0\n"])
        }
        try started(23, ticks: 500 * tick)
        #expect(CallerApps.startTicks(dir.path + "/23") == 500 * tick)
        #expect(CallerApps.app(ofProcess: 23, uid: me, appearedAt: 499_000, procRoot: dir.path) == .unknown)
        #expect(CallerApps.app(ofProcess: 23, uid: me, appearedAt: 500_000, procRoot: dir.path) == .host)
        #expect(CallerApps.app(ofProcess: 23, uid: me, appearedAt: 600_000, procRoot: dir.path) == .host)
        // A bound the name appeared before (the daemon began watching then) is strict: the same tick is too late.
        #expect(
            CallerApps.app(ofProcess: 23, uid: me, appearedAt: 500_000, strictly: true, procRoot: dir.path) == .unknown)
        #expect(
            CallerApps.app(ofProcess: 23, uid: me, appearedAt: 510_000, strictly: true, procRoot: dir.path) == .host)
        // A host program's name for a prompt: its scope's app id, else its executable, else its comm.
        try process(
            25,
            files: [
                "cgroup":
                    "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-4242.scope\n"
            ])
        #expect(CallerApps.program(ofProcess: 25, procRoot: dir.path) == "org.gnome.Terminal")
        try process(26, files: ["cgroup": "0::/user.slice/session-2.scope\n", "comm": "git\u{1b}[31m\n"])
        #expect(
            CallerApps.program(ofProcess: 26, procRoot: dir.path) == "git\\u{1b}[31m", "escaped, as every shown text")
        try process(24, files: ["stat": "24 (x) S 1\n"])
        #expect(
            CallerApps.app(ofProcess: 24, uid: me, appearedAt: 600_000, procRoot: dir.path) == .unknown, "no start time"
        )
    }
}
