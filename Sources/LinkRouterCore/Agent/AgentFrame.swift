/// One message of oidc-agent's client protocol, told apart as the agent tells
/// them (oidc-agent 4.2.6 `serveripc.c`): the protocol has no length prefix or
/// terminator, a message is what one `write` carried, so what a connection has
/// read so far is either a whole message of one of three forms or not yet one.
/// - a JSON object: a plain request (what the Rust crate `oidc_agent_rs` sends);
/// - the client's X25519 public key, 32 bytes in padded base64 (44 characters),
///   the first step of the encrypted form (`oidc-token`, liboidc-agent, liboidcagent);
/// - `LEN:NONCE:BOX`, the encrypted request: LEN the plaintext's length in decimal,
///   NONCE 24 bytes and BOX libsodium's `crypto_box_easy` output, both base64.
/// The bytes are only classified here; base64 and the box are SodiumKit's.
public enum AgentFrame: Equatable, Sendable {
    /// The bytes of a JSON object, to be parsed.
    case json
    /// A public key's base64 (44 characters).
    case publicKey(String)
    /// An encrypted message's parts, as text.
    case sealed(length: Int, nonce: String, box: String)
    /// Not a whole message yet: read more.
    case incomplete
    /// None of the forms, whatever follows.
    case malformed(String)

    /// A request is at most this long in any form (oidc-agent's clients send a few hundred bytes).
    public static let maxBytes = 64 * 1024

    /// What `bytes` (everything read on the connection so far) is, where `afterKeyExchange` says the next message
    /// is the encrypted request (a JSON object is still taken there, as oidc-agent's clients send plain text
    /// when their first message was).
    public static func classify(_ bytes: [UInt8], afterKeyExchange: Bool) -> AgentFrame {
        guard let first = bytes.first(where: { !isSpace($0) }) else { return .incomplete }
        if first == UInt8(ascii: "{") {
            // Whole when its braces close outside strings; the parser says whether it is JSON.
            return closesObject(bytes) ? .json : .incomplete
        }
        if afterKeyExchange {
            return sealed(bytes)
        }
        guard bytes.allSatisfy(isBase64) else {
            return .malformed("the first message is neither a JSON object nor a public key in base64")
        }
        if bytes.count < 44 { return .incomplete }
        guard bytes.count == 44, bytes[43] == UInt8(ascii: "=") else {
            return .malformed("a public key is 32 bytes in padded base64 (44 characters), not \(bytes.count)")
        }
        return .publicKey(String(decoding: bytes, as: UTF8.self))
    }

    private static func sealed(_ bytes: [UInt8]) -> AgentFrame {
        let parts = bytes.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard let digits = parts.first, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return .malformed("an encrypted message is LEN:NONCE:BOX, LEN in decimal")
        }
        guard parts.count == 3 else {
            return digits.count <= 10 && parts.allSatisfy({ $0.allSatisfy(isBase64) || $0 == digits })
                ? .incomplete : .malformed("an encrypted message is LEN:NONCE:BOX")
        }
        guard !digits.isEmpty, digits.count <= 10, let length = Int(String(decoding: digits, as: UTF8.self)) else {
            return .malformed("an encrypted message's LEN is a decimal number of bytes")
        }
        let nonce = parts[1]
        let box = parts[2]
        guard nonce.count == 32, nonce.allSatisfy(isBase64), box.allSatisfy(isBase64) else {
            return .malformed("an encrypted message's NONCE is 24 bytes and its BOX bytes, each in padded base64")
        }
        // The box is whole when its base64 is (a multiple of 4 characters) and holds at least the MAC and LEN
        // characters (liboidcagent counts characters, not bytes, so LEN is a floor, not the size).
        let boxBytes = box.count / 4 * 3 - box.suffix(2).filter({ $0 == UInt8(ascii: "=") }).count
        guard box.count % 4 == 0, boxBytes >= 16 + length else { return .incomplete }
        return .sealed(
            length: length, nonce: String(decoding: nonce, as: UTF8.self), box: String(decoding: box, as: UTF8.self))
    }

    /// Whether `bytes` (starting, after spaces, with `{`) hold a whole object: its braces close outside strings.
    private static func closesObject(_ bytes: [UInt8]) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for b in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return true }
            default: break
            }
        }
        return false
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    private static func isBase64(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2F
            || b == 0x3D
    }
}
