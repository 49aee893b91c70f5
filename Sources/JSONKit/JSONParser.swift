internal import CJansson
public import LinkRouterCore

/// Reads JSON text with Jansson into a `JSONValue`, refusing what an
/// attacker could use against a JWT or JWKS reader: duplicate member names,
/// trailing text, U+0000, invalid UTF-8, out-of-range numbers, and documents
/// larger, deeper or wider than `Limits`.
public enum JSONParser {
    /// Bounds on one document. The defaults fit any JOSE header, ID token
    /// payload or provider JWKS seen in practice with a wide margin.
    public struct Limits: Sendable, Equatable {
        /// Longest document, checked before Jansson reads a byte.
        public var maxBytes: Int
        /// Deepest nesting of objects and arrays (the top container is depth 1).
        public var maxDepth: Int
        /// Most object members plus array elements in the whole document.
        public var maxMembers: Int

        public init(
            maxBytes: Int = JSONDocumentLimits.maxBytes, maxDepth: Int = JSONDocumentLimits.maxDepth,
            maxMembers: Int = JSONDocumentLimits.maxMembers
        ) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxMembers = maxMembers
        }
    }

    /// Parses one JSON text (RFC 8259: any value may be the top level).
    ///
    /// Jansson builds its tree first (its own nesting cap is 2048, and the
    /// byte limit bounds the tree's size); depth and member limits are then
    /// checked while the tree is copied out, before any of it reaches a caller.
    public static func parse(_ bytes: some Collection<UInt8>, limits: Limits = .init()) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw JSONError(
                .tooLarge, "the document is \(bytes.count) bytes, more than the limit of \(limits.maxBytes)")
        }
        guard !bytes.isEmpty else { throw JSONError(.syntax, "the document is empty") }
        let result =
            bytes.withContiguousStorageIfAvailable { read($0, limits) }
            ?? Array(bytes).withUnsafeBufferPointer { read($0, limits) }
        return try result.get()
    }

    /// Loads and copies out; a `Result` because the buffer closures rethrow untyped.
    private static func read(_ buffer: UnsafeBufferPointer<UInt8>, _ limits: Limits) -> Result<JSONValue, JSONError> {
        do throws(JSONError) {
            let j = try LibJansson.shared.get().fn
            let root = try load(buffer, j)
            var reader = TreeReader(j: j, limits: limits)
            return .success(try reader.value(root.raw, depth: 0))
        } catch {
            return .failure(error)
        }
    }

    /// `json_loadb` with the strict flags. Not set, on purpose:
    /// `JSON_DISABLE_EOF_CHECK` (trailing text is an error) and
    /// `JSON_ALLOW_NUL` (U+0000 in a string is an error).
    private static func load(_ buffer: UnsafeBufferPointer<UInt8>, _ j: lr_json) throws(JSONError) -> JanssonValue {
        var error = json_error_t()
        let flags = Int(JSON_REJECT_DUPLICATES | JSON_DECODE_ANY)
        let loaded = UnsafeRawPointer(buffer.baseAddress!).withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            lr_json_loadb(j, $0, buffer.count, flags, &error)
        }
        guard let loaded else { throw translate(error) }
        return JanssonValue(owning: loaded)
    }

    /// Jansson's error as ours, without the "near '…'" excerpt of the text.
    private static func translate(_ error: json_error_t) -> JSONError {
        var error = error
        let code: JSONError.Code
        switch json_error_code(&error) {
        case json_error_invalid_utf8: code = .invalidUTF8
        case json_error_null_character, json_error_null_byte_in_key: code = .nulCharacter
        case json_error_duplicate_key: code = .duplicateMember
        case json_error_numeric_overflow: code = .numberOutOfRange
        case json_error_stack_overflow: code = .tooDeep
        case json_error_out_of_memory: code = .tooLarge
        default: code = .syntax
        }
        var text = withUnsafeBytes(of: error.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if let near = text.firstRange(of: " near '") { text = String(text[..<near.lowerBound]) }
        return JSONError(code, line: Int(error.line), column: Int(error.column), text)
    }
}

/// Copies Jansson's tree into `JSONValue`s, counting members and depth. The
/// `json_t` pointers it visits are borrowed from the root it was given.
private struct TreeReader {
    let j: lr_json
    let limits: JSONParser.Limits
    var members = 0
    /// Where the reader is, for limit errors: `$`, `.name`, `[3]`.
    var path: [String] = ["$"]

    mutating func value(_ json: UnsafeMutablePointer<json_t>, depth: Int) throws(JSONError) -> JSONValue {
        switch lr_json_typeof(json) {
        case JSON_NULL: return .null
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        case JSON_INTEGER: return .integer(Int64(lr_json_integer_value(j, json)))
        case JSON_REAL: return .number(lr_json_real_value(j, json))
        case JSON_STRING:
            let bytes = UnsafeRawBufferPointer(
                start: lr_json_string_value(j, json), count: lr_json_string_length(j, json))
            return .string(try string(bytes))
        case JSON_ARRAY:
            let count = lr_json_array_size(j, json)
            try enter(depth: depth + 1, adding: count)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                path.append("[\(index)]")
                elements.append(try value(lr_json_array_get(j, json, index), depth: depth + 1))
                path.removeLast()
            }
            return .array(elements)
        case JSON_OBJECT:
            try enter(depth: depth + 1, adding: lr_json_object_size(j, json))
            var result: [(String, JSONValue)] = []
            result.reserveCapacity(lr_json_object_size(j, json))
            var iterator = lr_json_object_iter(j, json)
            while let current = iterator {
                let name = try string(
                    UnsafeRawBufferPointer(
                        start: lr_json_object_iter_key(j, current), count: lr_json_object_iter_key_len(j, current)))
                path.append(".\(name)")
                result.append((name, try value(lr_json_object_iter_value(j, current), depth: depth + 1)))
                path.removeLast()
                iterator = lr_json_object_iter_next(j, json, current)
            }
            return .object(result)
        default:
            throw JSONError(.syntax, "Jansson returned a value of unknown type at \(path.joined())")
        }
    }

    private mutating func enter(depth: Int, adding count: Int) throws(JSONError) {
        guard depth <= limits.maxDepth else {
            throw JSONError(.tooDeep, "objects and arrays nest deeper than \(limits.maxDepth) at \(path.joined())")
        }
        members += count
        guard members <= limits.maxMembers else {
            throw JSONError(
                .tooManyMembers,
                "the document has more than \(limits.maxMembers) members and elements (at \(path.joined()))")
        }
    }

    /// Jansson has already checked UTF-8 and refused U+0000; this keeps the
    /// promise even if it ever did not.
    private func string(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> String {
        guard !bytes.contains(0) else { throw JSONError(.nulCharacter, "U+0000 in a string at \(path.joined())") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw JSONError(.invalidUTF8, "a string at \(path.joined()) is not valid UTF-8")
        }
        return text
    }
}
