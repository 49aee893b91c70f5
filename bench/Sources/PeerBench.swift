import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit

/// linkrouter beside the peer a Linux user would pick instead: oidc-agent
/// (Debian's `oidc-agent-cli`, a C daemon that `oidc-token` asks over a UNIX
/// socket), on the same Glewlwyd, both behind the tests' tamper proxy
/// (honest here) so that every refresh request is counted where it arrives.
/// oidc-agent cannot use Glewlwyd's public client (it sends Basic auth with an
/// empty secret, and no `nonce`), so it gets a confidential client of its own
/// and signs in with the device grant, approved by the scripted phone
/// (`../shared/reference/peer-oidc-agent.md`). Access tokens live 20 s, so
/// the peer's token can be caught expired without a long wait.
extension Bench {
    func peer() throws {
        say("peer: linkctl token beside oidc-agent's oidc-token")
        let tools = ["/usr/bin/oidc-agent", "/usr/bin/oidc-gen", "/usr/bin/oidc-token"]
        let peerClient = [
            "--device", "600", "--confidential-client", PeerAgent.client + ":" + PeerAgent.secret,
        ]
        guard
            let (world, proxy) = try proxiedAccountWorld(
                "peer", lifetime: Self.peerLifetime, tools: tools, providerOptions: peerClient)
        else {
            return
        }
        defer { withExtendedLifetime((world, proxy)) {} }
        let w = world.w
        try world.add("work", bin: bin, ["--min-valid", "5"])
        try signIn(w, "work", providerInfo: world.provider.infoPath)
        let agent = try PeerAgent(w, fixtures: fixtures, provider: world.provider, issuer: world.issuer)
        defer { withExtendedLifetime(agent) {} }
        let runs = n(40, 3)
        func must(_ argv: [String], _ env: [String]) throws {
            let r = try Subprocess.run(argv, environment: env)
            guard r.status == 0 else { throw BenchError("\(argv.joined(separator: " ")) failed: \(r.errorText)") }
        }
        let linkctl = [bin + "/linkctl", "token", "work"]
        let oidcToken = ["oidc-token", PeerAgent.account]

        // Cached: both fresh first (a forced new token for the peer; linkrouter refreshes ahead of need).
        try must(oidcToken + ["--force-new"], agent.environment)
        try must(linkctl, w.environment)
        let before = proxy.refreshRequests()
        let (mine, theirs) = try Measure.interleaved(
            runs, { try must(linkctl, w.environment) }, { try must(oidcToken, agent.environment) })
        let (_, ping) = try Measure.interleaved(
            runs, { try must(linkctl, w.environment) },
            {
                try must(
                    [
                        "dbus-send", "--session", "--print-reply", "--dest=" + API.busName.rawValue,
                        API.managerPath.rawValue, "org.freedesktop.DBus.Peer.Ping",
                    ], w.environment)
            })
        let cachedRefreshes = proxy.refreshRequests() - before
        row(
            "`linkctl token NAME` from memory (the front on the agent socket) beside oidc-agent's `oidc-token ACCOUNT` from memory, same provider (median of \(runs); a `dbus-send` ping: \(Measure.format(ping)) ms; refresh requests meanwhile: \(cachedRefreshes))",
            value: mine, unit: "ms", floor: theirs, goal: "≤ 1.0× (issues 38, 49)", met: mine / theirs <= 1.0)

        // oidc-agent's own client, unchanged, against linkrouter's agent socket (the encrypted form).
        let ours = w.environment + ["OIDC_SOCK=" + w.runtime + "/linkrouter/agent"]
        let (served, agentItself) = try Measure.interleaved(
            runs, { try must(["oidc-token", "work"], ours) }, { try must(oidcToken, agent.environment) })
        row(
            "`oidc-token NAME` against linkrouterd's agent socket beside `oidc-token ACCOUNT` against oidc-agent 4.2.6, both from memory (median of \(runs))",
            value: served, unit: "ms", floor: agentItself, goal: "≤ 1.0× (issue 49)", met: served / agentItself <= 1.0)

        try forwardedBesideLocal(w, runs: n(20, 2))

        // A refresh on every call: each asks for more life than a token has.
        let refreshRuns = n(20, 2)
        let more = String(Self.peerLifetime + 10)
        let r0 = proxy.refreshRequests()
        let (mineRefresh, theirsRefresh) = try Measure.interleaved(
            refreshRuns, { try must(linkctl + ["--min-valid", more], w.environment) },
            { try must(oidcToken + ["--time", more], agent.environment) })
        let sent = proxy.refreshRequests() - r0
        row(
            "a refresh on every call: `linkctl token NAME --min-valid \(more)` beside `oidc-token --time \(more)` (median of \(refreshRuns); refresh requests: \(sent) for \(2 * refreshRuns) calls; linkrouter's includes its keyring write before the hand-out)",
            value: mineRefresh, unit: "ms", floor: theirsRefresh, goal: "≤ 1.1× (issue 38)",
            met: mineRefresh / theirsRefresh <= 1.1)

        try concurrentBesidePeer(world, proxy: proxy, agent: agent, callers: n(100, 10))

        row(
            "resident memory: linkrouterd beside oidc-agent, each holding one signed-in account",
            value: rss(w.daemonPID), unit: "MiB", floor: rss(agent.pid), goal: "—",
            met: nil)
    }

