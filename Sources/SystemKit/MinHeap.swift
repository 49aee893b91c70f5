/// A binary min-heap: O(log n) push and pop, O(1) peek. The event loop's
/// timers and the daemon's session deadlines both sit in one.
public struct MinHeap<Element> {
    @usableFromInline var items: [Element] = []
    @usableFromInline let less: (Element, Element) -> Bool

    @inlinable public init(by less: @escaping (Element, Element) -> Bool) { self.less = less }

    @inlinable public var isEmpty: Bool { items.isEmpty }
    @inlinable public var count: Int { items.count }
    @inlinable public var first: Element? { items.first }

    @inlinable public mutating func reserveCapacity(_ n: Int) { items.reserveCapacity(n) }

    /// Lets go of room a past burst left behind (arrays keep their capacity).
    @inlinable public mutating func shrinkIfSparse() {
        guard items.capacity > 64, items.count * 4 < items.capacity else { return }
        var fresh: [Element] = []
        fresh.reserveCapacity(items.count)
        fresh.append(contentsOf: items)
        items = fresh
    }

    @inlinable public mutating func push(_ e: Element) {
        items.append(e)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard less(items[i], items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    @discardableResult @inlinable
    public mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var m = i
            if l < items.count && less(items[l], items[m]) { m = l }
            if r < items.count && less(items[r], items[m]) { m = r }
            if m == i { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}
