/// A query string read strictly, as the OAuth response rules require.
///
/// RFC 6749 §3.1 and OAuth 2.1 say a parameter may appear once; each pair keeps
/// its raw bytes (for exact matching of the redirect URI's own query) beside
/// its form-decoded value (for `state`, `code`, `iss` …).
public struct QueryParameters: Sendable, Equatable {
    /// One `name=value` pair.
    public struct Pair: Sendable, Equatable {
        public let rawName: String
        public let rawValue: String?
        public let name: String
        public let value: String
        /// The pair exactly as it stood in the query.
        public var raw: String { rawValue.map { rawName + "=" + $0 } ?? rawName }
    }

    public let pairs: [Pair]

    /// Limits that bound the work a hostile query can cause (threat model U6).
    public struct Limits: Sendable, Equatable {
        public var maxParameters: Int
        public var maxValueBytes: Int
        public init(maxParameters: Int = 32, maxValueBytes: Int = 2048) {
            self.maxParameters = maxParameters
            self.maxValueBytes = maxValueBytes
        }
    }

    /// Parses `a=b&c=d`; empty segments (`a=b&&c`) are skipped as browsers do.
    public static func parse(_ query: String?, limits: Limits = Limits()) throws(RouterError) -> QueryParameters {
        guard let query, !query.isEmpty else { return QueryParameters(pairs: []) }
        var pairs: [Pair] = []
        for segment in query.utf8.split(separator: 0x26, omittingEmptySubsequences: true) {
            guard pairs.count < limits.maxParameters else {
                throw RouterError(.limitsExceeded, "the query has more than \(limits.maxParameters) parameters")
            }
            let seg = Substring(segment)
            let rawName: Substring
            let rawValue: Substring?
            if let eq = seg.firstIndex(of: "=") {
                rawName = seg[..<eq]
                rawValue = seg[seg.index(after: eq)...]
            } else {
                rawName = seg
                rawValue = nil
            }
            if let v = rawValue, v.utf8.count > limits.maxValueBytes {
                throw RouterError(
                    .limitsExceeded,
                    "parameter \"\(PercentEncoding.preview(rawName))\" is \(v.utf8.count) bytes long; values are limited to \(limits.maxValueBytes) bytes"
                )
            }
            let name = try PercentEncoding.decode(rawName, form: true)
            let value = try rawValue.map { v throws(RouterError) in try PercentEncoding.decode(v, form: true) } ?? ""
            pairs.append(Pair(rawName: String(rawName), rawValue: rawValue.map(String.init), name: name, value: value))
        }
        return QueryParameters(pairs: pairs)
    }

    /// All pairs with this decoded name.
    public func all(_ name: String) -> [Pair] { pairs.filter { $0.name == name } }

    /// The single value of `name`; nil when absent or empty (RFC 6749: an empty
    /// parameter is treated as omitted). Duplicates are an error.
    public func single(_ name: String) throws(RouterError) -> String? {
        var found: Pair?
        var count = 0
        for p in pairs where p.name == name {
            count += 1
            found = p
        }
        if count > 1 {
            throw .invalid(
                "parameter \"\(name)\" appears \(count) times; OAuth allows each response parameter once (RFC 6749 §3.1)"
            )
        }
        guard let v = found?.value, !v.isEmpty else { return nil }
        return v
    }

    /// The first name among `names` that appears more than once, if any (one pass).
    public func repeated(among names: [String]) -> (name: String, count: Int)? {
        var counts = [Int](repeating: 0, count: names.count)
        for p in pairs {
            if let i = names.firstIndex(of: p.name) { counts[i] += 1 }
        }
        guard let i = counts.firstIndex(where: { $0 > 1 }) else { return nil }
        return (names[i], counts[i])
    }

    /// True when `name` appears at all, even empty.
    public func contains(_ name: String) -> Bool { pairs.contains { $0.name == name } }
}
