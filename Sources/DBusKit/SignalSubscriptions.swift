/// Which signals a service listens to, by match rule, and who handles each:
/// the bus delivers what the rules ask for, and each signal goes to the
/// handlers of the rules it matches (every other signal is dropped here).
public final class SignalSubscriptions {
    /// A match rule's fields (the D-Bus spec's "Match Rules"), each optional.
    public struct Rule: Sendable, Equatable {
        public var sender: String?
        public var path: String?
        public var interface: String?
        public var member: String?

        public init(sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil) {
            self.sender = sender
            self.path = path
            self.interface = interface
            self.member = member
        }

        /// The rule as `AddMatch` takes it.
        public var text: String {
            var parts = ["type='signal'"]
            for (k, v) in [("sender", sender), ("path", path), ("interface", interface), ("member", member)] {
                if let v { parts.append("\(k)='\(v)'") }
            }
            return parts.joined(separator: ",")
        }

        public func matches(_ m: DBusMessage) -> Bool {
            (sender == nil || m.sender == sender) && (path == nil || m.path == path)
                && (interface == nil || m.interface == interface) && (member == nil || m.member == member)
        }

        /// The bus daemon's `NameOwnerChanged`: clients coming and going.
        public static let nameOwnerChanged = Rule(
            sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", member: "NameOwnerChanged")
    }

    private var handlers: [(rule: Rule, handle: (DBusMessage) -> Void)] = []

    public init() {}

    /// Listens for signals matching `rule` (the rule is added to the bus before this returns).
    public func subscribe(_ rule: Rule, on connection: DBusConnection, _ handle: @escaping (DBusMessage) -> Void)
        throws(DBusError)
    {
        if !handlers.contains(where: { $0.rule == rule }) { try connection.addMatch(rule.text) }
        handlers.append((rule, handle))
    }

    /// Hands a signal to every handler whose rule it matches; false when none did.
    @discardableResult
    public func dispatch(_ m: DBusMessage) -> Bool {
        var handled = false
        for h in handlers where h.rule.matches(m) {
            h.handle(m)
            handled = true
        }
        return handled
    }
}
