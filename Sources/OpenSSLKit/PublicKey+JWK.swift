internal import COpenSSL
public import LinkRouterCore

extension PublicKey {
    /// The smallest RSA modulus we accept (RFC 7518 §3.3 requires 2048 bits).
    public static let minimumRSABits = 2048
    /// The largest: no provider publishes more, and verification cost grows
    /// with the square of the size, so a bigger key is refused, not timed.
    public static let maximumRSABits = 8192

    /// Members that only a private JWK has (RFC 7518 §6.2.2, §6.3.2, §6.4;
    /// RFC 8037 §2).
    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Imports one public JWK (RFC 7517) of a type we verify with:
    /// RSA (`n`, `e`; 2048 to 8192 bits), EC P-256 (`x`, `y`; the point must
    /// be on the curve) or OKP Ed25519 (`x`). `kid`, `alg` and `use` are kept
    /// to choose keys with; other members (`x5c`, `key_ops`…) are ignored.
    ///
    /// A JWK carrying private members (`d`, `p`, `q`…) is refused although
    /// its public half would work: a provider's JWKS is public, so a private
    /// key found in one has been published, and anyone could have signed
    /// with it. Refusing makes that leak an error someone sees instead of a
    /// key we quietly trust.
    ///
    /// Throws `.unsupportedKey` for a type or curve we do not handle (a JWKS
    /// reader should skip those) and `.invalidKey` for a key that is wrong.
    public convenience init(jwk: JSONValue) throws(JOSEError) {
        guard case .object = jwk else { throw JOSEError(.invalidKey, "a JWK must be a JSON object") }
        let kid = try Self.optionalString(jwk, "kid")
        let name = kid.map { "JWK \"\($0)\"" } ?? "JWK"
        if let member = Self.privateMembers.first(where: { jwk[$0] != nil }) {
            throw JOSEError(
                .invalidKey,
                "\(name) has the private member \"\(member)\": a published private key is compromised; refusing it")
        }
        let alg = try Self.optionalString(jwk, "alg")
        let use = try Self.optionalString(jwk, "use")
        guard let kty = jwk["kty"]?.stringValue else {
            throw JOSEError(.invalidKey, "\(name) has no string member \"kty\"")
        }

        let key: OwnedKey
        let type: KeyType
        switch kty {
        case "RSA":
            key = try Self.rsa(jwk, name)
            type = .rsa
        case "EC":
            let crv = try Self.required(jwk, "crv", name)
            guard crv == "P-256" else {
                throw JOSEError(.unsupportedKey, "\(name) is on curve \(crv); only P-256 is supported")
            }
            key = try Self.p256(jwk, name)
            type = .p256
        case "OKP":
            let crv = try Self.required(jwk, "crv", name)
            guard crv == "Ed25519" else {
                throw JOSEError(.unsupportedKey, "\(name) is an OKP key on \(crv); only Ed25519 signs")
            }
            key = try Self.ed25519(jwk, name)
            type = .ed25519
        case "oct":
            throw JOSEError(.unsupportedKey, "\(name) is a symmetric key (kty oct); HMAC algorithms are never accepted")
        default:
            throw JOSEError(.unsupportedKey, "\(name) has kty \"\(kty)\"; only RSA, EC and OKP are supported")
        }
        self.init(owning: key.release(), type: type, keyID: kid, algorithm: alg, use: use)
    }

