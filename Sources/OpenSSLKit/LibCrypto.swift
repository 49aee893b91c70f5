internal import COpenSSL
import SystemKit

/// libcrypto, opened on the first hash, random draw or key check: its
/// functions, looked up once into the table the shims in COpenSSL/shim.h
/// call through (they keep OpenSSL's own names and types). Linked, libcrypto
/// was mapped and bound at every daemon start, ~1.4 MiB of the idle daemon's
/// memory (bench: daemon resident memory, idle), for work that waits for a login.
final class LibCrypto: @unchecked Sendable {
    // Immutable after init; the pointers are code in a library never unloaded.
    let fn: UnsafePointer<lr_crypto_functions>

    private init(_ fn: UnsafePointer<lr_crypto_functions>) { self.fn = fn }

    static let soname = "libcrypto.so.3"

    /// The table, or why libcrypto cannot be used (OpenSSL 3 is a dependency of the package).
    static let shared: Result<LibCrypto, CryptoError> = {
        let library: SharedLibrary
        switch SharedLibrary.open(soname) {
        case .success(let l): library = l
        case .failure(let e):
            return .failure(
                CryptoError(operation: "dlopen", reason: "\(soname) (Debian: libssl3) cannot be loaded: \(e.reason)"))
        }
        let symbols: [(String, WritableKeyPath<lr_crypto_functions, UnsafeMutableRawPointer?>)] = [
            ("BN_bin2bn", \.BN_bin2bn),
            ("BN_free", \.BN_free),
            ("ECDSA_SIG_free", \.ECDSA_SIG_free),
            ("ECDSA_SIG_new", \.ECDSA_SIG_new),
            ("ECDSA_SIG_set0", \.ECDSA_SIG_set0),
            ("i2d_ECDSA_SIG", \.i2d_ECDSA_SIG),
            ("ERR_clear_error", \.ERR_clear_error),
            ("ERR_error_string_n", \.ERR_error_string_n),
            ("ERR_get_error", \.ERR_get_error),
            ("EVP_DigestFinal_ex", \.EVP_DigestFinal_ex),
            ("EVP_DigestInit_ex", \.EVP_DigestInit_ex),
            ("EVP_DigestUpdate", \.EVP_DigestUpdate),
            ("EVP_DigestVerify", \.EVP_DigestVerify),
            ("EVP_DigestVerifyInit", \.EVP_DigestVerifyInit),
            ("EVP_MD_CTX_free", \.EVP_MD_CTX_free),
            ("EVP_MD_CTX_new", \.EVP_MD_CTX_new),
            ("EVP_PKEY_CTX_free", \.EVP_PKEY_CTX_free),
            ("EVP_PKEY_CTX_new_from_name", \.EVP_PKEY_CTX_new_from_name),
            ("EVP_PKEY_CTX_new_from_pkey", \.EVP_PKEY_CTX_new_from_pkey),
            ("EVP_PKEY_CTX_set_rsa_mgf1_md", \.EVP_PKEY_CTX_set_rsa_mgf1_md),
            ("EVP_PKEY_CTX_set_rsa_padding", \.EVP_PKEY_CTX_set_rsa_padding),
            ("EVP_PKEY_CTX_set_rsa_pss_saltlen", \.EVP_PKEY_CTX_set_rsa_pss_saltlen),
            ("EVP_PKEY_free", \.EVP_PKEY_free),
            ("EVP_PKEY_fromdata", \.EVP_PKEY_fromdata),
            ("EVP_PKEY_fromdata_init", \.EVP_PKEY_fromdata_init),
            ("EVP_PKEY_get_bits", \.EVP_PKEY_get_bits),
            ("EVP_PKEY_new_raw_public_key", \.EVP_PKEY_new_raw_public_key),
            ("EVP_PKEY_public_check", \.EVP_PKEY_public_check),
            ("EVP_sha256", \.EVP_sha256),
            ("OSSL_PARAM_BLD_free", \.OSSL_PARAM_BLD_free),
            ("OSSL_PARAM_BLD_new", \.OSSL_PARAM_BLD_new),
            ("OSSL_PARAM_BLD_push_BN", \.OSSL_PARAM_BLD_push_BN),
            ("OSSL_PARAM_BLD_push_octet_string", \.OSSL_PARAM_BLD_push_octet_string),
            ("OSSL_PARAM_BLD_push_utf8_string", \.OSSL_PARAM_BLD_push_utf8_string),
            ("OSSL_PARAM_BLD_to_param", \.OSSL_PARAM_BLD_to_param),
            ("OSSL_PARAM_free", \.OSSL_PARAM_free),
            ("SHA256_Init", \.SHA256_Init),
            ("SHA256_Update", \.SHA256_Update),
            ("SHA256_Final", \.SHA256_Final),
            ("BN_bn2binpad", \.BN_bn2binpad),
            ("BN_clear_free", \.BN_clear_free),
            ("d2i_ECDSA_SIG", \.d2i_ECDSA_SIG),
            ("ECDSA_SIG_get0", \.ECDSA_SIG_get0),
            ("EVP_DigestSign", \.EVP_DigestSign),
            ("EVP_DigestSignInit", \.EVP_DigestSignInit),
            ("EVP_PKEY_CTX_set_group_name", \.EVP_PKEY_CTX_set_group_name),
            ("EVP_PKEY_generate", \.EVP_PKEY_generate),
            ("EVP_PKEY_get_bn_param", \.EVP_PKEY_get_bn_param),
            ("EVP_PKEY_get_octet_string_param", \.EVP_PKEY_get_octet_string_param),
            ("EVP_PKEY_keygen_init", \.EVP_PKEY_keygen_init),
        ]
        var functions = lr_crypto_functions()
        let missing = library.fill(&functions, symbols)
        guard missing.isEmpty else {
            return .failure(
                CryptoError(
                    operation: "dlsym",
                    reason: "\(soname) lacks \(missing.joined(separator: ", ")); OpenSSL 3.0 or later is needed"))
        }
        let table = UnsafeMutablePointer<lr_crypto_functions>.allocate(capacity: 1)
        table.initialize(to: functions)
        return .success(LibCrypto(UnsafePointer(table)))
    }()
}

/// What the shims call: the table, loaded on first use. OpenSSL is a
/// dependency of the package; without it no login could be checked, so the
/// daemon stops with the reason rather than go on without it.
@_cdecl("lr_crypto")
func loadedCryptoTable() -> UnsafePointer<lr_crypto_functions> {
    switch LibCrypto.shared {
    case .success(let lib): return lib.fn
    case .failure(let e): preconditionFailure("\(e)")
    }
}
