internal import CJansson

/// One owned reference to a Jansson value, released exactly once: every
/// `json_t` JSONKit creates or loads passes through here, so no exit path
/// can leak or double-free it.
struct JanssonValue: ~Copyable {
    let raw: UnsafeMutablePointer<json_t>

    /// Takes over a reference the caller owns (a new value or `json_loadb`'s result).
    init(owning raw: UnsafeMutablePointer<json_t>) { self.raw = raw }

    /// Gives the reference away, to a Jansson call that steals it
    /// (`json_array_append_new`, `json_object_setn_new`).
    consuming func release() -> UnsafeMutablePointer<json_t> {
        let raw = self.raw
        discard self
        return raw
    }

    deinit { lr_json_decref(LibJansson.loaded, raw) }
}