    private static func rsa(_ jwk: JSONValue, _ name: String) throws(JOSEError) -> OwnedKey {
        let n = try bytes(jwk, "n", name)
        let e = try bytes(jwk, "e", name)
        // Checked before import so a huge modulus costs nothing; leading zero bytes don't count.
        let modulusBits = (n.drop { $0 == 0 }.count) * 8
        guard modulusBits <= maximumRSABits else {
            throw JOSEError(
                .invalidKey,
                "\(name) has a modulus of about \(modulusBits) bits; at most \(maximumRSABits) are accepted")
        }
        guard e.count <= 8 else {
            throw JOSEError(.invalidKey, "\(name) has a \(e.count)-byte public exponent; real keys use 65537")
        }
        var parameters = try KeyParameters()
        try parameters.push(OSSL_PKEY_PARAM_RSA_N, bigEndian: n)
        try parameters.push(OSSL_PKEY_PARAM_RSA_E, bigEndian: e)
        let key = try parameters.makePublicKey("RSA")
        let bits = Int(EVP_PKEY_get_bits(key.raw))
        guard bits >= minimumRSABits else {
            throw JOSEError(
                .invalidKey,
                "\(name) has a \(bits)-bit modulus; at least \(minimumRSABits) bits are required (RFC 7518 §3.3)")
        }
        return try checked(key, name, "is not a valid RSA public key")
    }

    private static func p256(_ jwk: JSONValue, _ name: String) throws(JOSEError) -> OwnedKey {
        let x = try bytes(jwk, "x", name)
        let y = try bytes(jwk, "y", name)
        // RFC 7518 §6.2.1.2-3: each coordinate is exactly the field size, zero-padded.
        guard x.count == 32, y.count == 32 else {
            throw JOSEError(
                .invalidKey, "\(name) has coordinates of \(x.count) and \(y.count) bytes; P-256 needs 32 each")
        }
        var parameters = try KeyParameters()
        try parameters.push(OSSL_PKEY_PARAM_GROUP_NAME, utf8: "prime256v1")
        try parameters.push(OSSL_PKEY_PARAM_PUB_KEY, octets: [0x04] + x + y)  // SEC 1 uncompressed point
        let key: OwnedKey
        do {
            key = try parameters.makePublicKey("EC")
        } catch  where error.code == .invalidKey {
            throw JOSEError(.invalidKey, "\(name): the point (x, y) is not on P-256 (\(error.message))")
        }
        return try checked(key, name, "is not a point of P-256's prime-order group")
    }

    private static func ed25519(_ jwk: JSONValue, _ name: String) throws(JOSEError) -> OwnedKey {
        let x = try bytes(jwk, "x", name)
        guard x.count == 32 else {
            throw JOSEError(.invalidKey, "\(name) has an x of \(x.count) bytes; Ed25519 needs 32")
        }
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, x, x.count) else {
            throw JOSEError(.invalidKey, "\(name) is not an Ed25519 public key: \(OpenSSLError.drain())")
        }
        return OwnedKey(owning: key)
    }

    /// Runs OpenSSL's public-key check (for RSA: odd modulus without small
    /// factors, sane exponent; for EC: on the curve, right order).
    private static func checked(_ key: consuming OwnedKey, _ name: String, _ failure: String) throws(JOSEError)
        -> OwnedKey
    {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.raw, nil) else {
            throw .openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            throw JOSEError(.invalidKey, "\(name) \(failure): \(OpenSSLError.drain())")
        }
        return key
    }

    private static func optionalString(_ jwk: JSONValue, _ member: String) throws(JOSEError) -> String? {
        guard let value = jwk[member] else { return nil }
        guard let text = value.stringValue else {
            throw JOSEError(.invalidKey, "JWK member \"\(member)\" must be a string")
        }
        return text
    }

    private static func required(_ jwk: JSONValue, _ member: String, _ name: String) throws(JOSEError) -> String {
        guard let text = jwk[member]?.stringValue else {
            throw JOSEError(.invalidKey, "\(name) has no string member \"\(member)\"")
        }
        return text
    }

    /// A base64url member, decoded strictly (canonical, unpadded).
    private static func bytes(_ jwk: JSONValue, _ member: String, _ name: String) throws(JOSEError) -> [UInt8] {
        let text = try required(jwk, member, name)
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw JOSEError(.invalidKey, "\(name) member \"\(member)\" is not canonical unpadded base64url")
        }
        return bytes
    }
}
