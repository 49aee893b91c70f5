/// A binary min-heap of deadlines, so 100,000 session timers cost
/// O(log n) each and the loop finds the next one in O(1).
struct TimerHeap {
    struct Entry {
        let deadline: Int64
        let sequence: UInt64
        let id: Int
    }

    private var items: [Entry] = []

    var isEmpty: Bool { items.isEmpty }
    var first: Entry? { items.first }

    private static func less(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }

    mutating func push(_ e: Entry) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.less(items[i], items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count && Self.less(items[l], items[m]) { m = l }
            if r < items.count && Self.less(items[r], items[m]) { m = r }
            if m == i { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}
