/// How the store keeps what a session's login must remember: one value of
/// `key=value` lines, `v=1` first, for every kind of login. A login declares
/// its lines once (`StoredLayout`: the names, each at a position) and writes
/// and reads its values by position; the format, its version, line order,
/// unknown keys and what rows share are this file's, not each login's.
///
/// No value holds a line break: each was checked as a URI, a host name, a
/// desktop id or printable ASCII when the session began. Unknown keys are
/// skipped, so a newer daemon's value still reads.
public enum StoredForm {
    /// The format's version (the line `v=1` first).
    static let version = "1"
}

/// A kind of login as the store keeps it: its lines, how it writes them and how it reads them back.
protocol StoredLogin {
    static var layout: StoredLayout { get }
    func write(_ w: inout StoredWriter)
    init(_ r: StoredReader, _ reuse: inout StoredReuse) throws(StoredDamage)
}

extension StoredLogin {
    /// The store's value.
    var stored: String { StoredWriter.write(Self.layout) { self.write(&$0) } }
}

/// The lines a kind of login writes, in the order it writes them (the reader
/// tries the next one first, so a row it wrote itself costs one compare a line).
/// Position 0 is always `v`. The names are laid out once, in one buffer that
/// lives as long as the process (each layout is a `static let`), so writing
/// or reading a line touches no reference count: an array of arrays cost a
/// retain and a release a line, ~5 % of an owner's 10,000 sessions settling.
struct StoredLayout: @unchecked Sendable {
    /// Every name's bytes, one after another.
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Name `p` is `bytes[ends[p - 1] ..< ends[p]]` (`ends[-1]` is 0).
    private let ends: UnsafeBufferPointer<Int>

    init(_ names: [String]) {
        let all = ["v"] + names
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: all.reduce(0) { $0 + $1.utf8.count })
        let ends = UnsafeMutableBufferPointer<Int>.allocate(capacity: all.count)
        var at = 0
        for (p, name) in all.enumerated() {
            for byte in name.utf8 {
                bytes[at] = byte
                at += 1
            }
            ends[p] = at
        }
        self.bytes = UnsafeBufferPointer(bytes)
        self.ends = UnsafeBufferPointer(ends)
    }

    /// How many lines (with `v`).
    var count: Int { ends.count }

    /// The key at position `p`.
    func name(_ p: Int) -> UnsafeBufferPointer<UInt8> {
        let start = p == 0 ? 0 : ends[p - 1]
        return UnsafeBufferPointer(rebasing: bytes[start..<ends[p]])
    }

    /// The position of the key `bytes` spell, trying `from` first; nil for a key this daemon does not know.
    func position(of key: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let count = ends.count
        for step in 0..<count {
            let i = (from + step) % count
            if ByteKey.equal(name(i), key) { return i }
        }
        return nil
    }
}

/// Writes a stored value in two passes over the same calls: the length, then
/// the bytes straight into the string's storage. Appending to a byte array and
/// making a string of it was ~2.3 k instructions a write (bench: per Route).
struct StoredWriter {
    private let out: UnsafeMutableBufferPointer<UInt8>?
    private let layout: StoredLayout
    private(set) var at = 0

    private init(_ layout: StoredLayout, _ out: UnsafeMutableBufferPointer<UInt8>?) {
        self.layout = layout
        self.out = out
    }

    /// The value `body` writes, `v=1` first.
    static func write(_ layout: StoredLayout, _ body: (inout StoredWriter) -> Void) -> String {
        var count = StoredWriter(layout, nil)
        count.add(0, StoredForm.version)
        body(&count)
        return String(unsafeUninitializedCapacity: count.at) { out in
            var sink = StoredWriter(layout, out)
            sink.add(0, StoredForm.version)
            body(&sink)
            return sink.at
        }
    }

    /// The line at `position`, when there is a value.
    mutating func add(_ position: Int, _ value: String?) {
        guard var value else { return }
        if at > 0 { put(0x0A) }
        put(layout.name(position))
        put(0x3D)
        value.withUTF8 { put($0) }
    }

    /// `1` when set; no line when not.
    mutating func flag(_ position: Int, _ set: Bool) {
        if set { add(position, "1") }
    }

    private mutating func put(_ byte: UInt8) {
        out?[at] = byte
        at += 1
    }

    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        if let to = out?.baseAddress, let from = bytes.baseAddress {
            (to + at).initialize(from: from, count: bytes.count)
        }
        at += bytes.count
    }
}

