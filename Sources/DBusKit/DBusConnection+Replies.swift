import SystemKit

/// Answers to method calls, for whoever holds the call: nothing is sent
/// when the caller asked for no reply, and a reply that cannot be built
/// becomes an error reply rather than silence.
extension DBusConnection {
    public func reply(to call: DBusMessage, values: [DBusValue]) {
        guard !call.noReplyExpected else { return }
        do {
            let r = try call.makeReturn()
            try r.append(contentsOf: values)
            sendLogged(r)
        } catch {
            reply(to: call, error: error)
        }
    }

    public func reply(to call: DBusMessage, error: DBusError) {
        guard !call.noReplyExpected else { return }
        do { sendLogged(try call.makeError(name: error.name, message: error.message)) } catch {
            Log.error("Failed to build an error reply: \(error.message)")
        }
    }

    /// Sends, logging a failure (a reply has no one else to tell).
    public func sendLogged(_ message: DBusMessage) {
        do { try send(message) } catch { Log.error("Failed to send a message: \(error.message)") }
    }
}
