internal import COpenSSL

/// Builds the `OSSL_PARAM` list for `EVP_PKEY_fromdata` and owns everything
/// it points at until the key is made.
///
/// OpenSSL keeps the name and value pointers it is handed (a param's key,
/// a context's key type) rather than copying them, while Swift's
/// String-to-pointer conversion lasts one call; so each name and octet
/// string is copied into memory this value owns and frees in `deinit`,
/// with the builder and big numbers.
struct KeyParameters: ~Copyable {
    private let builder: OpaquePointer
    private var bignums: [OpaquePointer] = []
    /// Private scalars: wiped when freed.
    private var secrets: [OpaquePointer] = []
    private var buffers: [UnsafeMutableRawBufferPointer] = []

    init() throws(JOSEError) {
        guard let builder = OSSL_PARAM_BLD_new() else { throw .openSSL("OSSL_PARAM_BLD_new") }
        self.builder = builder
    }

    deinit {
        for bignum in bignums { BN_free(bignum) }
        for secret in secrets { BN_clear_free(secret) }
        for buffer in buffers { buffer.deallocate() }
        OSSL_PARAM_BLD_free(builder)
    }

    /// An unsigned big-endian integer (an RSA `n` or `e`).
    mutating func push(_ name: String, bigEndian bytes: [UInt8]) throws(JOSEError) {
        guard let bignum = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw .openSSL("BN_bin2bn") }
        bignums.append(bignum)
        guard OSSL_PARAM_BLD_push_BN(builder, keep(name), bignum) == 1 else { throw .openSSL("OSSL_PARAM_BLD_push_BN") }
    }

    /// A private scalar (an EC key's `d`), wiped from memory with this value.
    mutating func push(_ name: String, secret bytes: [UInt8]) throws(JOSEError) {
        guard let bignum = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw .openSSL("BN_bin2bn") }
        secrets.append(bignum)
        guard OSSL_PARAM_BLD_push_BN(builder, keep(name), bignum) == 1 else { throw .openSSL("OSSL_PARAM_BLD_push_BN") }
    }

    mutating func push(_ name: String, utf8 value: String) throws(JOSEError) {
        guard OSSL_PARAM_BLD_push_utf8_string(builder, keep(name), keep(value), 0) == 1 else {
            throw .openSSL("OSSL_PARAM_BLD_push_utf8_string")
        }
    }

    mutating func push(_ name: String, octets: [UInt8]) throws(JOSEError) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(octets.count, 1), alignment: 1)
        buffers.append(copy)
        copy.copyBytes(from: octets)
        guard OSSL_PARAM_BLD_push_octet_string(builder, keep(name), copy.baseAddress, octets.count) == 1 else {
            throw .openSSL("OSSL_PARAM_BLD_push_octet_string")
        }
    }

    /// A public key of `keyType` ("RSA", "EC") from the pushed parameters.
    /// Fails (with OpenSSL's reason) when the parameters are not a valid key.
    mutating func makePublicKey(_ keyType: String) throws(JOSEError) -> OwnedKey {
        // EVP_PKEY_PUBLIC_KEY
        try make(keyType, selection: Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY))
    }

    /// A key pair of `keyType` from the pushed parameters (the private part and the public).
    mutating func makeKeyPair(_ keyType: String) throws(JOSEError) -> OwnedKey {
        // EVP_PKEY_KEYPAIR
        try make(keyType, selection: Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_KEYPAIR))
    }

    private mutating func make(_ keyType: String, selection: Int32) throws(JOSEError) -> OwnedKey {
        let typeName = keep(keyType)
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw .openSSL("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, typeName, nil) else {
            throw .openSSL("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw .openSSL("EVP_PKEY_fromdata_init") }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &key, selection, params) == 1, let key else {
            throw JOSEError(.invalidKey, "OpenSSL refused the \(keyType) key: \(OpenSSLError.drain())")
        }
        return OwnedKey(owning: key)
    }

    /// A NUL-terminated copy of `text` that lives as long as this value.
    private mutating func keep(_ text: String) -> UnsafePointer<CChar> {
        let utf8 = Array(text.utf8CString)
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: utf8.count, alignment: 1)
        buffers.append(copy)
        utf8.withUnsafeBytes { copy.copyMemory(from: $0) }
        return UnsafePointer(copy.baseAddress!.assumingMemoryBound(to: CChar.self))
    }
}

extension JOSEError {
    /// A libcrypto call failed for its own reasons (allocation, provider).
    static func openSSL(_ function: String) -> JOSEError {
        JOSEError(.cryptoFailure, "\(function) failed: \(OpenSSLError.drain())")
    }
}
