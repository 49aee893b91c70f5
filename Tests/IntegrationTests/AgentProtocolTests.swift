import DBusKit
import Foundation
import Glibc
import SystemKit
import Testing

/// oidc-agent's clients against linkrouterd's agent socket (issue 49): Debian's
/// `oidc-token` 4.2.6 (liboidc-agent4, the encrypted form) and a plain-JSON
/// client as the Rust crate `oidc_agent_rs` is (Fixtures/agent_client.py), at
/// the real Glewlwyd with the accounts in a real gnome-keyring.
@Suite("oidc-agent's protocol on the agent socket", .serialized)
struct AgentProtocolTests {
    typealias World = AccountTests.World

    static let oidcToken = "/usr/bin/oidc-token"

    /// The socket linkrouterd serves, as `linkctl agent env` names it.
    static func socket(_ w: World) -> String { w.desktop.runtimeDir + "/linkrouter/agent" }

    static func oidcToken(_ w: World, _ args: [String]) throws -> Subprocess.Outcome {
        try Subprocess.run(
            [oidcToken] + args, environment: w.desktop.environment + ["OIDC_SOCK=" + socket(w)],
            timeoutMilliseconds: 30_000)
    }

    /// `argv` started now in the test's desktop; its exit status, stdout and stderr once it ends (the files under
    /// `name`).
    static func started(_ w: World, _ argv: [String], name: String) throws -> () -> (
        status: Int32, out: String, err: String
    ) {
        let out = w.desktop.root + "/" + name + ".out"
        let pid = try Subprocess.spawn(
            argv, environment: w.desktop.environment, stdout: .file(out), stderr: .file(out + ".err"))
        return {
            let status = Subprocess.wait(pid)
            return (status, (try? FileSystem.readText(out)) ?? "", (try? FileSystem.readText(out + ".err")) ?? "")
        }
    }

