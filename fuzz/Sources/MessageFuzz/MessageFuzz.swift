import DBusKit
import FuzzDriver
import LinkRouterAPI
import LinkRouterCore
import LinkRouterService
import SystemKit

/// libFuzzer target: a D-Bus message in wire format, as the daemon would
/// receive it. libdbus validates it; what it accepts is decoded into values,
/// put through the daemon's option and link decoding, and written back out,
/// which must give the same values (nothing libdbus would abort on).
enum MessageFuzz {
    static func run(_ bytes: [UInt8]) {
        guard let m = try? DBusMessage.demarshal(bytes), let args = try? m.arguments() else { return }
        for a in args {
            if a.signature == "a{sv}" {
                _ = try? OptionsDecoder.session(a)
                _ = try? OptionsDecoder.refresh(a)
            }
            if case .string(let s) = a { _ = Router().decide(s, source: .link, now: 0) }
        }
        // What was read can be written, and reads back the same.
        // A file descriptor (even inside a variant) is read as a placeholder and closed, never written back.
        guard !args.contains(where: \.holdsFileDescriptor) else { return }
        let out = DBusMessage.methodCall(nil, "/", nil, "Fuzz")
        guard (try? out.append(contentsOf: args)) != nil else {
            preconditionFailure("a decoded value could not be re-encoded")
        }
        out.serial = 1
        guard let wire = try? out.marshal(), let back = try? DBusMessage.demarshal(wire),
            let again = try? back.arguments()
        else {
            preconditionFailure("a re-encoded message did not read back")
        }
        precondition(again.count == args.count, "re-encoding changed the arguments")
        // Bit for bit (a NaN is not equal to itself, but its bytes are): writing what was read back gives the same
        // message.
        let twice = DBusMessage.methodCall(nil, "/", nil, "Fuzz")
        guard (try? twice.append(contentsOf: again)) != nil else {
            preconditionFailure("a value read back could not be re-encoded")
        }
        twice.serial = 1
        precondition((try? twice.marshal()) == wire, "re-encoding changed a value")
    }

    /// Seeds for the corpus: the calls the daemon really gets.
    static func seeds() -> [(String, [UInt8])] {
        func message(_ member: MemberName, _ path: ObjectPath, _ iface: InterfaceName, _ args: [DBusValue]) -> [UInt8] {
            let m = DBusMessage.methodCall("org.linkrouter.LinkRouter1", path, iface, member)
            try! m.append(contentsOf: args)
            m.serial = 7
            return try! m.marshal()
        }
        let manager: ObjectPath = "/org/linkrouter/LinkRouter1"
        let iface: InterfaceName = "org.linkrouter.LinkRouter1"
        return [
            (
                "begin-builder",
                message(
                    "BeginSession", manager, iface,
                    [
                        .vardict([
                            ("authorization_endpoint", .string("https://auth.example.com/authorize")),
                            ("client_id", .string("demo")),
                            ("redirect_uri", .string("com.example.app:/callback")), ("scope", .string("openid")),
                            ("ttl", .uint32(600)),
                            ("extra_params", .stringDict([("prompt", "login")])),
                            ("resume_hosts", .stringArray(["api.vipps.no"])),
                            ("open_browser", .boolean(false)),
                        ])
                    ])
            ),
            (
                "begin-adopt",
                message(
                    "BeginSession", manager, iface,
                    [
                        .vardict([
                            (
                                "authorize_url",
                                .string(
                                    "https://api.vipps.no/oauth2/auth?response_type=code&redirect_uri=https%3A%2F%2Fexample.com%2Fcb&state=abcdefghijklmnopqrstu"
                                )
                            )
                        ])
                    ])
            ),
            ("route", message("Route", manager, iface, [.string("com.example.app:/callback?code=c&state=s")])),
            (
                "wait",
                message(
                    "Wait", "/org/linkrouter/LinkRouter1/sessions/00ff", "org.linkrouter.LinkRouter1.Session",
                    [.uint32(1000)])
            ),
            (
                "properties",
                message(
                    "Get", manager, "org.freedesktop.DBus.Properties", [.string(iface.rawValue), .string("Version")])
            ),
            (
                "nested",
                message(
                    "X", "/", "a.b",
                    [.structure([.variant(.array(element: DBusSignature("(oss)"), [])), .double(-0.0), .int64(.min)])])
            ),
        ]
    }
}

extension DBusValue {
    var holdsFileDescriptor: Bool {
        switch self {
        case .unixFD: return true
        case .variant(let v): return v.holdsFileDescriptor
        case .array(_, let items), .structure(let items): return items.contains(where: \.holdsFileDescriptor)
        case .dictionary(_, _, let entries):
            return entries.contains { $0.key.holdsFileDescriptor || $0.value.holdsFileDescriptor }
        default: return false
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    MessageFuzz.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// `--seeds DIR` writes the seeds; anything else is the fuzz driver's.
@main
struct Main {
    static func main() throws {
        let args = Array(CommandLine.arguments.dropFirst())
        if args.first == "--seeds", args.count == 2 {
            for (name, bytes) in MessageFuzz.seeds() {
                try FileSystem.writeAtomically(args[1] + "/" + name, bytes, permissions: 0o644)
            }
            return
        }
        FuzzDriver.main("message-fuzz") { data, size in fuzzerTestOneInput(data, size) }
    }
}
