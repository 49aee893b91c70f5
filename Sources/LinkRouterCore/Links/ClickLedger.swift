/// The clicks the daemon routed lately, by `ClickID`: a link linkctl queued
/// after its call went unanswered may reach the daemon twice (the call, late,
/// and the inbox entry), and only the first is routed. Bounded: the last
/// `capacity` clicks, oldest forgotten first (a copy comes within seconds of
/// the other, never thousands of clicks later).
public struct ClickLedger: Sendable {
    public static let capacity = 1024
    private var seen: Set<ClickID> = []
    private var order: [ClickID] = []
    private var next = 0

    public init() {}

    /// Whether `click` is met for the first time (it is remembered from now on).
    public mutating func firstTime(_ click: ClickID) -> Bool {
        guard !seen.contains(click) else { return false }
        seen.insert(click)
        if order.count < Self.capacity {
            order.append(click)
        } else {
            seen.remove(order[next])
            order[next] = click
            next = (next + 1) % Self.capacity
        }
        return true
    }
}