    /// The plain-JSON client's answer, parsed.
    static func plain(_ w: World, _ args: [String]) throws -> [String: Any] {
        let r = try Subprocess.run(
            ["/usr/bin/python3", Paths.fixtures + "/agent_client.py"] + args,
            environment: w.desktop.environment + ["OIDC_SOCK=" + socket(w)], timeoutMilliseconds: 90_000)
        let line = try #require(
            try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any], "\(r.errorText)")
        guard let answer = line["answer"] as? String else { return line }
        return (try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]) ?? ["raw": answer]
    }

    @Test(
        "oidc-token (encrypted) by account: the account's own token; an unknown account and one not signed in fail in oidc-agent's words with linkrouter's beside them; -s narrows; linkctl agent env names the socket"
    )
    func oidcTokenByAccount() throws {
        let w = try World()
        #expect(try w.add("work").status == 0 && w.add("idle").status == 0)
        #expect(try w.login("work").status == 0)
        let env = try w.desktop.linkctl("agent", "env")
        #expect(
            env.status == 0 && env.text == "OIDC_SOCK=\(Self.socket(w)); export OIDC_SOCK;\n",
            "\(env.text) \(env.errorText)")
        let mode = try #require(FileSystem.status(Self.socket(w)))
        #expect(mode.kind == .socket && mode.permissions == 0o600)

        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        let got = try Self.oidcToken(w, ["work"])
        #expect(got.status == 0 && got.text == token + "\n", "\(got.text) \(got.errorText)")
        // -a: the token, the issuer (oidc-agent's form, with a trailing /) and its expiry.
        let all = try Self.oidcToken(w, ["-a", "work"])
        let lines = all.text.split(separator: "\n").map(String.init)
        #expect(all.status == 0 && lines.count == 3 && lines[0] == token, "\(all.text) \(all.errorText)")
        #expect(
            lines.count == 3 && lines[1] == w.provider.issuer + "/"
                && (Int64(lines[2]) ?? 0) > Int64(Date().timeIntervalSince1970))

        let unknown = try Self.oidcToken(w, ["nobody-here"])
        #expect(
            unknown.status == 1 && unknown.text.isEmpty
                && unknown.errorText.hasPrefix("Error: No account configured with that short name"),
            "\(unknown.errorText)")
        let idle = try Self.oidcToken(w, ["idle"])
        #expect(
            idle.status == 1 && idle.errorText.hasPrefix("Error: account not loaded")
                && idle.errorText.contains("linkctl login idle"), "\(idle.errorText)")

        // A narrower token: the one linkctl is given for the same scope (one narrowed set, kept for both).
        let narrow = try Self.oidcToken(w, ["-s", "openid", "work"])
        let linkctlNarrow = try w.desktop.linkctl("token", "work", "--scope", "openid")
        #expect(narrow.status == 0 && linkctlNarrow.status == 0, "\(narrow.errorText) \(linkctlNarrow.errorText)")
        #expect(narrow.text == linkctlNarrow.text && narrow.text != token + "\n")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a Flatpak-shaped oidc-token (bubblewrap, the agent socket within its reach): the person is asked, naming the verified app with the client's own name beside it; Allow once gives the person's token, Deny is operation forbidden with none",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func sandboxed() throws {
        let w = try World()
        let dunst = try Dunst(desktop: w.desktop)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        let app = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Notebook")
        var n = 0
        func ask() throws -> () -> (status: Int32, out: String, err: String) {
            n += 1
            return try Self.started(
                w,
                app.command([
                    "/usr/bin/env", "OIDC_SOCK=" + Self.socket(w), Self.oidcToken, "--name", "jupyter", "work",
                ]),
                name: "agent-sandboxed-\(n)")
        }
        func prompted() -> Bool { eventually(timeoutMilliseconds: 20_000) { dunst.count("displayed") == 1 } }

        let first = try ask()
        #expect(prompted(), "no prompt: \(w.daemon.log.suffix(800))")
        _ = try dunst.choose("Allow once")
        let once = first()
        #expect(once.status == 0 && once.out == token + "\n", "\(once.status) \(once.err)")
        let shown = (dunst.history() + dunst.history("body")).joined(separator: "\n")
        #expect(
            shown.contains("Allow org.example.Notebook to use your account work?")
                && shown.contains("through a program that calls itself “jupyter” (its own say)"), "\(shown)")

        let second = try ask()
        #expect(prompted())
        _ = try dunst.choose("Deny")
        let denied = second()
        #expect(
            denied.status == 1 && denied.out.isEmpty && denied.err.hasPrefix("Error: operation forbidden")
                && denied.err.contains("denied"), "\(denied.status) \(denied.err)")

        // An app makes no forward of the agent (it would carry the person's accounts off this machine).
        let appBus = try app.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        let forward = try w.desktop.run(
            app.command([
                "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + appBus, "/usr/bin/gdbus", "call", "--session", "--dest",
                "org.linkrouter.LinkRouter1", "--object-path", "/org/linkrouter/LinkRouter1", "--method",
                "org.linkrouter.LinkRouter1.ForwardAgent", "{'host': <'far'>, 'accounts': <['work']>}",
            ]))
        #expect(
            forward.status != 0 && forward.errorText.contains("AccessDenied")
                && forward.errorText.contains("forward the agent"), "\(forward.errorText)")
        #expect(!FileSystem.list(w.desktop.runtimeDir + "/linkrouter").contains { $0.hasPrefix("forward-") })
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a forward through a real sshd: a remote oidc-token is confirmed here (Allow once: the token; Deny: operation forbidden), an account not named is refused without a prompt, more than the forward's scope refused, --allow-unconfirmed serves without asking; the forward's socket is gone when ssh exits",
        .enabled(if: LoopbackSSH.unavailable == nil, "\(LoopbackSSH.unavailable ?? "")"))
    func forward() throws {
        let w = try World()
        let dunst = try Dunst(desktop: w.desktop)
        let ssh = try LoopbackSSH(desktop: w.desktop)
        #expect(try w.add("work").status == 0 && w.add("other").status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        var n = 0
        /// `linkctl agent forward OPTIONS -- SSH… oidc-token ARGS` started now; its outcome once it ends.
        func forwarded(_ options: [String], _ tokenArgs: [String]) throws -> () -> (
            status: Int32, out: String, err: String
        ) {
            n += 1
            return try Self.started(
                w,
                [Paths.linkctl, "agent", "forward"] + options + ["--"] + ssh.arguments([Self.oidcToken] + tokenArgs),
                name: "forward-\(n)")
        }
        func forwards() -> [String] {
            FileSystem.list(w.desktop.runtimeDir + "/linkrouter").filter { $0.hasPrefix("forward-") }
        }
        func prompted() -> Bool { eventually(timeoutMilliseconds: 20_000) { dunst.count("displayed") == 1 } }

        let first = try forwarded(["--account", "work"], ["work"])
        #expect(prompted(), "no prompt: \(w.daemon.log.suffix(800)) \(ssh.log.suffix(400))")
        #expect(forwards().count == 1, "the forward's own socket, while ssh runs")
        let offered = try dunst.choose("Allow once")
        #expect(offered.contains("Always for this host") && offered.contains("Deny"), "\(offered)")
        let once = first()
        #expect(once.status == 0 && once.out == token + "\n", "\(once.status) \(once.err) \(ssh.log.suffix(400))")
        #expect(
            dunst.history().contains("Allow a program on 127.0.0.1 (via ssh) to use your account work?"),
            "\(dunst.history())")
        #expect(eventually(timeoutMilliseconds: 10_000) { forwards().isEmpty }, "closed with ssh: \(forwards())")

        let second = try forwarded(["--account", "work"], ["work"])
        #expect(prompted())
        _ = try dunst.choose("Deny")
        let denied = second()
        #expect(
            denied.status == 1 && denied.out.isEmpty && denied.err.contains("Error: operation forbidden"),
            "\(denied.status) \(denied.err)")

        // Not named on the forward, or wider than its scope: refused there, nobody asked.
        let unnamed = try forwarded(["--account", "work", "--allow-unconfirmed"], ["other"])()
        #expect(
            unnamed.status == 1 && unnamed.err.contains("Error: No account configured with that short name")
                && unnamed.err.contains("this forward serves work only"), "\(unnamed.err)")
        let wider = try forwarded(
            ["--account", "work", "--scope", "openid"], ["-s", "openid", "-s", "email", "work"])()
        #expect(wider.status == 1 && wider.err.contains("at most the scope openid"), "\(wider.err)")
        #expect(dunst.count("displayed") == 0)

        // Unconfirmed: served with no prompt (the account's own token).
        let unconfirmed = try forwarded(["--account", "work", "--allow-unconfirmed"], ["work"])()
        #expect(unconfirmed.status == 0 && unconfirmed.out == token + "\n", "\(unconfirmed.err)")
        #expect(dunst.count("displayed") == 0)

        // Headless (no notification server on the bus): a confirmed forward's request is refused, not served.
        Subprocess.stop(dunst.pid, name: "dunst")
        // (Named as another host: 127.0.0.1 was told no above, so its requests are refused for a while without asking.)
        let headless = try forwarded(["--account", "work", "--host", "build01"], ["work"])()
        #expect(
            headless.status == 1 && headless.out.isEmpty && headless.err.contains("Error: operation forbidden")
                && headless.err.contains("no one could be asked"),
            "\(headless.status) \(headless.err)")
        #expect(eventually(timeoutMilliseconds: 10_000) { forwards().isEmpty })
        #expect(w.daemon.isRunning)
    }

    static let python = Paths.root + "/.build/test-tools/oidc-venv/bin/python"
    static let pythonUnavailable: String? =
        FileSystem.isExecutable(python)
        ? nil : "liboidcagent is not installed: scripts/setup --test makes \(python) from PyPI, and could not"

    @Test(
        "liboidcagent 0.6.0 from PyPI (encrypted, on PyNaCl): by account, by issuer, a narrower scope; an unknown account and one not signed in raise OidcAgentError in oidc-agent's words with linkrouter's as its help; account_info says which are signed in",
        .enabled(if: pythonUnavailable == nil, "\(pythonUnavailable ?? "")"))
    func pythonLibrary() throws {
        let w = try World()
        // Two accounts at one issuer: by issuer, the default answers.
        #expect(try w.add("work", ["--default"]).status == 0 && w.add("idle").status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        func lib(_ args: [String]) throws -> [String: Any] {
            let r = try Subprocess.run(
                [Self.python, Paths.fixtures + "/liboidcagent_client.py"] + args,
                environment: w.desktop.environment + ["OIDC_SOCK=" + Self.socket(w)], timeoutMilliseconds: 30_000)
            return try #require(
                try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any], "\(r.text) \(r.errorText)")
        }
        let byName = try lib(["account", "work"])
        #expect(
            byName["token"] as? String == token && byName["issuer"] as? String == w.provider.issuer + "/", "\(byName)")
        #expect((byName["expires_at"] as? Int ?? 0) > Int(Date().timeIntervalSince1970))
        let byIssuer = try lib(["issuer", w.provider.issuer])
        #expect(byIssuer["token"] as? String == token, "\(byIssuer)")
        let narrow = try lib(["account", "work", "openid"])
        let linkctlNarrow = try w.desktop.linkctl("token", "work", "--scope", "openid").text
        #expect(
            narrow["token"] as? String == linkctlNarrow.trimmingCharacters(in: .newlines)
                && narrow["token"] as? String != token)

        let unknown = try lib(["account", "nobody-here"])
        #expect(
            unknown["kind"] as? String == "OidcAgentError"
                && unknown["error"] as? String == "No account configured with that short name", "\(unknown)")
        let idle = try lib(["account", "idle"])
        #expect(
            idle["error"] as? String == "account not loaded"
                && (idle["help"] as? String ?? "").contains("linkctl login idle"),
            "\(idle)")
        let infos = try lib(["infos"])
        let atIssuer = (infos["infos"] as? [String: Any])?[w.provider.issuer + "/"] as? [String: Any]
        #expect(
            atIssuer?["pubclient"] as? Bool == true
                && atIssuer?["accounts"] as? [String: Bool] == ["work": true, "idle": false], "\(infos)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "linkctl's front asks the agent socket first: with no bus to reach, token (alone and --json), git's and kubectl's helpers answer as over the bus, and a refusal reads and exits as the full linkctl's over the bus; a bad option in linkrouter's own request is refused with the bus's error name"
    )
    func frontFastPath() throws {
        let w = try World()
        #expect(try w.add("work").status == 0 && w.add("idle").status == 0)
        #expect(try w.login("work").status == 0)
        let overBus = try w.desktop.linkctl("token", "work", "--json")
        let token = try w.desktop.linkctl("token", "work").text
        // No bus at all: only the agent socket can answer.
        let noBus =
            w.desktop.environment.filter { !$0.hasPrefix("DBUS_SESSION_BUS_ADDRESS=") } + [
                "DBUS_SESSION_BUS_ADDRESS=unix:path=" + w.desktop.root + "/no-bus-here"
            ]
        func front(_ args: [String], stdin: String? = nil) throws -> Subprocess.Outcome {
            guard let stdin else { return try Subprocess.run([Paths.linkctl] + args, environment: noBus) }
            return try Subprocess.run(
                ["/bin/sh", "-c", "in=$1; shift; printf '%s' \"$in\" | \"$0\" \"$@\"", Paths.linkctl, stdin] + args,
                environment: noBus
            )
        }
        let plain = try front(["token", "work"])
        #expect(plain.status == 0 && plain.text == token && !token.isEmpty, "\(plain.errorText)")
        let json = try front(["token", "work", "--json"])
        #expect(json.status == 0 && json.text == overBus.text, "\(json.text) \(overBus.text)")
        let git = try front(
            ["credential", "git", "get", "--account", "work"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(git.status == 0 && git.text.contains("password=" + token), "\(git.text) \(git.errorText)")
        let kube = try front(["credential", "kube", "--account", "work"])
        #expect(kube.status == 0 && kube.text.contains(token.trimmingCharacters(in: .newlines)), "\(kube.errorText)")
        for args in [["token", "nobody-here"], ["token", "idle"], ["token", "work", "--min-valid", "99999"]] {
            let fast = try front(args)
            let full = try w.desktop.run([Paths.linkctlFull] + args)
            #expect(
                fast.status == full.status && fast.errorText == full.errorText && fast.status != 0,
                "\(args): \(fast.status) \(fast.errorText) / \(full.status) \(full.errorText)")
        }
        // linkrouter's own request on the socket, as the front sends it: GetToken's answer, its options checked as the bus's.
        let own = try Self.plain(
            w, ["send", #"{"request":"linkrouter_token","account":"work","options":{"min_valid":5}}"#])
        #expect(
            own["status"] as? String == "success" && (own["reply"] as? [String: Any])?["account"] as? String == "work",
            "\(own)")
        let badOption = try Self.plain(
            w, ["send", #"{"request":"linkrouter_token","account":"work","options":{"min_valid":"soon"}}"#])
        #expect(
            badOption["error_name"] as? String == "org.freedesktop.DBus.Error.InvalidArgs"
                && (badOption["error"] as? String ?? "").contains("min_valid"), "\(badOption)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "socket activation as systemd does it (systemd-socket-activate: the socket made first, the daemon started for the first client with LISTEN_FDS and FileDescriptorName=agent): oidc-token's request starts the daemon, which answers it on the socket it was handed and leaves that socket's file to its owner when it stops",
        .enabled(
            if: FileSystem.isExecutable("/usr/bin/systemd-socket-activate"),
            "no systemd-socket-activate (Debian: systemd)"))
    func socketActivation() throws {
        let w = try World()
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text
        // A daemon that made its socket itself removes it when it stops.
        #expect(w.daemon.stop() == 0)
        #expect(!FileSystem.exists(Self.socket(w)))
        let activated = try DaemonProcess(
            desktop: w.desktop,
            // The activator passes on only the environment it is told to (-E), as systemd gives a unit the manager's.
            arguments: w.desktop.environment.flatMap { ["-E", String($0.prefix { $0 != "=" })] } + [
                "-l", Self.socket(w), "--fdname=" + "agent", Paths.linkrouterd, "--system-accounts-dir",
                w.systemAccounts,
            ], waitForName: false, logName: "activated.log", executable: "/usr/bin/systemd-socket-activate")
        #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.status(Self.socket(w))?.kind == .socket })
        let probe = try DBusConnection(address: try #require(w.desktop.busAddress))
        #expect(!DaemonProcess.nameHasOwner(probe), "no daemon before the first client")
        let first = try Self.oidcToken(w, ["work"])
        #expect(first.status == 0 && first.text == token, "\(first.errorText) \(activated.log.suffix(600))")
        #expect(DaemonProcess.nameHasOwner(probe), "the daemon the first client started owns its name")
        #expect(activated.stop() == 0)
        #expect(FileSystem.status(Self.socket(w))?.kind == .socket, "the handed socket's file is its owner's")
    }

    @Test(
        "a refused refresh through oidc-token (Glewlwyd's one-use refresh tokens, the spent one sent again): exit 1 with oidc-agent's 'account not loaded' and linkrouter's why and login line; the provider asked once, the next request answered at once"
    )
    func refusedRefresh() throws {
        let w = try RotationTests.signedIn()
        let first = try RotationTests.secret(w, "work")
        // One refresh spends the first refresh token; the keyring then goes back to it, as if the new set were lost.
        let refreshed = try Self.oidcToken(w, ["-t", "3600", "work"])
        #expect(refreshed.status == 0, "\(refreshed.errorText)")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? RotationTests.secret(w, "work")) != first })
        _ = w.daemon.stop()
        try RotationTests.store(w, "work", first)
        try w.restart()
        let posts = RotationTests.tokenPosts(w)
        let refused = try Self.oidcToken(w, ["-t", "3600", "work"])
        #expect(
            refused.status == 1 && refused.text.isEmpty && refused.errorText.hasPrefix("Error: account not loaded")
                && refused.errorText.contains("refused the refresh token (HTTP 400)")
                && refused.errorText.contains("linkctl login work"), "\(refused.status) \(refused.errorText)")
        #expect(RotationTests.tokenPosts(w) == posts + 1, "the spent token was sent once")
        let again = try Self.oidcToken(w, ["work"])
        #expect(again.status == 1 && again.errorText.hasPrefix("Error: account not loaded"), "\(again.errorText)")
        #expect(RotationTests.tokenPosts(w) == posts + 1, "signed out: the provider is not asked again")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "plain JSON: by issuer, the ID token, loaded_accounts; oidc-agent's own requests refused naming linkctl; not JSON, no type, an unknown type and 1 MiB refused, each in a failure; the daemon up"
    )
    func plainJSON() throws {
        let w = try World()
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)

        let byIssuer = try Self.plain(
            w, ["send", #"{"request":"access_token","issuer":"\#(w.provider.issuer)/","min_valid_period":60}"#])
        #expect(
            byIssuer["status"] as? String == "success" && byIssuer["access_token"] as? String == token, "\(byIssuer)")
        #expect(byIssuer["issuer"] as? String == w.provider.issuer + "/" && (byIssuer["expires_at"] as? Int ?? 0) > 0)
        let elsewhere = try Self.plain(
            w, ["send", #"{"request":"access_token","issuer":"https://elsewhere.example/"}"#])
        #expect(
            elsewhere["status"] as? String == "failure" && elsewhere["error"] as? String == "account not loaded",
            "\(elsewhere)")

        let id = try Self.plain(w, ["send", #"{"request":"id_token","account":"work"}"#])
        let idToken = try w.desktop.linkctl("token", "work", "--id-token").text.trimmingCharacters(in: .newlines)
        #expect(id["status"] as? String == "success" && id["id_token"] as? String == idToken, "\(id)")

        let loaded = try Self.plain(w, ["send", #"{"request":"loaded_accounts"}"#])
        #expect(loaded["status"] as? String == "success" && loaded["info"] as? [String] == ["work"], "\(loaded)")

        let gen = try Self.plain(w, ["send", #"{"request":"gen","name":"x"}"#])
        #expect(
            gen["status"] as? String == "failure"
                && (gen["error"] as? String ?? "").contains("does not serve oidc-agent's gen")
                && (gen["info"] as? String ?? "").contains("linkctl account add"), "\(gen)")
        let unknownType = try Self.plain(w, ["send", #"{"request":"fly"}"#])
        #expect(unknownType["error"] as? String == "Bad Request: Unknown request type.", "\(unknownType)")
        let noType = try Self.plain(w, ["send", #"{"account":"work"}"#])
        #expect(noType["error"] as? String == "Bad Request: No request type.", "\(noType)")
        let neither = try Self.plain(w, ["send", #"{"request":"access_token"}"#])
        #expect(neither["error"] as? String == "Not yet implemented", "\(neither)")
        let notJSON = try Self.plain(w, ["send", "{not json}"])
        #expect((notJSON["error"] as? String ?? "").hasPrefix("Bad Request: could not parse json"), "\(notJSON)")
        let words = try Self.plain(w, ["send", "hello agent"])
        #expect((words["error"] as? String ?? "").hasPrefix("Bad Request: the first message is neither"), "\(words)")
        let big = w.desktop.root + "/big.json"
        try FileSystem.writeAtomically(
            big, Array(#"{"request":"access_token","account":""#.utf8) + [UInt8](repeating: 0x61, count: 1 << 20))
        let huge = try Self.plain(w, ["send-file", big])
        #expect((huge["error"] as? String ?? "").contains("larger than 65536 bytes"), "\(huge)")
        // None of it reached the log as the client sent it.
        #expect(!w.daemon.log.contains("aaaaaaaa") && !w.daemon.log.contains("hello agent"))
        #expect(w.daemon.isRunning)
    }

    @Test(
        "another uid that reaches the socket is refused; a client that sends nothing does not hold up another and is closed at its deadline; a thousand at once are each answered"
    )
    func peers() throws {
        let w = try World()
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)

        // The path made reachable, as oidc-agent's was when a nobody process got a token from it: the uid is checked.
        if getuid() == 0 {
            for dir in [w.desktop.root, w.desktop.runtimeDir, w.desktop.runtimeDir + "/linkrouter"] {
                #expect(chmod(dir, 0o711) == 0)
            }
            #expect(chmod(Self.socket(w), 0o666) == 0)
            let nobody = try Self.plain(w, ["as-nobody", #"{"request":"access_token","account":"work"}"#])
            #expect(
                nobody["status"] as? String == "failure" && nobody["error"] as? String == "operation forbidden"
                    && nobody["access_token"] == nil, "\(nobody)")
            #expect(w.daemon.log.contains("Refused an agent connection from uid 65534"))
        }

        // A client that connects and sends nothing: another is served meanwhile; it is closed after 10 s.
        let stallOut = w.desktop.root + "/stall.out"
        let stall = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/agent_client.py", "stall"],
            environment: w.desktop.environment + ["OIDC_SOCK=" + Self.socket(w)], stdout: .file(stallOut))
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                ((try? FileSystem.readText(stallOut)) ?? "").contains("connected")
            })
        let meanwhile = try Self.oidcToken(w, ["work"])
        #expect(meanwhile.status == 0 && meanwhile.text == token + "\n", "\(meanwhile.errorText)")
        #expect(
            !((try? FileSystem.readText(stallOut)) ?? "").contains("closed_after"), "the stalled client is still open")
        let ended = Subprocess.wait(stall, timeoutMilliseconds: 30_000)
        #expect(ended == 0)
        let stalled = (try? FileSystem.readText(stallOut)) ?? ""
        #expect(stalled.contains("closed_after") && stalled.contains(#""answer": """#), "\(stalled)")

        let many = try Self.plain(w, ["many", "1000", #"{"request":"access_token","account":"work"}"#])
        let summary = try #require(many["summary"] as? [String: Int], "\(many)")
        #expect(summary.values.reduce(0, +) == 1000 && (summary["success"] ?? 0) > 0, "\(summary)")
        // What is not a token is a failure that says why (connections or calls over the limit), never silence.
        #expect(summary.keys.allSatisfy { $0 == "success" || $0.hasPrefix("failure: ") }, "\(summary)")
        #expect(w.daemon.isRunning)
        let after = try Self.oidcToken(w, ["work"])
        #expect(after.status == 0 && after.text == token + "\n", "\(after.errorText)")
    }
}
