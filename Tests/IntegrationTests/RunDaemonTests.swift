import DBusKit
import Glibc
import SystemKit
import Testing

/// `scripts/run-daemon`, the README's first command, on a machine with no
/// session bus: the private bus it starts outlives the daemon, so a keyring,
/// a notification server and clients on it are still there when the daemon
/// runs again, which reuses it, not doubled (issues 13 §6, 47).
@Suite("scripts/run-daemon")
struct RunDaemonTests {
    /// The script's environment: the test desktop with no session bus at all,
    /// and the built binaries (nothing is compiled).
    func environment(_ desktop: TestDesktop) -> [String] {
        desktop.environment.filter { !$0.hasPrefix("DBUS_SESSION_BUS_ADDRESS=") && !$0.hasPrefix("PATH=") }
            + ["LINKROUTER_BIN_DIR=" + Paths.bin, "PATH=/opt/swift/usr/bin:/usr/local/bin:/usr/bin:/bin"]
    }

    func start(_ desktop: TestDesktop) throws -> Int32 {
        try Subprocess.spawn(
            [Paths.root + "/scripts/run-daemon"], environment: environment(desktop), detached: true,
            stdout: .file(desktop.root + "/run-daemon.log"), stderr: .file(desktop.root + "/run-daemon.log"))
    }

    func daemonAnswers(on address: String) -> Bool {
        guard let c = try? DBusConnection(address: address) else { return false }
        return DaemonProcess.nameHasOwner(c)
    }

    func alive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 }

    @Test(
        "the bus it started outlives the daemon, on SIGTERM and on Ctrl-C (SIGINT): a client on it stays connected, and the next run-daemon reuses it",
        arguments: [SIGTERM, SIGINT])
    func busOutlivesTheDaemon(_ signal: Int32) throws {
        let desktop = try TestDesktop()
        let socket = desktop.runtimeDir + "/linkrouter-bus"
        let script = try start(desktop)
        #expect(
            eventually(timeoutMilliseconds: 30_000) { daemonAnswers(on: "unix:path=" + socket) },
            "\((try? FileSystem.readText(desktop.root + "/run-daemon.log")) ?? "")")
        let bus = try #require(Int32((try FileSystem.readText(socket + ".pid")).filter(\.isNumber)))
        defer { kill(bus, SIGTERM) }
        // A client of the person's on that bus (a keyring, a notification server, an app).
        let client = try DBusConnection(address: "unix:path=" + socket)
        // Ctrl-C reaches the whole foreground process group; SIGTERM (systemd, kill) the script.
        kill(signal == SIGINT ? -script : script, signal)
        #expect(
            Subprocess.wait(script, timeoutMilliseconds: 15_000) == 0,
            "\((try? FileSystem.readText(desktop.root + "/run-daemon.log")) ?? "")")
        #expect(alive(bus), "the private bus went with the daemon")
        #expect(!DaemonProcess.nameHasOwner(client), "the daemon stopped")
        #expect(client.nameHasOwner("org.freedesktop.DBus"), "the client lost its bus")
        let again = try start(desktop)
        #expect(eventually(timeoutMilliseconds: 30_000) { DaemonProcess.nameHasOwner(client) })
        #expect(try FileSystem.readText(desktop.root + "/run-daemon.log").contains("reusing the private bus"))
        #expect(Subprocess.stop(again, name: "scripts/run-daemon", graceMilliseconds: 15_000) == 0)
    }

    @Test("a private bus still alive from an earlier run is reused, and left running")
    func reusesALiveBus() throws {
        let desktop = try TestDesktop()
        let socket = desktop.runtimeDir + "/linkrouter-bus"
        let earlier = try Subprocess.run(
            ["dbus-daemon", "--session", "--fork", "--print-pid=1", "--address=unix:path=" + socket],
            environment: environment(desktop))
        let bus = try #require(Int32(earlier.text.filter(\.isNumber)))
        defer { kill(bus, SIGTERM) }
        let script = try start(desktop)
        #expect(eventually(timeoutMilliseconds: 30_000) { daemonAnswers(on: "unix:path=" + socket) })
        #expect(try FileSystem.readText(desktop.root + "/run-daemon.log").contains("reusing the private bus"))
        #expect(Subprocess.stop(script, name: "scripts/run-daemon", graceMilliseconds: 15_000) == 0)
        #expect(alive(bus), "a bus the script did not start is not its to stop")
        #expect(!daemonAnswers(on: "unix:path=" + socket), "the daemon stopped")
    }
}
