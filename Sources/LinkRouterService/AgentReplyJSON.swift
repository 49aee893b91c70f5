import DBusKit
import LinkRouterAPI
import LinkRouterCore

/// linkrouter's own request on the agent socket (`AgentSocket.tokenRequest`),
/// in the bus's terms: its options as the `a{sv}` `GetToken` takes (each value
/// typed by `TokenRequest.options`' row, so `OptionsDecoder` checks it as over
/// the bus), and its answer as the `a{sv}` `GetToken` returns
/// (`ResultDictionary`, the one owner of its keys) or the D-Bus error's name and
/// message, in JSON.
enum AgentReplyJSON {
    /// The options object as an `a{sv}`: a string, a number (`u`), a boolean, a list of strings, by the row's type;
    /// a string under any key goes as a string, and any other value as an `x` (its integer, or -1), which no
    /// option takes, so the decoder refuses an unknown key or a wrong type in its own words.
    static func options(_ json: JSONValue) -> DBusValue {
        var entries: [(String, DBusValue)] = []
        for (key, value) in json.objectValue ?? [] {
            let signature = TokenRequest.options.named(key)?.signature
            switch (signature, value) {
            case ("u", .integer(let n)) where n >= 0 && n <= Int64(UInt32.max):
                entries.append((key, .uint32(UInt32(n))))
            case ("b", .bool(let b)): entries.append((key, .boolean(b)))
            case ("as", .array(let items)) where items.allSatisfy({ $0.stringValue != nil }):
                entries.append((key, .stringArray(items.compactMap(\.stringValue))))
            case (_, .string(let s)): entries.append((key, .string(s)))
            default: entries.append((key, .int64(value.int64Value ?? -1)))
            }
        }
        return .vardict(entries)
    }

    /// The answer: the token's `a{sv}` under `reply`, or the refusal's D-Bus name and message.
    static func json(_ reply: Transition.Reply) -> JSONValue {
        switch reply {
        case .token(let answer):
            return .object([("status", .string("success")), (AgentSocket.reply, json(ResultDictionary.make(answer)))])
        case .refused(let e):
            return AgentRefusal.named(e.code.dbusName, message: e.message).json
        case .none, .routed, .begun, .deviceBegun, .waited, .loggedIn, .tokens, .proof, .accounts, .signedOut, .held,
            .forwarding:
            return AgentRefusal.named(
                RouterError.Code.internalError.dbusName, message: "linkrouterd answered GetToken with no token"
            ).json
        }
    }

    /// An `a{sv}` of `GetToken`'s answer as JSON: strings, integers, lists of strings (all it holds).
    private static func json(_ value: DBusValue) -> JSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .int64(let n): return .integer(n)
        case .uint32(let n): return .integer(Int64(n))
        case .boolean(let b): return .bool(b)
        case .variant(let v): return json(v)
        case .array(_, let items): return .array(items.map(json))
        case .dictionary(_, _, let entries):
            return .object(entries.compactMap { e in e.key.stringValue.map { ($0, json(e.value)) } })
        default: return .null
        }
    }
}
