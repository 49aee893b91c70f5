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

/// The lines a kind of login writes, in the order it writes them (the reader
/// tries the next one first, so a row it wrote itself costs one compare a line).
/// Position 0 is always `v`.
struct StoredLayout: Sendable {
    /// Each line's key, as bytes.
    let names: [[UInt8]]

    init(_ names: [String]) {
        self.names = (["v"] + names).map { Array($0.utf8) }
    }

    /// The position of the key `bytes` spell, trying `from` first; nil for a key this daemon does not know.
    func position(of bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let count = names.count
        for step in 0..<count {
            let i = (from + step) % count
            let found = names[i].withUnsafeBufferPointer { ByteKey.equal($0, bytes) }
            if found { return i }
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
        layout.names[position].withUnsafeBufferPointer { put($0) }
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
    private var ranges: [Int]

    /// Nil when a line has no `=` (damage) or the version is not this format's.
    init?(_ bytes: UnsafeBufferPointer<UInt8>, _ layout: StoredLayout) {
        self.bytes = bytes
        let n = layout.names.count
        ranges = [Int](repeating: -1, count: 2 * n)
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
        guard text(0) == StoredForm.version else { return nil }
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
        if let (known, uri) = reuse.callbacks[p], known == text { return .success(uri) }
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
    fileprivate var callbacks: [Int: (String, CallbackURI)] = [:]
    private var kind: String = ""
    /// Parses a callback URI (the store shares one parse per distinct text across all rows).
    let parse: (String, String) -> CallbackURI?

    public init(parse: @escaping (String, String) -> CallbackURI?) { self.parse = parse }

    /// Ready for a row of `kind` whose layout has `count` lines.
    mutating func start(_ kind: String, count: Int) {
        guard kind != self.kind || texts.count != count else { return }
        self.kind = kind
        texts = [String?](repeating: nil, count: count)
        callbacks = [:]
    }

    /// `bytes` as a string: the previous row's, when they are the same.
    fileprivate mutating func text(_ p: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if var previous = texts[p], previous.withUTF8({ ByteKey.equal($0, bytes) }) { return previous }
        let fresh = String(decoding: bytes, as: UTF8.self)
        texts[p] = fresh
        return fresh
    }
}
