internal import COpenSSL
public import LinkRouterCore

/// A P-256 key pair the daemon makes and keeps, to sign ES256 JWSs (RFC 7518
/// §3.4): DPoP proofs (RFC 9449), whose key binds an account's tokens to this
/// daemon. The private half leaves the process only as `privateJWK`, for the
/// keyring; nothing else reads it.
public final class SigningKey: @unchecked Sendable {
    // Immutable after init; OpenSSL's EVP_PKEY is safe to use from several threads for signing.
    private let raw: OpaquePointer
    /// The public point's coordinates, 32 bytes each.
    public let x: [UInt8]
    public let y: [UInt8]

    private init(_ key: consuming OwnedKey) throws(JOSEError) {
        raw = key.release()
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(raw, OSSL_PKEY_PARAM_PUB_KEY, &point, point.count, &length) == 1,
            length == 65, point[0] == 0x04
        else {
            EVP_PKEY_free(raw)
            throw JOSEError(
                .invalidKey, "the key's public point is not an uncompressed P-256 point: \(OpenSSLError.drain())")
        }
        x = Array(point[1...32])
        y = Array(point[33...64])
    }

    deinit { EVP_PKEY_free(raw) }

    /// A fresh key pair from OpenSSL's generator.
    public static func generate() throws(JOSEError) -> SigningKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .openSSL("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else {
            throw .openSSL("EVP_PKEY_keygen_init")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw .openSSL("EVP_PKEY_generate") }
        return try SigningKey(OwnedKey(owning: key))
    }

    /// The key kept as `privateJWK` (RFC 7518 §6.2.2: `kty` EC, `crv` P-256, `x`, `y`, `d`),
    /// checked: the point must be on the curve and be `d`'s.
    public convenience init(privateJWK jwk: JSONValue) throws(JOSEError) {
        func member(_ name: String) throws(JOSEError) -> [UInt8] {
            guard let text = jwk[name]?.stringValue, let bytes = Base64URL.decode(text), bytes.count == 32 else {
                throw JOSEError(.invalidKey, "the kept signing key has no 32-byte \"\(name)\"")
            }
            return bytes
        }
        guard jwk["kty"]?.stringValue == "EC", jwk["crv"]?.stringValue == "P-256" else {
            throw JOSEError(.invalidKey, "the kept signing key is not an EC P-256 key")
        }
        let (x, y, d) = (try member("x"), try member("y"), try member("d"))
        var parameters = try KeyParameters()
        try parameters.push(OSSL_PKEY_PARAM_GROUP_NAME, utf8: "prime256v1")
        try parameters.push(OSSL_PKEY_PARAM_PUB_KEY, octets: [0x04] + x + y)
        try parameters.push(OSSL_PKEY_PARAM_PRIV_KEY, secret: d)
        let key = try parameters.makeKeyPair("EC")
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.raw, nil) else {
            throw .openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            throw JOSEError(.invalidKey, "the kept signing key's point is not on P-256: \(OpenSSLError.drain())")
        }
        try self.init(key)
        // A point that is not d·G would sign with one key and publish another.
        let probe = Array("linkrouter key check".utf8)
        guard (try? PublicKey(jwk: publicJWK).verify(try sign(probe), of: probe, using: .es256)) == true else {
            throw JOSEError(.invalidKey, "the kept signing key's public point is not its private key's")
        }
    }

    /// The public half as a JWK (RFC 7517): `kty`, `crv`, `x`, `y`, in RFC 7638's member order.
    public var publicJWK: JSONValue {
        .object([
            ("crv", .string("P-256")), ("kty", .string("EC")), ("x", .string(Base64URL.encode(x))),
            ("y", .string(Base64URL.encode(y))),
        ])
    }

    /// Both halves, for the keyring only.
    public func privateJWK() throws(JOSEError) -> JSONValue {
        var scalar: OpaquePointer?
        guard EVP_PKEY_get_bn_param(raw, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar else {
            throw .openSSL("EVP_PKEY_get_bn_param")
        }
        defer { BN_clear_free(scalar) }
        var d = [UInt8](repeating: 0, count: 32)
        defer { for i in d.indices { d[i] = 0 } }
        guard BN_bn2binpad(scalar, &d, 32) == 32 else { throw .openSSL("BN_bn2binpad") }
        guard case .object(var members) = publicJWK else { return publicJWK }
        members.append(("d", .string(Base64URL.encode(d))))
        return .object(members)
    }

    /// An ES256 signature of `message`: JOSE's 64 bytes `r || s` (RFC 7518 §3.4), not DER.
    public func sign(_ message: [UInt8]) throws(JOSEError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, raw) == 1 else {
            throw .openSSL("EVP_DigestSignInit")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw .openSSL("EVP_DigestSign")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            throw .openSSL("EVP_DigestSign")
        }
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, length)
        }
        guard let signature else { throw .openSSL("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var out = [UInt8](repeating: 0, count: 64)
        let written = out.withUnsafeMutableBufferPointer { b in
            (BN_bn2binpad(r, b.baseAddress, 32), BN_bn2binpad(s, b.baseAddress! + 32, 32))
        }
        guard written == (32, 32) else { throw .openSSL("BN_bn2binpad") }
        return out
    }

    /// RFC 7638's thumbprint of the public key (DPoP's `jkt`, RFC 9449 §6).
    public func thumbprint() throws(CryptoError) -> String {
        try Self.thumbprint(x: Base64URL.encode(x), y: Base64URL.encode(y))
    }

    /// RFC 7638 §3 for a P-256 key given as its JWK's `x` and `y`: SHA-256 of the required
    /// members in lexicographic order, no whitespace, base64url.
    public static func thumbprint(x: String, y: String) throws(CryptoError) -> String {
        guard Base64URL.isEncoded(x), Base64URL.isEncoded(y) else {
            throw CryptoError(operation: "thumbprint", reason: "x and y must be base64url")
        }
        return Base64URL.encode(try SHA256.hash("{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x)\",\"y\":\"\(y)\"}"))
    }
}
