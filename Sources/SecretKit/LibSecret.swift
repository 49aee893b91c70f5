internal import CSecret
import SystemKit

/// libsecret, opened on the first keyring call, with the GLib functions its
/// calls need (found through its handle: GLib is among its dependencies).
/// Never unloaded: GLib cannot be.
final class LibSecret: @unchecked Sendable {
    // Immutable after init; each is code in a library that stays loaded.
    let hashNew, hashInsert, hashUnref, strHash, strEqual, strdup, free, errorFree,
        quarkToString: UnsafeMutableRawPointer
    let cancellableNew, cancellableCancel, objectUnref: UnsafeMutableRawPointer
    let schemaNewv, schemaUnref, storev, lookupv, clearv, passwordFree, serviceDisconnect: UnsafeMutableRawPointer

    static let soname = "libsecret-1.so.0"

    /// The library, or why it cannot be used (then every keyring call fails with that reason).
    static let shared: Result<LibSecret, SecretError> = {
        let sym: SharedLibrary.Resolver
        switch SharedLibrary.open(soname) {
        case .success(let l): sym = l.resolver
        case .failure(let e):
            return .failure(
                .unavailable(
                    "tokens are kept in the Secret Service through \(soname) (Debian: libsecret-1-0), which cannot be loaded: \(e.reason)"
                ))
        }
        let lib = LibSecret(sym)
        let missing = sym.missing
        guard missing.isEmpty else {
            return .failure(
                .unavailable(
                    "\(soname) lacks \(missing.joined(separator: ", ")); it is too old (libsecret 0.18 or later is needed)"
                ))
        }
        return .success(lib)
    }()

    private init(_ sym: SharedLibrary.Resolver) {
        hashNew = sym("g_hash_table_new_full")
        hashInsert = sym("g_hash_table_insert")
        hashUnref = sym("g_hash_table_unref")
        strHash = sym("g_str_hash")
        strEqual = sym("g_str_equal")
        strdup = sym("g_strdup")
        free = sym("g_free")
        errorFree = sym("g_error_free")
        quarkToString = sym("g_quark_to_string")
        cancellableNew = sym("g_cancellable_new")
        cancellableCancel = sym("g_cancellable_cancel")
        objectUnref = sym("g_object_unref")
        schemaNewv = sym("secret_schema_newv")
        schemaUnref = sym("secret_schema_unref")
        storev = sym("secret_password_storev_sync")
        lookupv = sym("secret_password_lookupv_sync")
        clearv = sym("secret_password_clearv_sync")
        passwordFree = sym("secret_password_free")
        serviceDisconnect = sym("secret_service_disconnect")
    }

    /// A `GHashTable` of strings (keys and values copied, freed with it).
    func table(_ pairs: [(String, String)]) -> UnsafeMutableRawPointer {
        let t = lr_hash_new(hashNew, strHash, strEqual, free, free)!
        for (k, v) in pairs { _ = lr_hash_insert(hashInsert, t, lr_strdup(strdup, k), lr_strdup(strdup, v)) }
        return t
    }

    /// The schema: its name, and each attribute a string (`SECRET_SCHEMA_ATTRIBUTE_STRING` is 0).
    func schema(_ name: String, attributes: [String]) -> UnsafeMutableRawPointer {
        let types = lr_hash_new(hashNew, strHash, strEqual, free, nil)!
        for a in attributes { _ = lr_hash_insert(hashInsert, types, lr_strdup(strdup, a), nil) }
        let s = lr_schema_newv(schemaNewv, name, 0, types)!
        lr_call1(hashUnref, types)
        return s
    }

    /// Takes a `GError`: what it says, and whether it was a cancellation (`G_IO_ERROR_CANCELLED`).
    func take(_ error: UnsafeMutablePointer<lr_gerror>) -> (message: String, cancelled: Bool) {
        let domain = lr_quark_to_string(quarkToString, error.pointee.domain).map { String(cString: $0) } ?? ""
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        let cancelled = domain == "g-io-error-quark" && error.pointee.code == 19
        lr_call1(errorFree, error)
        return (message, cancelled)
    }
}

/// A `GCancellable` the loop can cancel while the worker waits in libsecret.
final class Cancellable: @unchecked Sendable {
    private let lib: LibSecret
    let raw: UnsafeMutableRawPointer

    init(_ lib: LibSecret) {
        self.lib = lib
        raw = lr_new0(lib.cancellableNew)!
    }

    /// Thread-safe (GLib's own lock): called from the loop at a deadline.
    func cancel() { lr_call1(lib.cancellableCancel, raw) }

    deinit { lr_call1(lib.objectUnref, raw) }
}
