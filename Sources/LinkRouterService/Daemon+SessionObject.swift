import DBusKit
import LinkRouterAPI
import LinkRouterCore
import OpenSSLKit

/// The session objects' methods (`Interfaces.sessionTable`): each asks the
/// core for a transition and has it carried out.
extension Daemon: SessionHandlers {
    /// `Wait(timeout_ms)`: the result now, or the call held until the session finishes or the timeout passes.
    public func wait(_ id: SessionID, timeoutMilliseconds: UInt32, _ call: MethodCall) throws(DBusError) -> MethodReply
    {
        try answer(call, execute(core.router.wait(id, by: call.sender, timeoutMilliseconds: timeoutMilliseconds)))
    }

    /// `Acknowledge()`: the owner has the result; it is wiped now.
    public func acknowledge(_ id: SessionID, _ call: MethodCall) throws(DBusError) {
        _ = try answer(call, execute(core.router.acknowledge(id, by: call.sender)))
    }

    public func cancel(_ id: SessionID, _ call: MethodCall) throws(DBusError) {
        _ = try answer(call, execute(core.router.cancel(id, by: call.sender, now: now)))
    }

    /// `Claim(token)`: a restarted client takes its session back.
    public func claim(_ id: SessionID, token: String, _ call: MethodCall) throws(DBusError) {
        let digest: [UInt8]
        do { digest = try SHA256.hash(token) } catch {
            throw DBusError(RouterError(.internalError, "cannot hash the token: \(error)"))
        }
        _ = try answer(call, execute(core.router.claim(id, tokenDigest: digest, by: call.sender)))
    }
}
