/// Which operation: unique among those the core tracks, and the key under
/// which the daemon holds a call it answers later (`Transition.Reply.held`).
public struct OperationID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public static func < (a: OperationID, b: OperationID) -> Bool { a.value < b.value }
    public var description: String { "op\(value)" }
}

/// Operation ids for one event: the next free ones, in order. One generator
/// an event (`Turn.ids`), so no two operations an event starts share an id.
struct OperationIDs: Sendable {
    private var next: UInt64
    init(from next: UInt64) { self.next = next }
    mutating func take() -> OperationID {
        defer { next += 1 }
        return OperationID(next)
    }
}
