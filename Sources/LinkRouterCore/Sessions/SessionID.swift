/// A session's name on the bus: the last element of its object path.
///
/// Only `[A-Za-z0-9_]` is accepted, the object-path element alphabet, so an
/// id can never make libdbus abort (threat model D7: `-` is not allowed).
public struct SessionID: Hashable, Sendable, CustomStringConvertible, Comparable {
    public let rawValue: String

    public init?(_ rawValue: String) {
        // Over the contiguous bytes: the UTF8View walk was ~1,000 instructions an id, every stored row.
        var text = rawValue
        let valid = text.withUTF8 { bytes in
            !bytes.isEmpty && bytes.count <= 64
                && bytes.allSatisfy { ASCII.isAlpha($0) || ASCII.isDigit($0) || $0 == 0x5F }
        }
        guard valid else { return nil }
        self.rawValue = rawValue
    }

    /// Makes an id from random bytes as lowercase hex.
    public init(randomBytes: [UInt8]) {
        self.rawValue = Hex.encode(randomBytes)
    }

    public static let objectPathPrefix = "/org/linkrouter/LinkRouter1/sessions/"

    public var objectPath: String { Self.objectPathPrefix + rawValue }

    /// The id in an object path under `objectPathPrefix`, or nil.
    public init?(objectPath: String) {
        guard objectPath.hasPrefix(Self.objectPathPrefix) else { return nil }
        self.init(String(objectPath.dropFirst(Self.objectPathPrefix.count)))
    }

    public var description: String { rawValue }
    public static func < (a: SessionID, b: SessionID) -> Bool { a.rawValue < b.rawValue }

    // Hashed as bytes (see ByteKey): ids are ASCII.
    public func hash(into hasher: inout Hasher) {
        var s = rawValue
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
    public static func == (a: SessionID, b: SessionID) -> Bool { ByteKey.sameBytes(a.rawValue, b.rawValue) }
}

/// Lowercase hex, for ids and log hashes.
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
