import CJanssonFront

/// kubectl's request (`KUBERNETES_EXEC_INFO`) read with Jansson, as the full
/// linkctl reads it through JSONKit: the same strict load (no duplicate
/// member, nothing after the value, no U+0000, valid UTF-8, numbers in
/// range) within the same `JSONDocumentLimits`. With `FrontAgent` (the agent
/// socket's JSON), the front's only files that touch Jansson (linked static).
enum FrontExecInfo {
    /// What the front acts on: the apiVersion to answer in, and whether a person is at kubectl's terminal.
    struct Request {
        var apiVersion: String
        var interactive: Bool
    }

    /// The request in `text`, or nil for anything the full linkctl would refuse or read differently (the front hands
    /// it over, and the full linkctl says what is wrong in its own words).
    static func parse(_ text: String) -> Request? {
        var bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= JSONDocumentLimits.maxBytes else { return nil }
        var error = json_error_t()
        let flags = Int(JSON_REJECT_DUPLICATES | JSON_DECODE_ANY)
        let loaded = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                json_loadb($0, buffer.count, flags, &error)
            }
        }
        guard let root = loaded else { return nil }
        defer { json_decref(root) }
        var members = 0
        guard within(root, depth: 0, members: &members), lr_front_json_typeof(root) == JSON_OBJECT,
            let version = json_object_get(root, "apiVersion"), let apiVersion = string(version),
            ExecCredential.accepts(apiVersion: apiVersion)
        else { return nil }
        var interactive = false
        if let spec = json_object_get(root, "spec"), lr_front_json_typeof(spec) == JSON_OBJECT,
            let value = json_object_get(spec, "interactive")
        {
            interactive = lr_front_json_typeof(value) == JSON_TRUE
        }
        return Request(apiVersion: apiVersion, interactive: interactive)
    }

    /// The document nests no deeper than `maxDepth` and has at most `maxMembers` members and elements, counted as
    /// JSONKit's reader counts them.
    private static func within(_ json: UnsafeMutablePointer<json_t>, depth: Int, members: inout Int) -> Bool {
        switch lr_front_json_typeof(json) {
        case JSON_ARRAY:
            let count = json_array_size(json)
            members += count
            guard depth + 1 <= JSONDocumentLimits.maxDepth, members <= JSONDocumentLimits.maxMembers else {
                return false
            }
            for index in 0..<count {
                guard let element = json_array_get(json, index), within(element, depth: depth + 1, members: &members)
                else { return false }
            }
            return true
        case JSON_OBJECT:
            members += json_object_size(json)
            guard depth + 1 <= JSONDocumentLimits.maxDepth, members <= JSONDocumentLimits.maxMembers else {
                return false
            }
            var iterator = json_object_iter(json)
            while let current = iterator {
                guard let value = json_object_iter_value(current), within(value, depth: depth + 1, members: &members)
                else { return false }
                iterator = json_object_iter_next(json, current)
            }
            return true
        default:
            return true
        }
    }

    /// A JSON string's text; nil for any other value (or one with U+0000, which Jansson has refused already).
    private static func string(_ json: UnsafeMutablePointer<json_t>) -> String? {
        guard lr_front_json_typeof(json) == JSON_STRING, let p = json_string_value(json) else { return nil }
        let count = json_string_length(json)
        let bytes = UnsafeRawBufferPointer(start: p, count: count)
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
