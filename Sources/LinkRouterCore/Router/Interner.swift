/// One copy of each callback and shared string (an origin, an issuer, a
/// resume host), however many sessions use it, counted so an entry goes with
/// its last session: loopback callbacks differ by port, so kept forever they
/// would grow without bound. 10,000 sessions of one app hold one copy.
struct Interner: Sendable {
    private var callbacks: [ByteKey: (uri: CallbackURI, uses: Int)] = [:]
    private var strings: [ByteKey: (shared: String, uses: Int)] = [:]

    /// Distinct callbacks and strings held.
    var count: Int { callbacks.count + strings.count }

    // One dictionary access each (the entry is counted and read in place).
    mutating func share(_ c: CallbackURI) -> CallbackURI {
        func use(_ entry: inout (uri: CallbackURI, uses: Int)) -> CallbackURI {
            entry.uses += 1
            return entry.uri
        }
        return use(&callbacks[c.key, default: (c, 0)])
    }

    mutating func release(_ c: CallbackURI) {
        let key = c.key
        guard let known = callbacks[key] else { return }
        callbacks[key] = known.uses > 1 ? (known.uri, known.uses - 1) : nil
    }

    mutating func share(_ s: String) -> String {
        func use(_ entry: inout (shared: String, uses: Int)) -> String {
            entry.uses += 1
            return entry.shared
        }
        return use(&strings[ByteKey(s), default: (s, 0)])
    }

    mutating func release(_ s: String) {
        let key = ByteKey(s)
        guard let known = strings[key] else { return }
        strings[key] = known.uses > 1 ? (known.shared, known.uses - 1) : nil
    }

    /// Whether two strings are one copy (the same storage), so a login whose values are already the
    /// shared ones is left as it is rather than copied. Small strings live inline, so equal is the same.
    static func same(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        let ua = a.withUTF8 { ($0.baseAddress, $0.count) }
        let ub = b.withUTF8 { ($0.baseAddress, $0.count) }
        if ua.1 <= 15 && ub.1 <= 15 { return a == b }
        return ua.0 == ub.0 && ua.1 == ub.1
    }

    static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): same(a, b)
        default: false
        }
    }

    /// Room given back after a burst (`SessionTable.compact`).
    mutating func compact() {
        callbacks = callbacks.compacted()
        strings = strings.compacted()
    }
}

extension Dictionary {
    /// The same entries in a dictionary of their size: Swift's dictionaries keep
    /// their capacity when they shrink (the soak, issue 13 §5).
    func compacted() -> [Key: Value] {
        var out = [Key: Value](minimumCapacity: count)
        for (k, v) in self { out[k] = v }
        return out
    }
}
