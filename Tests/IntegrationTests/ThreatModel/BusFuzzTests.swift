import DBusKit
import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// Threat model D6/D7 at scale: seeded random calls, right and wrong, to every
/// method of every interface on every kind of object of a running daemon.
/// `LINKROUTER_FUZZ_ITERATIONS` and `LINKROUTER_FUZZ_SEED` make longer or
/// reproducible runs; a failure prints the seed and the call.
@Suite("Threat model D: live D-Bus fuzz")
struct BusFuzzTests {
    /// Error names a call may earn: the spec's and linkrouter's own, never a
    /// timeout or a lost connection.
    static let answers: Set<String> = [
        DBusError.invalidArgs, DBusError.unknownMethod, DBusError.unknownObject, DBusError.unknownInterface,
        DBusError.unknownProperty, DBusError.propertyReadOnly, "org.freedesktop.DBus.Error.AccessDenied",
    ]

    @Test(
        "random calls, signatures and values never crash, hang or disconnect the daemon; a login still works afterwards"
    )
    func fuzz() throws {
        let iterations = Int(Environment.nonEmpty("LINKROUTER_FUZZ_ITERATIONS") ?? "") ?? 4000
        let seed = UInt64(Environment.nonEmpty("LINKROUTER_FUZZ_SEED") ?? "") ?? UInt64(Clock.monotonicMilliseconds())
        var rng = SplitMix(seed: seed)
        let h = try Harness()
        let fuzzer = try h.client()
        // A session of another client, one of the fuzzer's own, and paths that name nothing.
        let (bystander, bystanderURL) = try h.app.beginQuiet()
        let (own, _) = try fuzzer.beginQuiet()
        let paths = [
            API.managerPath.rawValue, bystander, own, API.sessionsPath.rawValue + "/00ff", API.sessionsPath.rawValue,
            "/", "/org/linkrouter", API.managerPath.rawValue + "/x",
        ]
        let interfaces = [Interfaces.manager, Interfaces.session] + StandardInterfaces.all
        var replies = 0
        var errors: [String: Int] = [:]
        var unsendable = 0
        for i in 0..<iterations {
            let iface = rng.pick(interfaces)
            let wellFormed = rng.chance(2)
            let method = rng.pick(iface.methods)
            let member = rng.chance(8) ? rng.name() : method.name
            let interface: String? = rng.chance(10) ? nil : (rng.chance(10) ? "org.example.Nothing" : iface.name)
            let args = wellFormed ? method.input.map { rng.value(DBusSignature($0.type)!, option: true) } : rng.values()
            // Mostly an object that has this interface, so the calls reach the handlers, not only the dispatcher.
            let fitting =
                iface == Interfaces.manager
                ? [API.managerPath.rawValue] : iface == Interfaces.session ? [bystander, own] : paths
            let path = rng.chance(3) ? rng.pick(paths) : rng.pick(fitting)
            guard let p = ObjectPath(path), let mem = MemberName(member),
                let iname = interface.map(InterfaceName.init) ?? .some(nil)
            else {
                unsendable += 1
                continue
            }
            let m = DBusMessage.methodCall(API.busName, p, iname, mem)
            do { try m.append(contentsOf: args) } catch {
                unsendable += 1
                continue
            }
            // Wait on the fuzzer's own pending session blocks for as long as asked; anything else answers at once.
            let mayBlock = member == "Wait" && path == own
            do {
                _ = try fuzzer.connection.call(m, timeoutMilliseconds: mayBlock ? 300 : 10_000)
                replies += 1
            } catch {
                errors[error.name, default: 0] += 1
                let expected =
                    Self.answers.contains(error.name) || error.name.hasPrefix(errorPrefix)
                    || (mayBlock && error.name == DBusError.noReply)
                #expect(
                    expected,
                    "seed \(seed), call \(i): \(interface ?? "-").\(member) on \(path) with \(args.map(\.signature).joined()): \(error)"
                )
                #expect(!error.message.isEmpty, "seed \(seed), call \(i): \(error.name) without a message")
                if !expected { break }
            }
            if i % 100 == 99 {
                try #require(h.daemonAnswers, "seed \(seed): the daemon stopped answering after call \(i)")
            }
        }
        print(
            "bus fuzz, seed \(seed): \(iterations) calls, \(replies) replies, \(unsendable) not sendable, errors \(errors.sorted { $0.key < $1.key })"
        )
        #expect(h.daemonAnswers)
        // Enough of both kinds to have reached the decoders and the handlers.
        #expect(replies > iterations / 20 && (errors[DBusError.invalidArgs] ?? 0) > iterations / 20)
        // The bystander's session is untouched and still completes, for its owner only.
        #expect(try h.app.status(bystander) == "pending")
        #expect(
            try h.app.route("com.example.app:/callback?code=C&state=\(Harness.state(of: bystanderURL))") == "completed")
        #expect(try h.app.wait(bystander)["code"] == "C")
    }
}

