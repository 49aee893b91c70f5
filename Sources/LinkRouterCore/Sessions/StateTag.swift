/// A short tag for the `state` of a link that names no session, so log lines
/// about one refused link can be told apart without ever holding the state.
/// Swift's `Hasher` is SipHash keyed with a random seed per process: the tag
/// is a keyed hash, useless to anyone reading the log.
public enum StateTag {
    public static func of(_ uri: String) -> String {
        guard let q = uri.firstIndex(of: "?") else { return "no state" }
        let query = uri[uri.index(after: q)...].prefix { $0 != "#" }
        for pair in query.split(separator: "&") where pair.hasPrefix("state=") {
            var hasher = Hasher()
            hasher.combine(pair.dropFirst(6))
            let value = UInt32(truncatingIfNeeded: hasher.finalize())
            return "state hash " + Hex.encode(withUnsafeBytes(of: value.bigEndian) { Array($0) })
        }
        return "no state"
    }
}