    static let peerLifetime = 20

    /// A request through `linkctl agent forward` (made `--allow-unconfirmed`, so nobody is asked) beside the same
    /// request to the agent's own socket, both from the far side of one ssh connection (a control master, so only
    /// the requests are timed): what the forward adds.
    private func forwardedBesideLocal(_ w: BenchWorld, runs: Int) throws {
        if let why = BenchSSH.unavailable {
            say("forward: skipped (\(why))")
            return
        }
        let ssh = try BenchSSH(w, fixtures: fixtures)
        let control = w.root + "/ssh/control"
        let remote = w.root + "/ssh/forwarded-agent"
        let master = try Subprocess.spawn(
            [
                bin + "/linkctl", "agent", "forward", "--account", "work", "--allow-unconfirmed", "--remote-socket",
                remote, "--",
            ] + ssh.options + ["-M", "-S", control, "-N", "127.0.0.1"], environment: w.environment, stdout: .null,
            stderr: .file(w.root + "/ssh/forward.err"))
        defer { Subprocess.stop(master, name: "linkctl agent forward") }
        guard w.wait({ FileSystem.exists(control) && FileSystem.exists(remote) }, milliseconds: 20_000) else {
            throw BenchError(
                "the forward did not come up: \((try? FileSystem.readText(w.root + "/ssh/forward.err")) ?? "")")
        }
        func remoteToken(_ socket: String) throws {
            let r = try Subprocess.run(
                ["ssh"] + ssh.options + ["-S", control, "127.0.0.1", "OIDC_SOCK=" + socket + " oidc-token work"],
                environment: w.environment)
            guard r.status == 0, !r.text.isEmpty else { throw BenchError("ssh … oidc-token failed: \(r.errorText)") }
        }
        let (forwarded, local) = try Measure.interleaved(
            runs, { try remoteToken(remote) }, { try remoteToken(w.runtime + "/linkrouter/agent") })
        row(
            "`oidc-token NAME` on the far side of one ssh connection through `linkctl agent forward --allow-unconfirmed`, beside the same to the agent's own socket over the same connection (median of \(runs))",
            value: forwarded, unit: "ms", floor: local, goal: "≤ 1.1× (issue 49)", met: forwarded / local <= 1.1)
    }

    /// `callers` processes at once while the account's token must be refreshed, for each: linkctl's token
    /// marked refused (as a server's 401 reported through the git helper's `erase` marks it), oidc-agent's
    /// token past its expiry. The time until all have a token, and the refresh requests each sent.
    private func concurrentBesidePeer(
        _ world: BenchAccountWorld, proxy: BenchTamperProxy, agent: PeerAgent, callers: Int
    ) throws {
        let w = world.w
        func all(_ argv: [String], _ env: [String]) throws -> Double {
            try Measure.ms {
                let pids = try (0..<callers).map { i in
                    try Subprocess.spawn(argv, environment: env, stdout: .file(w.root + "/p\(i).out"), stderr: .null)
                }
                for pid in pids where Subprocess.wait(pid) != 0 {
                    throw BenchError("\(argv[0]) failed in the concurrent run")
                }
            }
        }
        func distinctTokens() -> Int {
            Set((0..<callers).map { (try? FileSystem.readText(w.root + "/p\($0).out")) ?? "" }).count
        }
        // The peer: a fresh token, then past its expiry.
        let fresh = try Subprocess.run(
            ["oidc-token", PeerAgent.account, "--force-new"], environment: agent.environment)
        guard fresh.status == 0 else { throw BenchError("oidc-token --force-new failed: \(fresh.errorText)") }
        let expired = Measure.wallSeconds() + Double(Self.peerLifetime) + 1
        guard w.wait({ Measure.wallSeconds() > expired }, milliseconds: (Self.peerLifetime + 5) * 1000) else {
            throw BenchError("the peer's token did not expire")
        }
        let p0 = proxy.refreshRequests()
        let theirs = try all(["oidc-token", PeerAgent.account], agent.environment)
        let theirsSent = proxy.refreshRequests() - p0
        guard distinctTokens() == 1 else { throw BenchError("oidc-token's callers got different tokens") }

        let current =
            try Subprocess.run([bin + "/linkctl", "token", "work"], environment: w.environment).text.split(
                separator: "\n"
            ).first.map(String.init) ?? ""
        try FileSystem.writeAtomically(w.root + "/refused", text: "password=\(current)\n", permissions: 0o600)
        _ = try Subprocess.run(
            [
                "/bin/sh", "-c", "exec \"$0\" credential git --account work erase < \"$1\"", bin + "/linkctl",
                w.root + "/refused",
            ], environment: w.environment)
        let l0 = proxy.refreshRequests()
        let mine = try all([bin + "/linkctl", "token", "work"], w.environment)
        let mineSent = proxy.refreshRequests() - l0
        guard distinctTokens() == 1 else { throw BenchError("linkctl's callers got different tokens") }
        row(
            "\(callers) `linkctl token NAME` at once while its token must be refreshed, beside \(callers) `oidc-token ACCOUNT` at once past its token's expiry, until all have one (refresh requests: linkrouter \(mineSent), oidc-agent \(theirsSent))",
            value: mine, unit: "ms", floor: theirs, goal: "≤ 1.0× (issue 38), one request each",
            met: mine / theirs <= 1.0 && mineSent == 1 && theirsSent == 1)
    }

}

