import DBusKit
import LinkRouterAPI
import SystemKit

/// An app on the bench bus.
final class BenchClient {
    let c: DBusConnection
    init(_ address: String) throws { c = try DBusConnection(address: address) }

    func call(
        _ member: MemberName, _ args: [DBusValue] = [], path: ObjectPath = API.managerPath,
        interface: InterfaceName = API.managerInterface
    ) throws -> [DBusValue] {
        let m = DBusMessage.methodCall(API.busName, path, interface, member)
        try m.append(contentsOf: args)
        return try c.callArguments(m, timeoutMilliseconds: 60_000)
    }

    /// `Peer.Ping`: answered once the daemon has done what the events before it set going.
    func ping() throws {
        _ = try call("Ping", interface: API.peerInterface)
    }

    /// Begins a quiet session; returns (path, state).
    func begin(scheme: String = "com.example.bench") throws -> (String, String) {
        let r = try call(
            "BeginSession",
            [
                .vardict([
                    ("authorization_endpoint", .string("https://auth.example.com/authorize")),
                    ("client_id", .string("bench")),
                    ("redirect_uri", .string(scheme + ":/cb")), ("open_browser", .boolean(false)),
                ])
            ])
        let url = r[1].stringValue!
        let q = url.split(separator: "&").first { $0.hasPrefix("state=") }!
        return (r[0].objectPathValue!.rawValue, String(q.dropFirst(6)))
    }

    /// A login callback clicked through `launcher` (in `environment`), timed from the
    /// launcher's start until the owner's `Wait` returns; the session is begun and
    /// waited for before the clock starts.
    func clickCallback(_ launcher: [String], environment: [String]) throws -> Double {
        let (path, state) = try begin()
        let serial = try sendWait(path)
        let t0 = Measure.now()
        let pid = try Subprocess.spawn(
            launcher + ["com.example.bench:/cb?code=c&state=" + state], environment: environment, stdout: .null,
            stderr: .null)
        guard awaitReply(serial) else { throw BenchError("Wait did not return after \(launcher[0])") }
        let ms = Double(Measure.now() - t0) / 1e6
        Subprocess.wait(pid, timeoutMilliseconds: 30_000)
        return ms
    }

    /// Sends `Wait(0)` without waiting for the answer; returns its serial.
    func sendWait(_ path: String) throws -> UInt32 {
        let m = DBusMessage.methodCall(API.busName, ObjectPath(path)!, API.sessionInterface, "Wait")
        try m.append(.uint32(0))
        try c.send(m)
        c.flush()
        return m.serial
    }

    /// Blocks until the reply to `serial` arrives.
    func awaitReply(_ serial: UInt32, timeoutMilliseconds: Int = 10_000) -> Bool {
        let deadline = Clock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        while Clock.monotonicMilliseconds() < deadline {
            if let m = c.nextMessage(timeoutMilliseconds: 1000), m.replySerial == serial {
                return m.kind == .methodReturn
            }
        }
        return false
    }
}
