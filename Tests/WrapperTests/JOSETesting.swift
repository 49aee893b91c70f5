import JSONKit
import LinkRouterCore
import OpenSSLKit
import Testing

/// Small tools for the JOSE tests: keys from JWK text, token surgery, caught errors.
enum JOSETesting {
    static func key(_ jwk: String) throws -> PublicKey {
        try PublicKey(jwk: JSONParser.parse(jwk.utf8))
    }

    /// The `JOSEError` `body` throws, or nil when it returns. (Closure
    /// literals are inferred to throw `any Error`, hence the cast.)
    static func refusal(_ body: () throws -> Void) -> JOSEError? {
        do {
            try body()
            return nil
        } catch let error as JOSEError {
            return error
        } catch {
            Issue.record("not a JOSEError: \(error)")
            return nil
        }
    }

    static func parts(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// `token` with part `index` (0 header, 1 payload, 2 signature) replaced by `bytes`, encoded.
    static func replacing(part index: Int, of token: String, with bytes: [UInt8]) -> String {
        var parts = parts(token)
        parts[index] = Base64URL.encode(bytes)
        return parts.joined(separator: ".")
    }

    /// `token` with one bit flipped in byte `byte` of decoded part `index`.
    static func flipping(byte: Int, ofPart index: Int, in token: String) -> String {
        var bytes = Base64URL.decode(parts(token)[index])!
        bytes[byte] ^= 0x01
        return replacing(part: index, of: token, with: bytes)
    }
}
