import SystemKit

/// A service's own outgoing method calls that await their replies: one
/// table for all of them, each with its deadline. A completion always runs
/// later on the loop (a reply, an error, or the deadline), never inside `call`,
/// so whoever made the call is never re-entered.
public final class PendingCalls {
    let connection: DBusConnection
    let loop: EventLoop
    private struct Entry {
        let timer: EventLoop.TimerID
        let completion: (Result<DBusMessage, DBusError>) -> Void
    }
    private var entries: [UInt32: Entry] = [:]

    public init(connection: DBusConnection, loop: EventLoop) {
        self.connection = connection
        self.loop = loop
    }

    /// Calls in flight.
    public var count: Int { entries.count }

    /// Sends `message`; `completion` gets the reply, the error reply, or
    /// `NoReply` once `timeoutMilliseconds` have passed.
    public func call(
        _ message: DBusMessage, timeoutMilliseconds: Int64,
        _ completion: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) {
        do { try connection.send(message) } catch {
            loop.schedule(afterMilliseconds: 0) { completion(.failure(error)) }
            return
        }
        let serial = message.serial
        let timer = loop.schedule(afterMilliseconds: timeoutMilliseconds) { [weak self] in
            guard let entry = self?.entries.removeValue(forKey: serial) else { return }
            entry.completion(
                .failure(
                    DBusError(name: DBusError.noReply, message: "no answer within \(Self.seconds(timeoutMilliseconds))")
                ))
        }
        entries[serial] = Entry(timer: timer, completion: completion)
    }

    /// Takes a method return or error that answers one of ours; false when it answers none.
    @discardableResult
    public func handle(reply m: DBusMessage) -> Bool {
        guard let entry = entries.removeValue(forKey: m.replySerial) else { return false }
        loop.cancel(entry.timer)
        if let e = m.error { entry.completion(.failure(e)) } else { entry.completion(.success(m)) }
        return true
    }

    static func seconds(_ ms: Int64) -> String { ms % 1000 == 0 ? "\(ms / 1000) s" : "\(ms) ms" }
}
