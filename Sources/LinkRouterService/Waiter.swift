import DBusKit
import SystemKit

/// One deferred `Wait` call: answered when its session ends or its timeout passes.
final class Waiter {
    let call: DBusMessage
    let sender: String
    var timer: EventLoop.TimerID?

    init(call: DBusMessage, sender: String) {
        self.call = call
        self.sender = sender
    }
}
