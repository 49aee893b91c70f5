import DBusKit
import SystemKit

/// One deferred call waiting for its session to finish: a `Wait`, or a
/// `Login` (which answers with the session's path before the result).
final class Waiter {
    /// What the answer looks like.
    enum Shape {
        /// `Wait`: `(a{sv} result)`.
        case result
        /// `Login`: `(o session, a{sv} result)`.
        case sessionAndResult(ObjectPath)
    }

    let call: DBusMessage
    let sender: String
    let shape: Shape
    var timer: EventLoop.TimerID?

    init(call: DBusMessage, sender: String, shape: Shape) {
        self.call = call
        self.sender = sender
        self.shape = shape
    }

    /// The reply's values around `result`.
    func values(_ result: DBusValue) -> [DBusValue] {
        switch shape {
        case .result: return [result]
        case .sessionAndResult(let path): return [.objectPath(path), result]
        }
    }
}
