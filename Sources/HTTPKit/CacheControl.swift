/// The `Cache-Control` directives a private cache of discovery documents and
/// JWKS acts on (RFC 9111 §5.2.2). Directive names compare without case; when a
/// directive repeats, the first occurrence counts (§4.2.1 allows this).
public struct CacheControl: Sendable, Equatable {
    /// `max-age`; a value that is not a non-negative integer makes the response stale (0).
    public var maxAge: Int64?
    public var noStore = false
    /// `no-cache`: stored, but revalidated before each use; freshness is 0 for us.
    public var noCache = false
    public var mustRevalidate = false

    public init(maxAge: Int64? = nil, noStore: Bool = false, noCache: Bool = false, mustRevalidate: Bool = false) {
        self.maxAge = maxAge
        self.noStore = noStore
        self.noCache = noCache
        self.mustRevalidate = mustRevalidate
    }

    /// Parses the values of every `Cache-Control` field line, in order.
    public init(parsing values: [String]) {
        var seenMaxAge = false
        for value in values {
            for item in Self.split(value) {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingSpaces().lowercased()
                var argument = parts.count > 1 ? parts[1].trimmingSpaces() : nil
                if let a = argument, a.count >= 2, a.hasPrefix("\""), a.hasSuffix("\"") {
                    argument = String(a.dropFirst().dropLast())
                }
                switch name {
                case "max-age" where !seenMaxAge:
                    seenMaxAge = true
                    maxAge = argument.flatMap(Self.deltaSeconds) ?? 0
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate": mustRevalidate = true
                default: break
                }
            }
        }
    }

    /// delta-seconds (RFC 9111 §1.2.2): digits only; larger than 2^31 counts as 2^31.
    static func deltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let digits = text.drop { $0 == "0" }
        guard digits.count <= 10 else { return 1 << 31 }
        return min(Int64(digits) ?? 0, 1 << 31)
    }

    /// Splits at commas outside quoted strings.
    private static func split(_ value: String) -> [Substring] {
        var items: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var i = value.startIndex
        while i < value.endIndex {
            let c = value[i]
            if c == "\"" {
                quoted.toggle()
            } else if c == "\\" && quoted {
                i = value.index(after: i)
            } else if c == "," && !quoted {
                items.append(value[start..<i])
                start = value.index(after: i)
            }
            if i < value.endIndex { i = value.index(after: i) }
        }
        items.append(value[start...])
        return items.filter { !$0.trimmingSpaces().isEmpty }
    }
}
