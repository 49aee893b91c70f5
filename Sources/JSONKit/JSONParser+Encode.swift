internal import CJansson
public import LinkRouterCore

/// Jansson's functions, for writing: it is a dependency of the package, so not having it is a broken install.
private var j: lr_json { LibJansson.loaded }

extension JSONParser {
    /// Writes `value` as compact JSON text through Jansson's `json_dumpb`.
    ///
    /// Flags: `JSON_COMPACT` (no spaces), `JSON_ENCODE_ANY` (a scalar may be
    /// the top level), `JSON_PRESERVE_ORDER` (members in the order given; Jansson's
    /// default since 2.8, said here for the reader).
    /// Not `JSON_ENSURE_ASCII`: the result is a Swift `String`, always UTF-8,
    /// read by UTF-8 consumers (D-Bus strings, SQLite text), so escaping
    /// non-ASCII as `\uXXXX` would only make it longer. Reals are written with
    /// 17 significant digits, so every finite `Double` reads back exactly, and
    /// always with a `.` or exponent, so a real stays a real.
    ///
    /// Every value `parse` returns round-trips. Values `parse` never returns
    /// are written as Jansson can: a non-finite number as `null` (as
    /// JavaScript does), an object with a repeated name keeps the last.
    public static func encode(_ value: JSONValue) -> String {
        let root = JanssonValue(owning: build(value))
        let flags = Int(JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER)
        let size = lr_json_dumpb(j, root.raw, nil, 0, flags)
        precondition(size > 0, "json_dumpb could not size a value (out of memory)")
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBytes {
            lr_json_dumpb(j, root.raw, $0.baseAddress!.assumingMemoryBound(to: CChar.self), size, flags)
        }
        precondition(written == size, "json_dumpb wrote \(written) bytes of \(size)")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A new Jansson value (one owned reference) for `value`. Containers take
    /// their children with the `_new` calls, which steal the reference even
    /// when they fail. Allocation failure traps, as a Swift allocation would.
    private static func build(_ value: JSONValue) -> UnsafeMutablePointer<json_t> {
        let made: UnsafeMutablePointer<json_t>?
        switch value {
        case .null: made = lr_json_null(j)
        case .bool(let b): made = b ? lr_json_true(j) : lr_json_false(j)
        case .integer(let i): made = lr_json_integer(j, json_int_t(i))
        case .number(let d): made = d.isFinite ? lr_json_real(j, d) : lr_json_null(j)
        case .string(let s): made = withBytes(s) { lr_json_stringn(j, $0, $1) }
        case .array(let elements):
            let array = JanssonValue(owning: allocated(lr_json_array(j)))
            for element in elements {
                precondition(
                    lr_json_array_append_new(j, array.raw, build(element)) == 0,
                    "json_array_append_new failed (out of memory)")
            }
            made = array.release()
        case .object(let members):
            let object = JanssonValue(owning: allocated(lr_json_object(j)))
            for (name, member) in members {
                let status = withBytes(name) { lr_json_object_setn_new(j, object.raw, $0, $1, build(member)) }
                precondition(status == 0, "json_object_setn_new failed (out of memory)")
            }
            made = object.release()
        }
        return allocated(made)
    }

    private static func allocated(_ json: UnsafeMutablePointer<json_t>?) -> UnsafeMutablePointer<json_t> {
        guard let json else { preconditionFailure("Jansson could not allocate a value (out of memory)") }
        return json
    }

    /// A string's UTF-8 as Jansson's (pointer, length); never a null pointer,
    /// which Jansson refuses even for "".
    private static func withBytes<R>(_ text: String, _ body: (UnsafePointer<CChar>, Int) -> R) -> R {
        var text = text
        return text.withUTF8 { utf8 in
            if let base = utf8.baseAddress {
                return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { body($0, utf8.count) }
            }
            return body("", 0)
        }
    }
}
