internal import CSodium
import SystemKit

/// libsodium, opened the first time an oidc-agent client asks for the encrypted
/// form (`crypto_box`, which OpenSSL does not have: X25519 with XSalsa20-Poly1305).
/// Never unloaded; initialised once (`sodium_init`, which is safe to call again).
final class LibSodium: @unchecked Sendable {
    // Immutable after init; each is code in a library that stays loaded.
    let keypair, seal, open, memzero, toBase64, fromBase64: UnsafeMutableRawPointer

    static let soname = "libsodium.so.23"

    /// The library, or why it cannot be used (then every encrypted request fails with that reason).
    static let shared: Result<LibSodium, SodiumError> = {
        let sym: SharedLibrary.Resolver
        switch SharedLibrary.open(soname) {
        case .success(let l): sym = l.resolver
        case .failure(let e):
            return .failure(
                .unavailable(
                    "oidc-agent's encrypted form needs \(soname) (Debian: libsodium23), which cannot be loaded: \(e.reason)"
                ))
        }
        let initialise = sym("sodium_init")
        let lib = LibSodium(sym)
        let missing = sym.missing
        guard missing.isEmpty else {
            return .failure(.unavailable("\(soname) lacks \(missing.joined(separator: ", ")); it is too old"))
        }
        // 0: initialised now; 1: already; -1: it could not be (no randomness).
        guard lr_sodium_init(initialise) >= 0 else { return .failure(.unavailable("sodium_init failed")) }
        return .success(lib)
    }()

    private init(_ sym: SharedLibrary.Resolver) {
        keypair = sym("crypto_box_keypair")
        seal = sym("crypto_box_easy")
        open = sym("crypto_box_open_easy")
        memzero = sym("sodium_memzero")
        toBase64 = sym("sodium_bin2base64")
        fromBase64 = sym("sodium_base642bin")
    }

    static func loaded() throws(SodiumError) -> LibSodium {
        switch shared {
        case .success(let l): return l
        case .failure(let e): throw e
        }
    }
}
