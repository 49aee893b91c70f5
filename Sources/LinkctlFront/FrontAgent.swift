import CJanssonFront
import CLibc

/// `GetToken` on linkrouterd's agent socket (`AgentSocket`): one connection,
/// one write and one read, where the bus takes two round trips to it and the
/// daemon one more to the bus for the caller's credentials (the socket's are
/// the kernel's, `SO_PEERCRED`). The request and the answer are JSON, Jansson
/// writing and reading them (linked static); the answer is the same `a{sv}`
/// the bus would carry, or the same D-Bus error's name and message, so linkctl
/// prints the same. Nil when no daemon listens there (the socket is missing,
/// refuses, or closes without an answer): the caller asks the bus, which also
/// starts the daemon.
enum FrontAgent {
    /// Whether the agent socket is there (a daemon made it; it may have stopped since).
    static var present: Bool {
        guard let path = path else { return false }
        return access(path, F_OK) == 0
    }

    /// `$XDG_RUNTIME_DIR/linkrouter/agent`, or nil without a runtime directory.
    private static var path: String? {
        FrontProcess.nonEmpty("XDG_RUNTIME_DIR").map { $0 + "/" + AgentSocket.directory + "/" + AgentSocket.name }
    }

    static func getToken(_ name: String, _ options: [(String, FrontBus.Option)], timeoutMilliseconds: Int32)
        -> FrontBus.Answer?
    {
        guard let path, let request = request(name, options), let fd = FrontProcess.connectUnix(path) else {
            return nil
        }
        defer { close(fd) }
        guard write(fd, request), let answer = readAll(fd, timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        return parse(answer)
    }

    /// `{"request":"linkrouter_token","account":NAME,"options":{…}}`, compact.
    private static func request(_ name: String, _ options: [(String, FrontBus.Option)]) -> [UInt8]? {
        guard let root = json_object(), let fields = json_object() else { return nil }
        defer { json_decref(root) }
        json_object_set_new(root, "request", json_string(AgentSocket.tokenRequest))
        json_object_set_new(root, "account", json_string(name))
        for (key, value) in options {
            switch value {
            case .string(let s): json_object_set_new(fields, key, json_string(s))
            case .uint32(let n): json_object_set_new(fields, key, json_integer(json_int_t(n)))
            case .boolean(let b): json_object_set_new(fields, key, b ? json_true() : json_false())
            case .strings(let list):
                let array = json_array()
                for item in list { json_array_append_new(array, json_string(item)) }
                json_object_set_new(fields, key, array)
            }
        }
        json_object_set_new(root, "options", fields)
        guard let text = json_dumps(root, Int(JSON_COMPACT)) else { return nil }
        defer { free(text) }
        var bytes: [UInt8] = []
        var p = text
        while p.pointee != 0 {
            bytes.append(UInt8(bitPattern: p.pointee))
            p += 1
        }
        return bytes
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Everything until the daemon closes (it does once it has answered), within the deadline.
    private static func readAll(_ fd: Int32, timeoutMilliseconds: Int32) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            guard poll(&poller, 1, timeoutMilliseconds) == 1 else { return nil }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 4096, 0) }
            if n == 0 { return out.isEmpty ? nil : out }
            guard n > 0, out.count + n <= JSONDocumentLimits.maxBytes else { return nil }
            out += buffer[0..<n]
        }
    }

    /// The answer as the bus's: the `a{sv}` under `reply`, or the error's name and message; nil for anything else
    /// (an oidc-agent-form failure: the bus is asked instead, and says it in its words).
    private static func parse(_ bytes: [UInt8]) -> FrontBus.Answer? {
        var bytes = bytes
        var error = json_error_t()
        let loaded = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                json_loadb($0, buffer.count, Int(JSON_REJECT_DUPLICATES), &error)
            }
        }
        guard let root = loaded else { return nil }
        defer { json_decref(root) }
        if let name = string(json_object_get(root, AgentSocket.errorName)),
            let message = string(json_object_get(root, "error"))
        {
            return .refused(name: name, message: message)
        }
        guard let reply = json_object_get(root, AgentSocket.reply), lr_front_json_typeof(reply) == JSON_OBJECT else {
            return nil
        }
        var answer = FrontBus.Reply()
        var iterator = json_object_iter(reply)
        while let current = iterator {
            guard let keyPointer = json_object_iter_key(current), let value = json_object_iter_value(current) else {
                return nil
            }
            let key = String(cString: keyPointer)
            switch lr_front_json_typeof(value) {
            case JSON_STRING:
                guard let s = string(value) else { return nil }
                answer.entries.all.append((key, .string(s)))
            case JSON_INTEGER: answer.entries.all.append((key, .integer(Int64(json_integer_value(value)))))
            case JSON_TRUE: answer.entries.all.append((key, .boolean(true)))
            case JSON_FALSE: answer.entries.all.append((key, .boolean(false)))
            case JSON_ARRAY:
                var list: [String] = []
                for index in 0..<json_array_size(value) {
                    guard let item = string(json_array_get(value, index)) else { return nil }
                    list.append(item)
                }
                answer.entries.all.append((key, .strings(list)))
            default: return nil
            }
            iterator = json_object_iter_next(reply, current)
        }
        return .reply(answer)
    }

    /// A JSON string's text; nil for any other value (or none).
    private static func string(_ json: UnsafeMutablePointer<json_t>?) -> String? {
        guard let json, lr_front_json_typeof(json) == JSON_STRING, let p = json_string_value(json) else { return nil }
        let bytes = UnsafeRawBufferPointer(start: p, count: json_string_length(json))
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
