import LinkRouterCore

/// When each session must next be looked at, as one min-heap of plain
/// values: no closure and no timer per session, so 100,000 sessions cost a
/// few megabytes less and restore without allocating one callback each.
/// A session rescheduled leaves its old entry behind; it is skipped when its
/// time comes because the session's real deadline has moved.
struct DeadlineQueue {
    private var heap: [(deadline: Int64, id: SessionID)] = []

    var earliest: Int64? { heap.first?.deadline }
    var count: Int { heap.count }

    mutating func reserveCapacity(_ n: Int) { heap.reserveCapacity(n) }

    mutating func push(_ deadline: Int64, _ id: SessionID) {
        heap.append((deadline, id))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].deadline < heap[parent].deadline else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns every entry due at `now`.
    mutating func popDue(_ now: Int64) -> [SessionID] {
        var out: [SessionID] = []
        while let first = heap.first, first.deadline <= now {
            out.append(first.id)
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && heap[l].deadline < heap[m].deadline { m = l }
                if r < heap.count && heap[r].deadline < heap[m].deadline { m = r }
                if m == i { break }
                heap.swapAt(i, m)
                i = m
            }
        }
        return out
    }
}
