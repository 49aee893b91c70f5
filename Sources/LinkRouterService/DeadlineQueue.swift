import LinkRouterCore
import SystemKit

/// When each session must next be looked at, as one heap of plain values:
/// no closure and no timer per session, so 100,000 sessions cost a few
/// megabytes less and restore without allocating one callback each.
/// A session rescheduled leaves its old entry behind; it is skipped when its
/// time comes because the session's real deadline has moved.
struct DeadlineQueue {
    private var heap = MinHeap<(deadline: Int64, id: SessionID)> { $0.deadline < $1.deadline }

    var earliest: Int64? { heap.first?.deadline }
    var count: Int { heap.count }

    mutating func reserveCapacity(_ n: Int) { heap.reserveCapacity(n) }

    mutating func shrinkIfSparse() { heap.shrinkIfSparse() }

    mutating func push(_ deadline: Int64, _ id: SessionID) { heap.push((deadline, id)) }

    /// Removes and returns every entry due at `now`.
    mutating func popDue(_ now: Int64) -> [SessionID] {
        var out: [SessionID] = []
        while let first = heap.first, first.deadline <= now {
            out.append(first.id)
            heap.pop()
        }
        return out
    }
}
