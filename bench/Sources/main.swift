import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit

// linkrouter-bench: the driver behind bench/run. Every figure is measured
// beside its floor in the same run, or is a count that does not drift.
//
//   linkrouter-bench run BIN_DIR OUT_DIR [--smoke] [--only open,click,…]
//   linkrouter-bench route-worker ADDRESS FILE     (one of the 8 concurrent clients)
//   linkrouter-bench getid-worker ADDRESS COUNT    (GetId to the bus: the floor)
//   linkrouter-bench echo-worker ADDRESS COUNT     (calls to serve-name: the ceiling)
//   linkrouter-bench soak-worker ADDRESS COUNT     (one of the soak's 4 clients)

let args = Array(CommandLine.arguments.dropFirst())

func worker() -> Int32 {
    guard args.count == 3, let client = try? BenchClient(args[1]) else { return 2 }
    if args[0] == "route-worker" {
        let links = ((try? FileSystem.readText(args[2])) ?? "").split(separator: "\n").map(String.init)
        for l in links { guard (try? client.call("Route", [.string(l)])) != nil else { return 1 } }
    } else if args[0] == "echo-worker" {
        for _ in 0..<(Int(args[2]) ?? 0) {
            let m = DBusMessage.methodCall("org.linkrouter.BenchEcho", "/", "org.linkrouter.BenchEcho", "Echo")
            guard
                (try? m.append(
                    .string("com.example.bench:/cb?code=c&state=0123456789012345678901234567890123456789012"))) != nil,
                (try? client.c.call(m)) != nil
            else { return 1 }
        }
    } else {
        let m = DBusMessage.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        for _ in 0..<(Int(args[2]) ?? 0) { guard (try? client.c.call(m)) != nil else { return 1 } }
    }
    return 0
}

/// The cold-start floor: a process that does nothing but take a bus name and answer Ping.
func serveName() -> Int32 {
    guard args.count == 3, let c = try? DBusConnection(address: args[1]), let name = BusName(args[2]),
        (try? c.requestName(name)) == .primaryOwner
    else { return 1 }
    while true {
        guard let m = c.nextMessage(timeoutMilliseconds: 60_000) else { return 0 }
        if m.kind == .methodCall, let r = try? m.makeReturn() {
            try? c.send(r)
            c.flush()
        }
    }
}

if ["route-worker", "getid-worker", "echo-worker"].contains(args.first ?? "") { exit(worker()) }
if args.first == "serve-name" { exit(serveName()) }
if args.first == "soak-worker", args.count == 3, let count = Int(args[2]) { exit(soakWorker(args[1], count)) }
// For profiling by hand: `fill ADDRESS N` begins N sessions and stays connected until killed.
if args.first == "fill", args.count == 3, let c = try? BenchClient(args[1]), let count = Int(args[2]) {
    for _ in 0..<count { _ = try? c.begin() }
    StandardStreams.out("filled\n")
    while true { _ = c.c.nextMessage(timeoutMilliseconds: 60_000) }
}
guard args.count >= 3, args[0] == "run" else {
    StandardStreams.err("usage: linkrouter-bench run BIN_DIR OUT_DIR [--smoke] [--only NAME,…]\n")
    exit(64)
}
let smoke = args.contains("--smoke")
let only = args.firstIndex(of: "--only").flatMap {
    $0 + 1 < args.count ? Set(args[$0 + 1].split(separator: ",").map(String.init)) : nil
}
do {
    let rows = try Bench(bin: args[1], out: args[2], smoke: smoke).all(only: only)
    _ = rows
    exit(0)
} catch {
    StandardStreams.err("bench: \(error)\n")
    exit(2)
}
