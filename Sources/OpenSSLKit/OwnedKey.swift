internal import COpenSSL

/// An `EVP_PKEY*` between import and `PublicKey`: freed if a check throws
/// on the way, handed over once the key is accepted.
struct OwnedKey: ~Copyable {
    let raw: OpaquePointer

    init(owning raw: OpaquePointer) { self.raw = raw }

    consuming func release() -> OpaquePointer {
        let raw = self.raw
        discard self
        return raw
    }

    deinit { EVP_PKEY_free(raw) }
}
