/// One click's `Route`/`RouteLink` call as the bus delivered it: the
/// caller's unique name and the call's serial, which no other call on that
/// bus shares. When linkctl's call went out and no answer came (the daemon
/// stalled past `LinkIntake.clientWaitMilliseconds`), linkctl queues the link
/// in the inbox with this id, and the daemon routes whichever copy it meets
/// first and drops the other (`ClickLedger`): the click is neither lost (a
/// daemon that died with it finds it in the inbox) nor delivered twice (issue
/// 44: two browser windows for one click).
///
/// Compiled into linkctl's front too (`Sources/LinkctlFront/Shared/`), so it
/// stays in the Embedded subset.
public struct ClickID: Sendable, Hashable {
    /// The caller's unique bus name, `:1.42`.
    public let sender: String
    public let serial: UInt32

    public init(sender: String, serial: UInt32) {
        self.sender = sender
        self.serial = serial
    }

    /// `:1.42 7`: how the front hands it to the full linkctl and the inbox keeps it.
    public var text: String { sender + " " + String(serial) }

    /// The id `text` spells; nil for anything else.
    public init?(text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.first == 0x3A, parts[0].utf8.count <= 255 else { return nil }
        var serial: UInt32 = 0
        for b in parts[1].utf8 {
            guard b >= 0x30, b <= 0x39, serial <= (UInt32.max - 9) / 10 else { return nil }
            serial = serial * 10 + UInt32(b - 0x30)
        }
        guard !parts[1].isEmpty, serial > 0 else { return nil }
        self.init(sender: String(parts[0]), serial: serial)
    }
}