/// oidc-agent in the bench's world: the agent on a socket of the world's own,
/// its account made by `oidc-gen` with the device grant, the phone scripted.
final class PeerAgent {
    static let account = "peer"
    static let client = "peer"
    static let secret = "bench-peer-secret"
    let pid: Int32
    let environment: [String]

    init(_ w: BenchWorld, fixtures: String, provider: BenchProvider, issuer: String) throws {
        let socket = w.root + "/oidc-agent/agent.sock"
        try FileSystem.makeDirectories(w.root + "/oidc-agent", permissions: 0o700)
        environment = w.environment + ["OIDC_SOCK=" + socket, "OIDC_ENCRYPTION_PW=bench-peer-password"]
        pid = try Subprocess.spawn(
            ["oidc-agent", "--console", "--quiet", "--socket-path=" + socket], environment: environment,
            stdout: .null, stderr: .file(w.root + "/oidc-agent.log"))
        guard w.wait({ FileSystem.status(socket)?.kind == .socket }) else {
            Subprocess.stop(pid, name: "the bench's oidc-agent")
            throw BenchError(
                "oidc-agent did not start: \((try? FileSystem.readText(w.root + "/oidc-agent.log")) ?? "")")
        }
        do { try generate(w, fixtures: fixtures, provider: provider, issuer: issuer) } catch {
            Subprocess.stop(pid, name: "the bench's oidc-agent")
            throw error
        }
    }

    /// `oidc-gen` with the device grant; its user code approved at the provider as a phone would.
    private func generate(_ w: BenchWorld, fixtures: String, provider: BenchProvider, issuer: String) throws {
        let out = w.root + "/oidc-gen.out"
        let gen = try Subprocess.spawn(
            [
                "oidc-gen", Self.account, "--iss", issuer, "--client-id", Self.client, "--client-secret", Self.secret,
                "--scope", "openid", "--redirect-uri", "http://localhost:4242", "--flow=device", "--pw-env",
                "--confirm-default",
            ], environment: environment, stdout: .file(out), stderr: .file(out + ".err"))
        var code = ""
        var page = ""
        _ = w.wait(
            {
                // oidc-gen prints the page and code on stderr when that is not a terminal.
                let text = ((try? FileSystem.readText(out)) ?? "") + ((try? FileSystem.readText(out + ".err")) ?? "")
                let lines = text.split(separator: "\n")
                let marker = "And enter the code: "
                guard let line = lines.first(where: { $0.hasPrefix(marker) }) else { return false }
                code = String(line.dropFirst(marker.count).prefix { $0.isLetter || $0.isNumber || $0 == "-" })
                page = lines.first { $0.hasPrefix("http") && $0.hasSuffix("/device") }.map(String.init) ?? ""
                return !code.isEmpty && !page.isEmpty
            }, milliseconds: 20_000)
        guard !code.isEmpty else {
            Subprocess.stop(gen, name: "oidc-gen")
            throw BenchError("oidc-gen printed no user code (see \(out).err)")
        }
        // The phone reaches Glewlwyd itself (its cookies are the direct origin's).
        let direct = try provider.string("direct_origin")
        if let slash = page.dropFirst("http://".count).firstIndex(of: "/") { page = direct + page[slash...] }
        let phone = try Subprocess.run(
            [
                "/usr/bin/python3", fixtures + "/glewlwyd_signin.py", "--provider", provider.infoPath, "--url", page,
                "--user-code", code, "--client-id", Self.client,
            ], environment: environment)
        guard phone.status == 0 else { throw BenchError("the phone's approval failed: \(phone.errorText)") }
        guard Subprocess.wait(gen) == 0 else {
            throw BenchError("oidc-gen failed: \((try? FileSystem.readText(out + ".err")) ?? "")")
        }
    }

    deinit { Subprocess.stop(pid, name: "the bench's oidc-agent") }
}
