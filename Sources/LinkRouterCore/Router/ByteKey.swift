/// A string used as a dictionary key, hashed and compared as its UTF-8
/// bytes. Swift hashes `String` by Unicode scalars (for canonical
/// equivalence), which made key lookups half of a 10,000-session restore;
/// states, ids and URIs are ASCII, for which bytes and scalars agree.
///
/// The hash is computed once, when the key is made, so a key kept with a
/// shared value (a callback's) costs nothing more per lookup.
public struct ByteKey: Hashable, Sendable {
    public let string: String
    private let digest: Int

    public init(_ string: String) {
        self.string = string
        var h = Hasher()
        var s = string
        s.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        digest = h.finalize()
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    public static func == (a: ByteKey, b: ByteKey) -> Bool { a.digest == b.digest && sameBytes(a.string, b.string) }

    /// Byte equality over contiguous UTF-8 (see `equal`).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        var x = a
        var y = b
        return x.withUTF8 { p in y.withUTF8 { q in equal(p, q) } }
    }

    /// Byte equality, eight bytes at a time: the generic `elementsEqual` walk
    /// cost ~350 instructions per key compare, a fifth of a 10,000-session
    /// restore (bench/notes.md).
    public static func equal(_ p: UnsafeBufferPointer<UInt8>, _ q: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = p.count
        guard n == q.count else { return false }
        guard n > 0, let pa = p.baseAddress, let qa = q.baseAddress else { return true }
        if pa == qa { return true }
        let l = UnsafeRawPointer(pa)
        let r = UnsafeRawPointer(qa)
        var i = 0
        while i + 8 <= n {
            if l.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != r.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < n {
            if pa[i] != qa[i] { return false }
            i += 1
        }
        return true
    }
}
