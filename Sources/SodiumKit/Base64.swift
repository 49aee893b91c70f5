internal import CSodium

/// Standard base64 with padding (RFC 4648 §4), as libsodium writes and reads it
/// (`sodium_base64_VARIANT_ORIGINAL`): the encoding oidc-agent's clients use for
/// keys, nonces and boxes.
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) throws(SodiumError) -> String {
        let lib = try LibSodium.loaded()
        let length = (bytes.count + 2) / 3 * 4 + 1
        var out = [CChar](repeating: 0, count: length)
        let written = bytes.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in
                lr_bin2base64(
                    lib.toBase64, o.baseAddress, length, b.baseAddress, b.count, Int32(LR_BASE64_VARIANT_ORIGINAL))
            }
        }
        guard written != nil else { throw .malformed("base64 encoding failed") }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of `text`, which must be the whole of it (no trailing bytes, no spaces); at most `maxBytes`.
    public static func decode(_ text: Substring, maxBytes: Int) throws(SodiumError) -> [UInt8] {
        let lib = try LibSodium.loaded()
        var out = [UInt8](repeating: 0, count: max(maxBytes, 1))
        var count = 0
        let utf8 = Array(text.utf8)
        let status = utf8.withUnsafeBufferPointer { t in
            t.withMemoryRebound(to: CChar.self) { c in
                out.withUnsafeMutableBufferPointer { o in
                    var end: UnsafePointer<CChar>? = nil
                    let r = lr_base642bin(
                        lib.fromBase64, o.baseAddress, maxBytes, c.baseAddress, c.count, &count, &end,
                        Int32(LR_BASE64_VARIANT_ORIGINAL))
                    // The whole text must be base64: libsodium stops at the first byte that is not.
                    return r == 0 && end == c.baseAddress.map { $0 + c.count } ? 0 : -1
                }
            }
        }
        guard status == 0 else { throw .malformed("not base64 of at most \(maxBytes) bytes") }
        return Array(out.prefix(count))
    }
}
