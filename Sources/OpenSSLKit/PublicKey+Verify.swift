internal import COpenSSL

extension PublicKey {
    /// Checks `signature` over `message` with this key under `algorithm`.
    ///
    /// Returns false when the signature does not verify. Throws when the
    /// question is wrong rather than the answer: the key's type does not fit
    /// the algorithm (`.noMatchingKey`), an ES256 signature is not the 64
    /// bytes of JOSE's `r || s` (`.malformedToken`; a DER signature is a
    /// common interop bug, and must not be accepted as an alternative
    /// spelling), or libcrypto fails (`.cryptoFailure`).
    ///
    /// libcrypto: `EVP_DigestVerifyInit` with SHA-256 (none for Ed25519,
    /// which hashes internally), `EVP_PKEY_CTX_set_rsa_padding`,
    /// `_set_rsa_pss_saltlen` and `_set_rsa_mgf1_md` for PS256, and the
    /// one-shot `EVP_DigestVerify`.
    public func verify(_ signature: [UInt8], of message: [UInt8], using algorithm: SignatureAlgorithm) throws(JOSEError)
        -> Bool
    {
        guard algorithm.keyType == type else {
            throw JOSEError(
                .noMatchingKey, "\(self) cannot verify \(algorithm.rawValue): \(misfit(for: algorithm) ?? "")")
        }
        var encoded = signature
        if algorithm == .es256 {
            guard signature.count == 64 else {
                throw JOSEError(
                    .malformedToken,
                    "an ES256 signature is 64 bytes (r || s, RFC 7518 §3.4); this one is \(signature.count)")
            }
            encoded = try Self.derSignature(r: signature[..<32], s: signature[32...])
        }

        let context = try VerifyContext()
        var keyContext: OpaquePointer?
        let digest = algorithm == .edDSA ? nil : EVP_sha256()
        guard EVP_DigestVerifyInit(context.raw, &keyContext, digest, nil, raw) == 1 else {
            throw .openSSL("EVP_DigestVerifyInit")
        }
        if algorithm == .ps256 {
            // RFC 7518 §3.5: MGF1 with the same SHA-256, salt as long as the hash.
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, 32) == 1,
                EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, EVP_sha256()) == 1
            else { throw .openSSL("setting RSA-PSS parameters") }
        }
        let status = EVP_DigestVerify(context.raw, encoded, encoded.count, message, message.count)
        // 0 is a mismatch, below 0 a malformed signature (wrong length, bad
        // DER): both leave errors on the queue and both mean "not verified".
        if status != 1 { ERR_clear_error() }
        return status == 1
    }

    /// JOSE's fixed-width `r || s` as the DER `ECDSA-Sig-Value` OpenSSL reads.
    private static func derSignature(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>) throws(JOSEError) -> [UInt8] {
        guard let signature = ECDSA_SIG_new() else { throw .openSSL("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        let rNumber = r.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let sNumber = s.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        // ECDSA_SIG_set0 takes both numbers only when it succeeds.
        guard let rNumber, let sNumber, ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
            BN_free(rNumber)
            BN_free(sNumber)
            throw .openSSL("ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw .openSSL("i2d_ECDSA_SIG") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw .openSSL("i2d_ECDSA_SIG") }
        return der
    }
}

/// One `EVP_MD_CTX` for one verification, freed exactly once.
private struct VerifyContext: ~Copyable {
    let raw: OpaquePointer

    init() throws(JOSEError) {
        guard let raw = EVP_MD_CTX_new() else { throw .openSSL("EVP_MD_CTX_new") }
        self.raw = raw
    }

    deinit { EVP_MD_CTX_free(raw) }
}
