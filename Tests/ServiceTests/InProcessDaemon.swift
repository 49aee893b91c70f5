import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import LinkRouterFiles
import SystemKit

@testable import LinkRouterService

/// The daemon's components, wired as `linkrouterd` wires them, in the test's
/// own process: a real `dbus-daemon` of the test's own, a real store in a
/// temporary directory, and a second connection that watches what the
/// daemon sends. Transitions are handed to the real executor directly, so
/// a test checks the executor's order itself, not a copy of it.
final class InProcessDaemon {
    let root: String
    let busPID: Int32
    let address: String
    let daemon: Daemon
    /// Another client on the bus: it sees the daemon's signals, in the order they were sent.
    let watcher: DBusConnection

    /// `maxPending`: the per-client and total limits on unfinished sessions, for a burst (the defaults otherwise).
    init(maxPending: Int? = nil) throws {
        var template = Array("/tmp/lr-inproc-XXXXXX".utf8CString)
        root = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
        try FileSystem.makeDirectories(root + "/run/linkrouter", permissions: 0o700)
        try FileSystem.makeDirectories(root + "/state", permissions: 0o700)
        address = "unix:path=" + root + "/bus.socket"
        try FileSystem.writeAtomically(
            root + "/bus.conf",
            text: """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <listen>\(address)</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
                </busconfig>

                """, permissions: 0o600)
        busPID = try Subprocess.spawn(
            ["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + root + "/bus.conf"],
            stdout: .file(root + "/bus.log"), stderr: .file(root + "/bus.log"))
        let deadline = Clock.monotonicMilliseconds() + 5000
        var connected: DBusConnection?
        while connected == nil && Clock.monotonicMilliseconds() < deadline {
            connected = try? DBusConnection(address: address)
            if connected == nil { Clock.sleep(milliseconds: 5) }
        }
        guard let watcher = connected else {
            throw SystemError("dbus-daemon did not start", path: root + "/bus.log", code: ETIMEDOUT)
        }
        self.watcher = watcher
        try watcher.addMatch("type='signal',path_namespace='\(API.sessionsPath.rawValue)'")
        // It is the desktop's notification service too, so `Effect.notify` reaches it.
        _ = try watcher.requestName("org.freedesktop.Notifications")
        var config = DaemonConfiguration(
            busAddress: address,
            paths: LinkRouterPaths(runtimeDirectory: root + "/run/linkrouter", stateDirectory: root + "/state"))
        config.maxRoutesPerSecond = 1000
        if let maxPending {
            config.limits.maxPendingPerOwner = maxPending
            config.limits.maxPendingTotal = maxPending
        }
        daemon = Daemon(config: config, connection: try DBusConnection(address: address), loop: EventLoop())
        daemon.sessions.openStore()
    }

    /// A pending session of the watcher's, begun as `BeginSession` begins one (no browser).
    func begin() throws -> Session {
        var request = SessionRequest()
        request.authorizationEndpoint = "https://auth.example.com/authorize"
        request.clientID = "demo"
        request.redirectURI = "com.example.app:/callback"
        request.openBrowser = false
        let t = daemon.core.router.beginSession(
            request, inputs: daemon.inputs(for: request, flow: .code), caller: watcher.uniqueName, login: false,
            now: daemon.now)
        let s = try requireSession(t)
        _ = daemon.execute(t)
        return s
    }

    private func requireSession(_ t: Transition) throws -> Session {
        guard let s = t.session else { throw SystemError("BeginSession was refused: \(t.reply)", code: EINVAL) }
        return s
    }

    /// What the watcher received from the daemon (signals, and `Notify` calls), in order, up to and
    /// including a barrier: a status signal for `barrier` that the daemon
    /// sends last (one connection's messages arrive in the order sent).
    func received(until barrier: SessionID) -> [(member: String, path: String)] {
        _ = daemon.execute(Transition(effects: [.emitStatus(barrier, .pending)]))
        daemon.bus.connection.flush()
        var out: [(String, String)] = []
        let deadline = Clock.monotonicMilliseconds() + 10_000
        while Clock.monotonicMilliseconds() < deadline {
            guard let m = watcher.nextMessage(timeoutMilliseconds: 1000), m.kind == .signal || m.kind == .methodCall,
                let member = m.member, let path = m.path
            else { continue }
            if path == API.path(of: barrier).rawValue { return out }
            out.append((member, path))
        }
        return out + [("timeout", "no barrier")]
    }

    /// Another process holding the store's write lock (as a second daemon or a
    /// backup tool might): the daemon's next write fails once SQLite's busy
    /// timeout has passed. The lock goes when the returned process is killed.
    func lockStore() throws -> Int32 {
        guard let path = daemon.sessions.store?.path else { throw SystemError("no store", code: ENOENT) }
        let out = root + "/locker.out"
        let pid = try Subprocess.spawn(
            [
                "python3", "-c",
                """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute('BEGIN IMMEDIATE')
                print('locked', flush=True)
                time.sleep(600)
                """, path,
            ], stdout: .file(out), stderr: .file(out + ".err"))
        let deadline = Clock.monotonicMilliseconds() + 10_000
        while Clock.monotonicMilliseconds() < deadline {
            if ((try? FileSystem.readText(out)) ?? "").hasPrefix("locked") { return pid }
            Clock.sleep(milliseconds: 5)
        }
        kill(pid, SIGKILL)
        throw SystemError(
            "could not lock the store: \((try? FileSystem.readText(out + ".err")) ?? "")", code: ETIMEDOUT)
    }

    /// The row the store holds for `id` now.
    func stored(_ id: SessionID) throws -> Session? {
        try daemon.sessions.store?.loadAll().sessions.first { $0.id == id }
    }

    deinit {
        Subprocess.stop(busPID, name: "dbus-daemon")
        _ = try? Subprocess.run(["rm", "-rf", root])
    }
}