/// A small seeded generator (SplitMix64), so a failing run can be replayed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ oneIn: Int) -> Bool { below(oneIn) == 0 }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    static let basic: [Character] = ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g"]

    /// A random signature, nested at most `depth` deep.
    mutating func signature(depth: Int = 3) -> DBusSignature {
        let roll = below(depth > 0 ? 16 : 12)
        switch roll {
        case 12: return DBusSignature("a" + signature(depth: depth - 1).rawValue)!
        case 13: return DBusSignature("a{" + String(pick(Self.basic)) + signature(depth: depth - 1).rawValue + "}")!
        case 14:
            return DBusSignature("(" + (0...below(3)).map { _ in signature(depth: depth - 1).rawValue }.joined() + ")")!
        case 15: return DBusSignature("v")
        default: return DBusSignature(String(Self.basic[roll]))!
        }
    }

    /// A few values of random types: most calls get a wrong signature this way.
    mutating func values() -> [DBusValue] { (0..<below(4)).map { _ in value(signature()) } }

    /// Text that exercises the daemon's parsers: URLs near the real ones, odd Unicode, long runs.
    mutating func text() -> String {
        let pieces = [
            "com.example.app:/callback", "https://auth.example.com/authorize", "http://127.0.0.1:1/cb", "?", "&", "=",
            "state", "code",
            "error", "resume_uri", "%", "%2", "%00", "%0D%0A", "#", "@", ":", "/", "..", "\u{202E}", "é", "\u{FEFF}",
            "😀", " ", "\t",
            "javascript:", "org.linkrouter.LinkRouter1", "/org/linkrouter/LinkRouter1/sessions/", "a{sv}",
        ]
        var s = ""
        for _ in 0..<below(8) { s += pick(pieces) }
        if chance(20) { s += String(repeating: pick(["a", "%41", "/"]), count: below(20_000)) }
        return s
    }

    mutating func name() -> String {
        pick(["X", "Wait", "BeginSession", "route", "Get", "Claim", "Ping", "A" + String(below(1000))])
    }

    /// A value of type `sig`; with `option`, an a{sv} is filled with linkrouter's option names, mostly well typed.
    mutating func value(_ sig: DBusSignature, option: Bool = false) -> DBusValue {
        let t = sig.rawValue
        if option && t == "a{sv}" {
            let keys = SessionRequest.options.keys.sorted()
            return .vardict(
                (0..<below(8)).map { _ in
                    let key = chance(10) ? text() : pick(keys)
                    let type =
                        chance(4) ? signature() : DBusSignature(SessionRequest.options.named(key)?.signature ?? "s")!
                    return (key, value(type))
                })
        }
        switch t.first! {
        case "y": return .byte(UInt8(truncatingIfNeeded: next()))
        case "b": return .boolean(chance(2))
        case "n": return .int16(Int16(truncatingIfNeeded: next()))
        case "q": return .uint16(UInt16(truncatingIfNeeded: next()))
        case "i": return .int32(Int32(truncatingIfNeeded: next()))
        case "u": return .uint32(pick([0, 1, 600, UInt32.max, UInt32(truncatingIfNeeded: next())]))
        case "x": return .int64(Int64(bitPattern: next()))
        case "t": return .uint64(next())
        case "d": return .double(pick([0, -0.0, .nan, .infinity, Double(bitPattern: next())]))
        case "s": return .string(text())
        case "o":
            return .objectPath(
                ObjectPath(
                    pick(["/", "/org/linkrouter/LinkRouter1/sessions/" + String(next(), radix: 16), "/a/b_c/D9"]))!)
        case "g": return .signature(signature())
        case "v": return .variant(value(signature(depth: 2)))
        case "(":
            return .structure(
                DBusSignature.completeTypes(of: String(t.dropFirst().dropLast()))!.map { value(DBusSignature($0)!) })
        default:
            if t.hasPrefix("a{") {
                let kv = DBusSignature.completeTypes(of: String(t.dropFirst(2).dropLast()))!.map { DBusSignature($0)! }
                return .dictionary(
                    key: kv[0], value: kv[1], (0..<below(4)).map { _ in .init(value(kv[0]), value(kv[1])) })
            }
            let inner = DBusSignature(String(t.dropFirst()))!
            return .array(element: inner, (0..<below(4)).map { _ in value(inner) })
        }
    }
}
