internal import CJansson
import SystemKit

/// Jansson, opened on the first JSON read or written: its functions, looked
/// up once, for the shims in CJansson/shim.h (`lr_json_…(jansson, …)`).
/// Linked, it was loaded and bound by every linkctl start, the click path
/// included, for the one verb that reads JSON (bench: instruction counts).
final class LibJansson: @unchecked Sendable {
    // Immutable after init; the pointers are code in a library never unloaded.
    let fn: lr_json

    private init(_ fn: lr_json) { self.fn = fn }

    static let soname = "libjansson.so.4"

    /// The library, or why Jansson cannot be used.
    static let shared: Result<LibJansson, JSONError> = {
        let library: SharedLibrary
        switch SharedLibrary.open(soname) {
        case .success(let l): library = l
        case .failure(let e):
            return .failure(
                JSONError(
                    .unavailable, "JSON needs \(soname) (Debian: libjansson4), which cannot be loaded: \(e.reason)"))
        }
        let symbols: [(String, WritableKeyPath<lr_json_functions, UnsafeMutableRawPointer?>)] = [
            ("json_loadb", \.loadb), ("json_dumpb", \.dumpb), ("json_delete", \.delete_),
            ("json_null", \.null), ("json_true", \.true_), ("json_false", \.false_), ("json_integer", \.integer),
            ("json_integer_value", \.integer_value), ("json_real", \.real), ("json_real_value", \.real_value),
            ("json_stringn", \.stringn), ("json_string_value", \.string_value), ("json_string_length", \.string_length),
            ("json_array", \.array), ("json_array_size", \.array_size), ("json_array_get", \.array_get),
            ("json_array_append_new", \.array_append_new),
            ("json_object", \.object), ("json_object_size", \.object_size), ("json_object_iter", \.object_iter),
            ("json_object_iter_next", \.object_iter_next), ("json_object_iter_key", \.object_iter_key),
            ("json_object_iter_key_len", \.object_iter_key_len), ("json_object_iter_value", \.object_iter_value),
            ("json_object_setn_new", \.object_setn_new),
        ]
        var functions = lr_json_functions()
        let missing = library.fill(&functions, symbols)
        guard missing.isEmpty else {
            return .failure(
                JSONError(
                    .unavailable, "\(soname) lacks \(missing.joined(separator: ", ")); Jansson 2.14 or later is needed")
            )
        }
        let table = UnsafeMutablePointer<lr_json_functions>.allocate(capacity: 1)
        table.initialize(to: functions)
        return .success(LibJansson(UnsafePointer(table)))
    }()

    /// The table, for code that cannot fail here (writing JSON): Jansson is a dependency of the package.
    static var loaded: lr_json {
        switch shared {
        case .success(let lib): return lib.fn
        case .failure(let e): preconditionFailure(e.message)
        }
    }
}
