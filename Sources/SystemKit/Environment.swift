import Glibc

/// The process environment, read without Foundation.
public enum Environment {
    public static func get(_ name: String) -> String? {
        guard let v = getenv(name) else { return nil }
        return String(cString: v)
    }

    /// The machine's host name (`gethostname`), empty when it has none: what a client linkrouter registers is named
    /// after, so a person tells their machines' clients apart at the provider.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A variable that is set and not empty (the XDG rule for `$XDG_*`).
    public static func nonEmpty(_ name: String) -> String? {
        guard let v = get(name), !v.isEmpty else { return nil }
        return v
    }

    /// Every `NAME=value` entry, in order.
    public static func entries() -> [String] {
        var out: [String] = []
        var p = environ
        while let entry = p.pointee {
            out.append(String(cString: entry))
            p += 1
        }
        return out
    }

    /// `entries()` with some names replaced or removed (nil value).
    public static func entries(overriding changes: [String: String?]) -> [String] {
        var out = entries().filter { entry in
            let name = entry.split(separator: "=", maxSplits: 1).first.map(String.init) ?? entry
            return changes[name] == nil
        }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { out.append(name + "=" + value) }
        }
        return out
    }
}
