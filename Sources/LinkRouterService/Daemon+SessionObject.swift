import Crypto
import DBusKit
import LinkRouterAPI
import LinkRouterCore

/// The session objects' methods (`Interfaces.sessionTable`): each asks the
/// router for a transition and hands it to the executor.
extension Daemon: SessionHandlers {
    /// `Wait(timeout_ms)`: the result now, or the call parked until the session finishes.
    public func wait(_ id: SessionID, timeoutMilliseconds: UInt32, _ call: MethodCall) throws(DBusError) -> MethodReply {
        do throws(RouterError) {
            switch try execute(router.wait(id, by: call.sender, timeoutMilliseconds: timeoutMilliseconds), call: call) {
            case .waited(.success(let result)): return .values([ResultDictionary.make(result)])
            case .waited(.failure(let error)): throw error
            default: return .deferred
            }
        } catch {
            throw DBusError(error)
        }
    }

    /// `Acknowledge()`: the owner has the result; it is wiped now.
    public func acknowledge(_ id: SessionID, _ call: MethodCall) throws(DBusError) {
        do throws(RouterError) { try execute(router.acknowledge(id, by: call.sender)) } catch { throw DBusError(error) }
    }

    public func cancel(_ id: SessionID, _ call: MethodCall) throws(DBusError) {
        do throws(RouterError) { try execute(router.cancel(id, by: call.sender, now: now)) } catch { throw DBusError(error) }
    }

    /// `Claim(token)`: a restarted client takes its session back.
    public func claim(_ id: SessionID, token: String, _ call: MethodCall) throws(DBusError) {
        do throws(RouterError) {
            let digest: [UInt8]
            do { digest = try SHA256.hash(token) } catch { throw RouterError(.internalError, "cannot hash the token: \(error)") }
            try execute(router.claim(id, tokenDigest: digest, by: call.sender))
        } catch {
            log.write(.notice, "Refused a claim of \(id.logTag) by \(call.sender): \(error.message)")
            throw DBusError(error)
        }
    }
}