/// One stored value, split into its lines in one pass (no split, no
/// dictionary, no string made for a key): a restore of 10,000 sessions reads
/// 10,000 of these. Values are read by position; each is made a string only
/// when asked for, and one rows share comes from the row before (`StoredReuse`).
struct StoredReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    /// Each position's value: its start and end in `bytes` at `2p` and `2p + 1`, or -1 when absent.
    private let ranges: UnsafeMutableBufferPointer<Int>

    /// `body` given the reader of `bytes`; nil when a line has no `=` (damage)
    /// or the version is not this format's. The positions live on the stack,
    /// for `body` alone: a heap array a row was ~550 instructions of a restore's.
    static func reading<R>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ layout: StoredLayout, _ body: (StoredReader) -> R?
    ) -> R? {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * layout.count) { ranges in
            ranges.initialize(repeating: -1)
            guard let r = StoredReader(bytes, layout, ranges) else { return nil }
            return body(r)
        }
    }

    private init?(
        _ bytes: UnsafeBufferPointer<UInt8>, _ layout: StoredLayout, _ ranges: UnsafeMutableBufferPointer<Int>
    ) {
        self.bytes = bytes
        self.ranges = ranges
        var next = 0
        var lineStart = 0
        while lineStart < bytes.count {
            // The line's end, a word at a time; then the key up to `=`.
            let lineEnd = ByteScan.index(of: 0x0A, in: bytes, from: lineStart)
            var eq = lineStart
            while eq < lineEnd && bytes[eq] != 0x3D { eq += 1 }
            guard eq < lineEnd else { return nil }
            let key = UnsafeBufferPointer(rebasing: bytes[lineStart..<eq])
            lineStart = lineEnd + 1
            guard let p = layout.position(of: key, from: next) else { continue }
            next = p + 1
            ranges[2 * p] = eq + 1
            ranges[2 * p + 1] = lineEnd
        }
        var version = StoredForm.version
        guard let v = value(0), version.withUTF8({ ByteKey.equal($0, v) }) else { return nil }
    }

    private func value(_ p: Int) -> UnsafeBufferPointer<UInt8>? {
        guard ranges[2 * p] >= 0 else { return nil }
        return UnsafeBufferPointer(rebasing: bytes[ranges[2 * p]..<ranges[2 * p + 1]])
    }

    /// Whether the line is there.
    func has(_ p: Int) -> Bool { ranges[2 * p] >= 0 }

    /// The value as a string of its own (one only this row has: a state, a verifier).
    func text(_ p: Int) -> String? { value(p).map { String(decoding: $0, as: UTF8.self) } }

    /// The value, as the row before's string when the bytes are the same (an origin, an issuer, a browser).
    func shared(_ p: Int, _ reuse: inout StoredReuse) -> String? {
        guard let v = value(p) else { return nil }
        return reuse.text(p, v)
    }

    /// `1`: set.
    func flag(_ p: Int) -> Bool {
        guard let v = value(p) else { return false }
        return v.count == 1 && v[0] == 0x31
    }

    /// The value parsed as a callback, once for the rows that share it; nil
    /// when absent, `.failure` when it does not parse (the row is damaged).
    func callback(_ p: Int, role: String, _ reuse: inout StoredReuse) -> Result<CallbackURI, RouterError>? {
        guard let v = value(p) else { return nil }
        let text = reuse.text(p, v)
        if let (known, uri) = reuse.callbacks[p], Interner.same(known, text) { return .success(uri) }
        guard let uri = reuse.parse(text, role) else { return .failure(.invalid("stored \(role) does not parse")) }
        reuse.callbacks[p] = (text, uri)
        return .success(uri)
    }
}

/// What one stored row's values were, for the next row to share: rows of one
/// app repeat their callbacks, origin, issuer and browser. Each kind of login
/// has its own (a row of another kind starts it afresh).
public struct StoredReuse {
    fileprivate var texts: [String?] = []
    /// Each position's last callback, with the text it was parsed from.
    fileprivate var callbacks: [(String, CallbackURI)?] = []
    private var kind: String = ""
    /// Parses a callback URI (the store shares one parse per distinct text across all rows).
    let parse: (String, String) -> CallbackURI?

    public init(parse: @escaping (String, String) -> CallbackURI?) { self.parse = parse }

    /// Ready for a row of `kind` whose layout has `count` lines.
    mutating func start(_ kind: String, count: Int) {
        guard kind != self.kind || texts.count != count else { return }
        self.kind = kind
        texts = [String?](repeating: nil, count: count)
        callbacks = [(String, CallbackURI)?](repeating: nil, count: count)
    }

    /// `bytes` as a string: the previous row's, when they are the same.
    fileprivate mutating func text(_ p: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if var previous = texts[p], previous.withUTF8({ ByteKey.equal($0, bytes) }) { return previous }
        let fresh = String(decoding: bytes, as: UTF8.self)
        texts[p] = fresh
        return fresh
    }
}
