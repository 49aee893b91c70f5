import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit

/// Issue 23's DPoP figures: a refresh whose request carries a proof beside
/// the same refresh without one (two accounts at one Glewlwyd with DPoP
/// allowed, one `dpop=off`); a whole `linkctl token NAME --dpop` (GetToken,
/// then SignProof) beside a `dbus-send` ping; and the daemon's instructions per
/// `SignProof` under callgrind.
extension Bench {
    func dpop() throws {
        say("dpop: a bound refresh, SignProof")
        // Access tokens of 600 s: `--min-valid 3600` makes every `linkctl token` a refresh.
        guard
            let world = try accountWorld(
                "dpop", providerOptions: ["--dpop", "allowed", "--access-token-duration", "600"])
        else { return }
        defer { withExtendedLifetime(world) {} }
        let w = world.w
        for (name, mode) in [("bound", "auto"), ("plain", "off")] {
            try world.add(name, bin: bin, ["--dpop", mode])
            try signIn(w, name, providerInfo: world.provider.infoPath)
        }
        let env = w.environment
        func must(_ argv: [String]) throws -> String {
            let r = try Subprocess.run(argv, environment: env)
            guard r.status == 0 else { throw BenchError("\(argv.joined(separator: " ")) failed: \(r.errorText)") }
            return r.text
        }
        guard try must([bin + "/linkctl", "token", "bound", "--json"]).contains("\"token_type\":\"DPoP\"") else {
            throw BenchError("the bound account's token is not DPoP")
        }
        let runs = n(30, 3)
        let probe = try DBusConnection(address: w.address)
        let before = try counter(probe, "token_refreshes")
        let (bound, plain) = try Measure.interleaved(
            runs, { _ = try must([bin + "/linkctl", "token", "bound", "--min-valid", "3600"]) },
            { _ = try must([bin + "/linkctl", "token", "plain", "--min-valid", "3600"]) })
        let refreshed = try counter(probe, "token_refreshes") - before
        guard refreshed == UInt64(2 * runs) else { throw BenchError("\(refreshed) refreshes for \(2 * runs) calls") }
        row(
            "a refresh at Glewlwyd with a DPoP proof (`linkctl token NAME --min-valid 3600`, each a refresh), beside the same account kind with `dpop=off` (median of \(runs))",
            value: bound, unit: "ms", floor: plain, goal: "≤ 1.2×", met: bound / plain <= 1.2)
        let url = "https://api.example.com/me"
        let (proof, ping) = try Measure.interleaved(
            runs, { _ = try must([bin + "/linkctl", "token", "bound", "--dpop", "GET", url]) },
            {
                _ = try must([
                    "dbus-send", "--session", "--print-reply", "--dest=" + API.busName.rawValue,
                    API.managerPath.rawValue, "org.freedesktop.DBus.Peer.Ping",
                ])
            })
        row(
            "`linkctl token NAME --dpop GET URL` (one GetToken with dpop_method and dpop_url), whole process, beside a `dbus-send` ping (median of \(runs))",
            value: proof, unit: "ms",
            floor: ping, goal: "≤ 1.3×", met: proof / ping <= 1.3)
        w.stopDaemon()
        try signProofInstructions(w)
    }

    /// The daemon under callgrind: the account's tokens read from the keyring
    /// once, counters zeroed, N `SignProof`s, dumped; beside N `GetToken`s.
    private func signProofInstructions(_ w: BenchWorld) throws {
        guard FileSystem.findExecutable("valgrind") != nil else {
            notes.append("valgrind is not installed: no instructions per proof")
            return
        }
        let daemon = try CallgrindDaemon(
            w, bin: bin, name: "dpop", extra: ["--system-accounts-dir", w.root + "/etc-accounts"])
        let c = try BenchClient(w.address)
        let proofArgs: [DBusValue] = [
            .string("bound"), .string("GET"), .string("https://api.example.com/me"), .vardict([]),
        ]
        _ = try c.call("SignProof", proofArgs)
        let count = n(200, 10)
        try daemon.zero()
        for _ in 0..<count { _ = try c.call("SignProof", proofArgs) }
        let proofs = try daemon.dump("signproof") / Double(count)
        try daemon.zero()
        for _ in 0..<count { _ = try c.call("GetToken", [.string("bound"), .vardict([])]) }
        let tokens = try daemon.dump("gettoken") / Double(count)
        row(
            "instructions in the daemon per `SignProof` (one ES256 signature; the key kept after the first), beside per `GetToken` of the same account",
            value: proofs / 1000, unit: "k", floor: tokens / 1000, goal: "a count to watch", met: nil)
    }
}

/// linkrouterd under valgrind's callgrind on a bench world's bus, for instruction counts of what it does between `zero`
/// and `dump`.
final class CallgrindDaemon {
    let w: BenchWorld
    let pid: Int32
    let prefix: String
    /// LINKROUTER_BENCH_CALLGRIND=DIR keeps the profiles there, for callgrind_annotate.
    let keep = Environment.nonEmpty("LINKROUTER_BENCH_CALLGRIND")

    init(_ w: BenchWorld, bin: String, name: String, extra: [String] = []) throws {
        self.w = w
        prefix = "cg." + name
        pid = try Subprocess.spawn(
            [
                "valgrind", "--tool=callgrind", "--compress-strings=no",
                "--callgrind-out-file=" + w.root + "/" + prefix, bin + "/linkrouterd",
            ] + extra,
            environment: w.environment, stdout: .null, stderr: .file(w.root + "/" + prefix + ".log"))
        let probe = try DBusConnection(address: w.address)
        guard w.wait({ probe.nameHasOwner(API.busName.rawValue) }, milliseconds: 120_000) else {
            Subprocess.stop(pid, name: "linkrouterd under callgrind")
            throw BenchError("the daemon under callgrind did not start")
        }
    }

    func zero() throws { _ = try Subprocess.run(["callgrind_control", "-z", String(pid)]) }

    /// The instructions since the last `zero` (a dump named `label` is kept with LINKROUTER_BENCH_CALLGRIND).
    func dump(_ label: String) throws -> Double {
        let before = Set(FileSystem.list(w.root))
        _ = try Subprocess.run(["callgrind_control", "-d", String(pid)])
        var made: String?
        _ = w.wait(
            {
                made = FileSystem.list(w.root).first {
                    !before.contains($0) && $0.hasPrefix(prefix + ".") && !$0.hasSuffix(".log")
                }
                return made != nil
            }, milliseconds: 30_000)
        guard let made else { throw BenchError("no callgrind dump") }
        // The dump is written before callgrind_control returns; its totals line is last.
        _ = w.wait(
            { ((try? FileSystem.readText(w.root + "/" + made, maxBytes: 256 << 20)) ?? "").contains("totals:") },
            milliseconds: 10_000)
        if let keep { _ = try? Subprocess.run(["cp", w.root + "/" + made, keep + "/" + prefix + "." + label]) }
        return Bench.total(try FileSystem.readText(w.root + "/" + made, maxBytes: 256 << 20))
    }

    deinit { Subprocess.stop(pid, name: "linkrouterd under callgrind", graceMilliseconds: 20_000) }
}
