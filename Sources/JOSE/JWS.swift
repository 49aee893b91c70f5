import JSONKit
public import LinkRouterCore
public import OpenSSLKit

/// Verifies JWS compact serializations (RFC 7515 §7.1), the form of an
/// OpenID Connect ID token: `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)`.
///
/// This target holds the rules only (which `alg`, which key, which shape);
/// the signature arithmetic is `OpenSSLKit`'s and the JSON reading `JSONKit`'s,
/// so neither of those depends on the other and no C is imported here.
///
/// Keys come only from the caller. Header members that would fetch or embed
/// a key (`jku`, `jwk`, `x5u`, `x5c`) are ignored: honoring them lets the
/// token choose the key that verifies it.
public enum JWS {
    /// Longest token accepted by default: far above a real ID token (a few
    /// KiB), far below anything that would cost real work to refuse.
    public static let defaultMaxBytes = 64 * 1024

    /// Bounds on the decoded protected header, which is small in practice.
    static let headerLimits = JSONParser.Limits(maxBytes: 16 * 1024, maxDepth: 8, maxMembers: 256)

    /// Checks `token`'s signature with `keys` and returns its protected
    /// header and its payload bytes (which the caller parses as claims).
    ///
    /// The header's `alg` must be RS256, PS256, ES256 or EdDSA; `none` and
    /// `HS256/384/512` are refused with their own codes, and `crit` is
    /// refused (we implement no extension). With a `kid`, only the keys with
    /// that `kid` are tried, and a `kid` matching none is `.unknownKeyID`
    /// (refetch the JWKS once); without one, every key whose type fits `alg`.
    public static func verify(_ token: String, keys: [PublicKey], maxBytes: Int = defaultMaxBytes) throws(JOSEError)
        -> (header: JSONValue, payload: [UInt8])
    {
        let compact = try Compact(token, maxBytes: maxBytes)
        let header: JSONValue
        do {
            header = try JSONParser.parse(compact.header, limits: headerLimits)
        } catch {
            throw JOSEError(.malformedHeader, "the protected header is not acceptable JSON: \(error)")
        }
        let algorithm = try algorithm(in: header)
        if header["crit"] != nil {
            throw JOSEError(
                .criticalHeader,
                "the header lists critical extensions (crit); none are supported, so the token must be refused (RFC 7515 §4.1.11)"
            )
        }
        guard !compact.signature.isEmpty else { throw JOSEError(.malformedToken, "the token's signature is empty") }
        let candidates = try candidates(keys, for: algorithm, header: header)
        for key in candidates where try key.verify(compact.signature, of: compact.signingInput, using: algorithm) {
            return (header, compact.payload)
        }
        let tried =
            candidates.count == 1
            ? "the \(candidates[0])" : "any of the \(candidates.count) \(algorithm.keyType.rawValue) keys"
        throw JOSEError(.invalidSignature, "the \(algorithm.rawValue) signature does not verify with \(tried)")
    }

    /// The header's `alg`, refused unless we verify it.
    private static func algorithm(in header: JSONValue) throws(JOSEError) -> SignatureAlgorithm {
        guard case .object = header else {
            throw JOSEError(.malformedHeader, "the protected header is not a JSON object")
        }
        guard let name = header["alg"]?.stringValue else {
            throw JOSEError(.malformedHeader, "the protected header has no string \"alg\"")
        }
        if let algorithm = SignatureAlgorithm(rawValue: name) { return algorithm }
        switch name {
        case "none":
            throw JOSEError(.unsecuredAlgorithm, "the token is unsigned (alg none); only signed tokens are accepted")
        case "HS256", "HS384", "HS512":
            throw JOSEError(
                .symmetricAlgorithm,
                "the token uses \(name), a shared-secret MAC; only public-key signatures (RS256, PS256, ES256, EdDSA) are accepted"
            )
        default:
            throw JOSEError(.unsupportedAlgorithm, "alg \"\(name)\" is not supported; use RS256, PS256, ES256 or EdDSA")
        }
    }

    /// The keys to try, in the caller's order.
    private static func candidates(_ keys: [PublicKey], for algorithm: SignatureAlgorithm, header: JSONValue)
        throws(JOSEError) -> [PublicKey]
    {
        guard let kidValue = header["kid"] else {
            let fitting = keys.filter { $0.fits(algorithm) }
            guard !fitting.isEmpty else {
                let given =
                    keys.isEmpty
                    ? "none" : keys.prefix(5).map(\.description).joined(separator: ", ") + (keys.count > 5 ? ", …" : "")
                throw JOSEError(
                    .noMatchingKey,
                    "no key can verify \(algorithm.rawValue), which needs a \(algorithm.keyType.rawValue) key whose JWK allows it (use sig, alg \(algorithm.rawValue) or absent); keys given: \(given)"
                )
            }
            return fitting
        }
        guard let kid = kidValue.stringValue else {
            throw JOSEError(.malformedHeader, "the header's \"kid\" is not a string")
        }
        let named = keys.filter { $0.keyID == kid }
        guard !named.isEmpty else { throw .unknownKeyID(kid) }
        let fitting = named.filter { $0.fits(algorithm) }
        guard !fitting.isEmpty else {
            throw JOSEError(
                .noMatchingKey,
                "key \"\(kid)\" cannot verify \(algorithm.rawValue): \(named[0].misfit(for: algorithm) ?? "")")
        }
        return fitting
    }
}

/// The three parts of a compact JWS, decoded, and the bytes that were signed.
private struct Compact {
    let header: [UInt8]
    let payload: [UInt8]
    let signature: [UInt8]
    /// `ASCII(BASE64URL(header) || '.' || BASE64URL(payload))`, RFC 7515 §5.2.
    let signingInput: [UInt8]

    init(_ token: String, maxBytes: Int) throws(JOSEError) {
        let bytes = Array(token.utf8)
        guard bytes.count <= maxBytes else {
            throw JOSEError(.malformedToken, "the token is \(bytes.count) bytes, more than the limit of \(maxBytes)")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            let hint = parts.count == 5 ? " (5 parts is an encrypted JWE, which is not supported)" : ""
            throw JOSEError(
                .malformedToken, "a compact JWS has 3 parts separated by dots; this token has \(parts.count)\(hint)")
        }
        var decoded: [[UInt8]] = []
        for (part, name) in zip(parts, ["header", "payload", "signature"]) {
            // An empty signature is refused after the header is read, so
            // that an unsigned token (`alg: none`, RFC 7519 §6.1) gets its own error.
            guard !part.isEmpty || name == "signature" else {
                throw JOSEError(.malformedToken, "the token's \(name) is empty")
            }
            guard let value = Base64URL.decode(part) else {
                throw JOSEError(
                    .malformedToken, "the token's \(name) is not canonical unpadded base64url (RFC 7515 §2)")
            }
            decoded.append(value)
        }
        header = decoded[0]
        payload = decoded[1]
        signature = decoded[2]
        signingInput = Array(bytes[..<parts[1].endIndex])
    }
}
