import DBusKit
import LinkRouterAPI
import LinkRouterCore
import SystemKit

/// One test's world: a desktop, a private bus, a running linkrouterd, an app
/// connection, and the scheme `com.example.app` registered with linkctl.
final class Harness {
    let desktop: TestDesktop
    let bus: PrivateBus
    var daemon: DaemonProcess
    let app: BusClient
    static let browser = "standin.desktop"

    init(daemonArguments: [String] = [], register: Bool = true, browser: Bool = true, activation: Bool = false) throws {
        desktop = try TestDesktop()
        bus = try PrivateBus(desktop: desktop, activation: activation)
        if browser { try desktop.addBrowser(Self.browser) }
        daemon = try DaemonProcess(desktop: desktop, arguments: daemonArguments)
        app = try BusClient(bus.address)
        if register {
            let r = try desktop.linkctl("register", "com.example.app")
            guard r.status == 0 else { throw SystemError("linkctl register failed: \(r.errorText)", code: 1) }
        }
    }

    func client() throws -> BusClient { try BusClient(bus.address) }

    /// Restarts the daemon (after a crash or a stop).
    func restartDaemon(arguments: [String] = []) throws {
        daemon.stop()
        daemon = try DaemonProcess(
            desktop: desktop, arguments: arguments, logName: "linkrouterd.\(Clock.monotonicNanoseconds()).log")
    }

    /// True while the daemon is up and answering on the bus.
    var daemonAnswers: Bool { daemon.isRunning && app.ping() }

    /// The state a session was begun with, read from its authorize URL.
    static func state(of url: String) -> String { url.queryValue("state")! }
}
