import Glibc
import LinkRouterAPI
import LinkRouterCore
import SystemKit
import Testing

/// linkctl's front (`Sources/LinkctlFront`, Embedded Swift) serves `open`
/// while the daemon answers and hands everything else to the full linkctl.
/// Every other suite drives it as `linkctl`; these check that it answers as
/// the full linkctl does, that the hand-over keeps the arguments (and the
/// helper names), and the faults between the two halves.
@Suite("linkctl's front")
struct LinkctlFrontTests {
    /// Runs the front and the full linkctl with the same arguments and environment.
    static func both(_ h: Harness, _ args: [String]) throws -> (front: Subprocess.Outcome, full: Subprocess.Outcome) {
        (try h.desktop.run([Paths.linkctl] + args), try h.desktop.run([Paths.linkctlFull] + args))
    }

    @Test(
        "open answers as the full linkctl does: the same words, streams and exit status for a refused link, a bad URL, an unknown scheme, a control character, an empty argument, options and a loop; a callback completes through either"
    )
    func sameAnswers() throws {
        let h = try Harness()
        let cases: [[String]] = [
            ["open", "--", "com.example.app:/callback?code=c&state=nope"],
            ["open", "com.example.app:/callback?code=c&state=nope"],
            ["open", "not a url"], ["open", "mailto:someone@example.com"], ["open", "com.example.app:/a\u{1}b"],
            ["open", ""], ["open"], ["open", "--", "--help"], ["open", "--bogus", "x"], ["open", "a", "b"],
            ["open", "--help"],
        ]
        for args in cases {
            let (front, full) = try Self.both(h, args)
            #expect(
                front.status == full.status && front.text == full.text && front.errorText == full.errorText,
                "\(args): front \(front.status) \(front.text)\(front.errorText) / full \(full.status) \(full.text)\(full.errorText)"
            )
            // Every case but `--help` is refused.
            #expect((front.status == 0) == (args == ["open", "--help"]), "\(args): \(front.status)")
        }
        // A web link handed back by a browser linkrouter started (the loop rule), with the variable set.
        h.desktop.extraEnvironment[LinkIntake.hopVariable] = "1"
        let (front, full) = try Self.both(h, ["open", "https://example.com/"])
        #expect(front.status == 1 && front.errorText == "linkctl: " + LinkIntake.loopRefusal + "\n")
        #expect(front.status == full.status && front.errorText == full.errorText && front.text == full.text)
        h.desktop.extraEnvironment[LinkIntake.hopVariable] = nil
        for program in [Paths.linkctl, Paths.linkctlFull] {
            let (path, url) = try h.app.beginQuiet()
            let r = try h.desktop.run([
                program, "open", "--", "com.example.app:/callback?code=c&state=\(Harness.state(of: url))",
            ])
            #expect(r.status == 0 && r.text == "completed\n" && r.errorText.isEmpty, "\(program): \(r.errorText)")
            #expect(try h.app.wait(path)["code"] == "c")
        }
        #expect(h.daemonAnswers)
    }

    @Test(
        "every other verb goes to the full linkctl with its arguments: --version, help, status and a usage error read the same; run by a helper's name, the helper answers"
    )
    func handOver() throws {
        let h = try Harness()
        for args in [["--version"], ["--help"], ["help", "token"], ["status", "--json"], ["token", "--bogus"], []] {
            let (front, full) = try Self.both(h, args)
            #expect(
                front.status == full.status && front.text == full.text && front.errorText == full.errorText, "\(args)")
        }
        // git's and docker's helpers are symlinks to linkctl: the name reaches the full linkctl unchanged, and `open`
        // as a helper's operation is the helper's to refuse, never a link routed.
        for name in [LinkctlLayout.dockerHelperName, LinkctlLayout.gitHelperName] {
            for (dir, target) in [("front", Paths.linkctl), ("full", Paths.linkctlFull)] {
                try FileSystem.makeDirectories(h.desktop.root + "/" + dir)
                try FileSystem.symlink(target, at: h.desktop.root + "/" + dir + "/" + name)
            }
            for args in [["--help"], ["open", "com.example.app:/x"], ["version"]] {
                let front = try h.desktop.run([h.desktop.root + "/front/" + name] + args)
                let full = try h.desktop.run([h.desktop.root + "/full/" + name] + args)
                #expect(
                    front.status == full.status && front.text == full.text && front.errorText == full.errorText,
                    "\(name) \(args): \(front.status) \(front.text)\(front.errorText) / \(full.status) \(full.errorText)"
                )
                #expect(!front.text.contains("delivered") && !front.text.contains("completed"))
            }
        }
    }

    @Test(
        "a front without the full linkctl beside it still routes a click, and any other verb says what is missing (exit 69)"
    )
    func alone() throws {
        let h = try Harness()
        let dir = h.desktop.root + "/lone"
        try FileSystem.makeDirectories(dir)
        let lone = dir + "/linkctl"
        try FileSystem.writeAtomically(lone, try FileSystem.read(Paths.linkctl, maxBytes: 1 << 26), permissions: 0o755)
        let (path, url) = try h.app.beginQuiet()
        let click = try h.desktop.run([
            lone, "open", "--", "com.example.app:/callback?code=lone&state=\(Harness.state(of: url))",
        ])
        #expect(click.status == 0 && click.text == "completed\n", "\(click.errorText)")
        #expect(try h.app.wait(path)["code"] == "lone")
        let other = try h.desktop.run([lone, "status"])
        #expect(
            other.status == 69
                && other.errorText.hasPrefix(
                    "linkctl: the rest of linkctl could not be run (looked for \(dir)/linkctl-full")
                && other.errorText.contains("reinstall linkrouter"), "\(other.status) \(other.errorText)")
    }

    @Test(
        "no answer after the link went out (the daemon stopped, then killed): the full linkctl queues it without sending it again, and the next daemon routes it once"
    )
    func noAnswerAfterSending() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let link = "com.example.app:/callback?code=late&state=\(Harness.state(of: url))"
        let monitorLog = h.desktop.root + "/monitor.log"
        let monitor = try Subprocess.spawn(
            ["dbus-monitor", "--address", h.bus.address, "interface='org.linkrouter.LinkRouter1',member='Route'"],
            environment: h.desktop.environment, stdout: .file(monitorLog), stderr: .null)
        defer { Subprocess.stop(monitor, name: "dbus-monitor") }
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                ((try? FileSystem.readText(monitorLog)) ?? "").contains("NameAcquired")
            })
        kill(h.daemon.pid, SIGSTOP)
        let out = h.desktop.root + "/open.out"
        let err = h.desktop.root + "/open.err"
        let click = try Subprocess.spawn(
            [Paths.linkctl, "open", "--", link], environment: h.desktop.environment, stdout: .file(out),
            stderr: .file(err))
        // The link is on its way to the stopped daemon; then the daemon is gone without a reply.
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                ((try? FileSystem.readText(monitorLog)) ?? "").contains("code=late")
            })
        kill(h.daemon.pid, SIGKILL)
        #expect(Subprocess.wait(click, timeoutMilliseconds: 30_000) == 0)
        let said = (try? FileSystem.readText(err)) ?? ""
        #expect(try FileSystem.readText(out) == "queued\n", "\(said)")
        #expect(said.contains("linkrouterd is not reachable (") && said.contains("queued the link"), "\(said)")
        let inbox = h.desktop.runtimeDir + "/linkrouter/inbox"
        #expect(FileSystem.list(inbox).count == 1)
        // Sent once: the monitor saw one Route call carrying the link.
        let seen = (try? FileSystem.readText(monitorLog)) ?? ""
        #expect(seen.components(separatedBy: "code=late").count - 1 == 1, "\(seen)")
        try h.restartDaemon()
        #expect(try h.app.wait(path)["code"] == "late")
        #expect(eventually { FileSystem.list(inbox).isEmpty })
        #expect(try h.app.counter("links_routed") == 1)
    }

    @Test(
        "token answers as the full linkctl does: the same token from memory, --min-valid as a flag or with =, --scope, --resource, --issuer, --dpop, --json, --header, --env, and the same words and exit status for a bad number, an unknown account, one not signed in, a min_valid the daemon refuses, an ambiguous issuer, two ways of printing, and a proof for an account without a key"
    )
    func tokenSameAnswers() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600)
        #expect(try w.add("work").status == 0)
        #expect(try w.add("later").status == 0)
        #expect(try w.login("work").status == 0)
        func both(_ args: [String]) throws -> (Subprocess.Outcome, Subprocess.Outcome) {
            (try w.desktop.run([Paths.linkctl] + args), try w.desktop.run([Paths.linkctlFull] + args))
        }
        for args in [["token", "work"], ["token", "work", "--min-valid", "60"], ["token", "--min-valid=60", "work"]] {
            let (front, full) = try both(args)
            #expect(front.status == 0 && !front.text.isEmpty && front.errorText.isEmpty, "\(args): \(front.errorText)")
            #expect(front.text == full.text && front.errorText == full.errorText, "\(args)")
        }
        // Exit status 64 usage, 1 refused, 4 not signed in; nil: whatever the full linkctl makes of it (the front hands it on).
        let cases: [([String], Int32?)] = [
            (["token", "work", "--min-valid", "soon"], 64), (["token", "work", "--min-valid", "99999"], 1),
            (["token", "nobody"], 1), (["token", "later"], 4),
            (["token", "work", "--min-valid", "1", "--min-valid", "2"], nil), (["token", "work", "extra", "x"], nil),
            // Narrower tokens, by issuer (two accounts there, no default: refused), a proof for an unbound account.
            (["token", "work", "--scope", "openid"], 0),
            (["token", "work", "--resource", "https://api.example/"], nil),
            (["token", "--issuer", w.provider.issuer], 1), (["token", "work", "--issuer", w.provider.issuer], 64),
            (["token", "work", "--dpop", "GET", "https://api.example/things"], 1),
            (["token", "work", "--dpop=GET", "--dpop-url", "https://api.example/things"], 1),
            (["token", "work", "https://api.example/things"], 64), (["token", "work", "--json"], 0),
            // Printed otherwise: the reply as JSON, the header line, export lines; one of them at a time.
            (["token", "work", "--header"], 0), (["token", "work", "--env", "--min-valid=60"], 0),
            (["token", "--json", "work", "--scope", "openid"], 0), (["token", "work", "--json", "--header"], 64),
            (["token", "work", "--env=yes"], nil), (["token", "later", "--json"], 4),
            (["token", "work", "--json", "--dpop", "GET", "https://api.example/things"], 1),
            (["token", "work", "--header", "--dpop", "GET", "https://api.example/things"], nil),
        ]
        for (args, status) in cases {
            let (front, full) = try both(args)
            #expect(
                (status == nil || front.status == status) && front.status == full.status && front.text == full.text
                    && front.errorText == full.errorText,
                "\(args): front \(front.status) \(front.errorText) / full \(full.status) \(full.errorText)")
        }
        #expect(w.daemon.isRunning)
    }

    @Test(
        "git's helper answers as the full linkctl does, run as linkctl credential git and as git-credential-linkrouter: a token for https (Bearer where git offers it), nothing for plain http, store ignored, and the same words, quit=1 and exit status for a bad request, an unknown account and one not signed in"
    )
    func gitSameAnswers() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600)
        #expect(try w.add("work").status == 0)
        #expect(try w.add("later").status == 0)
        #expect(try w.login("work").status == 0)
        let helpers = w.desktop.root + "/helpers"
        try FileSystem.makeDirectories(helpers + "/front")
        try FileSystem.makeDirectories(helpers + "/full")
        try FileSystem.symlink(Paths.linkctl, at: helpers + "/front/" + LinkctlLayout.gitHelperName)
        try FileSystem.symlink(Paths.linkctlFull, at: helpers + "/full/" + LinkctlLayout.gitHelperName)
        func run(_ argv: [String], _ input: String) throws -> Subprocess.Outcome {
            try w.desktop.run(["sh", "-c", "printf '\(input)' | \"$@\"", "sh"] + argv)
        }
        let https = "protocol=https\\nhost=git.example.com\\n\\n"
        let cases: [([String], String, Int32, Bool)] = [
            (["get", "--account", "work"], https, 0, true),
            (["get", "--account=work", "--username", "x-access-token"], https, 0, true),
            (
                ["get", "--account", "work"], "capability[]=authtype\\nprotocol=https\\nhost=git.example.com\\n\\n", 0,
                true
            ),
            (["get", "--account", "work"], "protocol=http\\nhost=git.example.com\\n\\n", 0, false),
            (["store", "--account", "work"], https, 0, false),
            (["get", "--account", "work"], "protocol=https\\nhost\\n\\n", 1, false),
            (["get", "--account", "nobody"], https, 1, false),
            (["get", "--account", "later"], https, 4, false),
        ]
        for (args, input, status, answered) in cases {
            let full = try run([Paths.linkctlFull, "credential", "git"] + args, input)
            for argv in [
                [Paths.linkctl, "credential", "git"] + args, [helpers + "/front/" + LinkctlLayout.gitHelperName] + args,
            ] {
                let front = try run(argv, input)
                #expect(
                    front.status == status && front.status == full.status && front.text == full.text
                        && front.errorText == full.errorText,
                    "\(argv): front \(front.status) \(front.text) \(front.errorText) / full \(full.status) \(full.text) \(full.errorText)"
                )
                #expect(front.text.contains("password=") == answered, "\(argv): \(front.text)")
                #expect(
                    (status != 0) == front.text.contains("quit=1") || status == 1 && input.contains("host\\n"),
                    "\(argv)")
            }
            let viaFullHelper = try run([helpers + "/full/" + LinkctlLayout.gitHelperName] + args, input)
            #expect(viaFullHelper.text == full.text && viaFullHelper.status == full.status)
        }
        #expect(w.daemon.isRunning)
    }

    /// A copy of the front with no `linkctl-full` beside it: what it answers, it answered itself.
    static func lone(_ root: String, name: String = "linkctl") throws -> String {
        let dir = root + "/lone"
        try FileSystem.makeDirectories(dir)
        let lone = dir + "/" + name
        try FileSystem.writeAtomically(lone, try FileSystem.read(Paths.linkctl, maxBytes: 1 << 26), permissions: 0o755)
        return lone
    }

    @Test(
        "the front serves token (alone, --json, --header, --env, --min-valid, --issuer), git's (as credential git and by the helper's own name), kubectl's and docker's helpers itself: a front with no full linkctl beside it answers every row of its table (FrontForm; open in `alone`) as the full linkctl does"
    )
    func servedByTheFront() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600)
        #expect(try w.add("work", ["--registry", "registry.example.com"]).status == 0)
        #expect(try w.login("work").status == 0)
        let lone = try Self.lone(w.desktop.root)
        let docker = w.desktop.root + "/lone/" + LinkctlLayout.dockerHelperName
        try FileSystem.symlink(lone, at: docker)
        // The full linkctl by the docker helper's name (argv[0] picks the helper).
        try FileSystem.makeDirectories(w.desktop.root + "/full")
        let fullDocker = w.desktop.root + "/full/" + LinkctlLayout.dockerHelperName
        try FileSystem.symlink(Paths.linkctlFull, at: fullDocker)
        // git's helper by its own name, as `credential.helper = linkrouter` runs it.
        let gitHelper = w.desktop.root + "/lone/" + LinkctlLayout.gitHelperName
        try FileSystem.symlink(lone, at: gitHelper)
        let fullGitHelper = w.desktop.root + "/full/" + LinkctlLayout.gitHelperName
        try FileSystem.symlink(Paths.linkctlFull, at: fullGitHelper)
        let input = w.desktop.root + "/docker-input"
        try FileSystem.writeAtomically(input, text: "https://registry.example.com/v2/\n", permissions: 0o600)
        let gitInput = w.desktop.root + "/git-input"
        try FileSystem.writeAtomically(
            gitInput, text: "protocol=https\nhost=git.example.com\n\n", permissions: 0o600)
        let tokenForms: [[String]] = [
            [], ["--json"], ["--header"], ["--env"], ["--min-valid", "60"], ["--issuer", w.provider.issuer],
        ]
        let pairs: [([String], [String])] =
            tokenForms.map { form in
                let name = form.first == "--issuer" ? [] : ["work"]
                return ([lone, "token"] + name + form, [Paths.linkctlFull, "token"] + name + form)
            } + [
                (
                    ["sh", "-c", "'\(lone)' credential git --account work get < '\(gitInput)'"],
                    ["sh", "-c", "'\(Paths.linkctlFull)' credential git --account work get < '\(gitInput)'"]
                ),
                (
                    ["sh", "-c", "'\(gitHelper)' --account work get < '\(gitInput)'"],
                    ["sh", "-c", "'\(fullGitHelper)' --account work get < '\(gitInput)'"]
                ),
                (
                    [lone, "credential", "kube", "--account", "work"],
                    [Paths.linkctlFull, "credential", "kube", "--account", "work"]
                ),
                (["sh", "-c", "'\(docker)' get < '\(input)'"], ["sh", "-c", "'\(fullDocker)' get < '\(input)'"]),
            ]
        let token = String(try w.desktop.linkctl("token", "work").text.dropLast())
        for (front, full) in pairs {
            let served = try w.desktop.run(front)
            let reference = try w.desktop.run(full)
            #expect(
                served.status == 0 && served.text == reference.text && served.errorText == reference.errorText
                    && served.text.contains(token),
                "\(front): \(served.status) \(served.text) \(served.errorText) / \(reference.text) \(reference.errorText)"
            )
        }
        // What the front hands on, a lone front cannot do: the proof that the four above were its own.
        let other = try w.desktop.run([lone, "token", "work", "--interactive"])
        #expect(other.status == 69, "\(other.errorText)")
    }

    @Test(
        "kubectl's helper answers as the full linkctl does: the ExecCredential in each apiVersion asked, and the same words and exit status for requests that are not kubectl's (bad JSON, a duplicate member, another group, too deep), an unknown account, one not signed in, an ambiguous issuer and bad arguments"
    )
    func kubeSameAnswers() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600)
        #expect(try w.add("work").status == 0)
        #expect(try w.add("later").status == 0)
        #expect(try w.login("work").status == 0)
        let v1 =
            #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#
        let v1beta1 = #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{}}"#
        let deep = { (n: Int) in
            #"{"apiVersion":"client.authentication.k8s.io/v1","x":"# + String(repeating: "[", count: n - 1)
                + String(repeating: "]", count: n - 1) + "}"
        }
        // nil: no KUBERNETES_EXEC_INFO; the status each answer must have (0 answered, 1 refused, 4 not signed in,
        // 64 usage).
        let cases: [(String?, [String], Int32)] = [
            (nil, ["--account", "work"], 0), (v1, ["--account=work"], 0), (v1beta1, ["--account", "work"], 0),
            ("", ["--account", "work"], 0), (deep(32), ["--account", "work"], 0),
            (deep(33), ["--account", "work"], 1),
            ("{not json", ["--account", "work"], 1),
            (
                #"{"apiVersion":"client.authentication.k8s.io/v1","apiVersion":"client.authentication.k8s.io/v1"}"#,
                ["--account", "work"], 1
            ),
            (#"{"apiVersion":"example.com/v1"}"#, ["--account", "work"], 1), (#"["x"]"#, ["--account", "work"], 1),
            (v1, ["--account", "nobody"], 1), (v1, ["--account", "later"], 4),
            (v1, ["--issuer", w.provider.issuer], 1), (v1, ["--account", "work", "--issuer", w.provider.issuer], 64),
            (v1, [], 64), (v1, ["--account", "-bad"], 64), (v1, ["--account", "work", "extra"], 64),
        ]
        for (info, args, status) in cases {
            let env = info.map { ["env", "KUBERNETES_EXEC_INFO=" + $0] } ?? []
            let front = try w.desktop.run(env + [Paths.linkctl, "credential", "kube"] + args)
            let full = try w.desktop.run(env + [Paths.linkctlFull, "credential", "kube"] + args)
            #expect(
                front.status == status && front.status == full.status && front.text == full.text
                    && front.errorText == full.errorText,
                "\(info ?? "-") \(args): front \(front.status) \(front.text) \(front.errorText) / full \(full.status) \(full.errorText)"
            )
            if status == 0 {
                let version = info.flatMap { $0.contains("k8s.io/v1\"") ? "client.authentication.k8s.io/v1" : nil }
                #expect(
                    front.text.hasPrefix(
                        #"{"apiVersion":""# + (version ?? "client.authentication.k8s.io/v1beta1")
                            + #"","kind":"ExecCredential","status":{"token":""#),
                    "\(front.text)")
            }
        }
        #expect(w.daemon.isRunning)
    }

    @Test(
        "docker's get answers as the full linkctl's does: the listed registry's token (https, a bare host, any case), and the same words and exit status for one reached in the clear, an unlisted one, no input, and an account not signed in"
    )
    func dockerSameAnswers() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600)
        #expect(
            try w.add("work", ["--registry", "registry.example.com", "--username", "oauth2accesstoken"]).status == 0)
        #expect(try w.add("later", ["--registry", "later.example.com"]).status == 0)
        #expect(try w.login("work").status == 0)
        let helpers = w.desktop.root + "/helpers"
        try FileSystem.makeDirectories(helpers + "/front")
        try FileSystem.makeDirectories(helpers + "/full")
        try FileSystem.symlink(Paths.linkctl, at: helpers + "/front/" + LinkctlLayout.dockerHelperName)
        try FileSystem.symlink(Paths.linkctlFull, at: helpers + "/full/" + LinkctlLayout.dockerHelperName)
        let input = w.desktop.root + "/docker-input"
        func run(_ side: String, _ args: [String]) throws -> Subprocess.Outcome {
            try w.desktop.run(
                ["sh", "-c", "\"$@\" < '\(input)'", "sh", helpers + "/" + side + "/" + LinkctlLayout.dockerHelperName]
                    + args)
        }
        let cases: [(String, Int32)] = [
            ("https://registry.example.com/v1/\n", 0), ("  Registry.Example.COM\n", 0),
            ("http://registry.example.com/v1/\n", 1), ("https://index.docker.io/v1/\n", 1), ("\n", 1),
            ("https://later.example.com\n", 1), ("ftp://registry.example.com\n", 1),
        ]
        for (text, status) in cases {
            try FileSystem.writeAtomically(input, text: text, permissions: 0o600)
            let front = try run("front", ["get"])
            let full = try run("full", ["get"])
            #expect(
                front.status == status && front.status == full.status && front.text == full.text
                    && front.errorText == full.errorText,
                "\(text): front \(front.status) \(front.text) \(front.errorText) / full \(full.status) \(full.text) \(full.errorText)"
            )
            #expect(front.text.contains("\"Secret\"") == (status == 0), "\(front.text)")
        }
        // The helper's other operations, and a get with more arguments, are the full linkctl's: the same answers.
        for args in [["list"], ["version"], ["get", "extra"]] {
            let front = try run("front", args)
            let full = try run("full", args)
            #expect(
                front.status == full.status && front.text == full.text && front.errorText == full.errorText, "\(args)")
        }
        #expect(w.daemon.isRunning)
    }

    @Test(
        "the front's own bus connection: a first address nobody listens at is the full linkctl's to go past (libdbus tries the next); a bus that closes at once or refuses the authentication is 'not reachable' for a token (exit 69, as the full linkctl), and a click there is queued for the next daemon"
    )
    func busFaults() throws {
        let w = try AccountTests.World(accessTokenSeconds: 600)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.run([Paths.linkctlFull, "token", "work"])
        #expect(token.status == 0 && !token.text.isEmpty, "\(token.errorText)")
        let real = w.desktop.environment.first { $0.hasPrefix("DBUS_SESSION_BUS_ADDRESS=") }.map {
            String($0.dropFirst("DBUS_SESSION_BUS_ADDRESS=".count))
        }
        let two = "unix:path=" + w.desktop.root + "/nobody-listens;" + (real ?? "")
        let past = try w.desktop.run(["env", "DBUS_SESSION_BUS_ADDRESS=" + two, Paths.linkctl, "token", "work"])
        #expect(past.status == 0 && past.text == token.text, "\(past.status) \(past.errorText)")
        for mode in ["close", "reject"] {
            let socket = w.desktop.root + "/broken-bus-" + mode
            let server = try Subprocess.spawn(
                ["/usr/bin/python3", Paths.fixtures + "/broken_bus.py", socket, mode],
                environment: w.desktop.environment,
                stdout: .null, stderr: .file(socket + ".err"))
            defer { Subprocess.stop(server, name: "broken_bus.py") }
            #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.status(socket + ".ready") != nil })
            let address = "DBUS_SESSION_BUS_ADDRESS=unix:path=" + socket
            // A runtime directory with no agent socket, so the bus is the only way (the agent's is frontFastPath's).
            let noAgent = w.desktop.root + "/runtime-without-agent"
            try FileSystem.makeDirectories(noAgent, permissions: 0o700)
            let front = try w.desktop.run([
                "env", address, "XDG_RUNTIME_DIR=" + noAgent, Paths.linkctl, "token", "work",
            ])
            let full = try w.desktop.run(
                ["env", address, "XDG_RUNTIME_DIR=" + noAgent, Paths.linkctlFull, "token", "work"])
            #expect(
                front.status == 69 && full.status == 69 && front.text.isEmpty
                    && front.errorText.hasPrefix("linkctl: linkrouterd is not reachable ("),
                "\(mode): front \(front.status) \(front.errorText) / full \(full.status) \(full.errorText)")
            #expect(mode == "close" || front.errorText.contains("did not accept this process"), "\(front.errorText)")
            // linkrouterd is not on the test's PATH: both halves name the one beside linkctl, which a shell can run.
            func byHand(_ said: String) -> String? {
                guard let run = said.range(of: "or run "), let end = said.range(of: " in a terminal") else {
                    return nil
                }
                return String(said[run.upperBound..<end.lowerBound])
            }
            let named = byHand(front.errorText)
            #expect(
                (byHand(full.errorText) == nil || byHand(full.errorText) == named)
                    && named?.hasSuffix("/linkrouterd") == true
                    && named.map(FileSystem.isExecutable) == true, "\(front.errorText) / \(full.errorText)")
        }
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a click when the bus closes on the front at once: queued in the inbox (the front's call never reached a daemon), where the running daemon takes it: delivered once"
    )
    func clickOnABrokenBus() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let socket = h.desktop.root + "/broken-bus"
        let server = try Subprocess.spawn(
            ["/usr/bin/python3", Paths.fixtures + "/broken_bus.py", socket, "close"],
            environment: h.desktop.environment,
            stdout: .null, stderr: .file(socket + ".err"))
        defer { Subprocess.stop(server, name: "broken_bus.py") }
        #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.status(socket + ".ready") != nil })
        let click = try h.desktop.run([
            "env", "DBUS_SESSION_BUS_ADDRESS=unix:path=" + socket, Paths.linkctl, "open", "--",
            "com.example.app:/callback?code=broken&state=\(Harness.state(of: url))",
        ])
        #expect(click.status == 0 && click.text == "queued\n", "\(click.status) \(click.errorText)")
        // The daemon on the real bus watches the inbox: it takes the link from there.
        #expect(try h.app.wait(path)["code"] == "broken")
        #expect(eventually { FileSystem.list(h.desktop.runtimeDir + "/linkrouter/inbox").isEmpty })
        #expect(try h.app.counter("inbox_links") == 1 && h.app.counter("links_routed") == 1)
    }

    @Test(
        "with /proc unreadable the front runs no linkctl-full from the directory it runs in (git runs its helper in the repository's top directory): it says it cannot find where it is installed and exits 69"
    )
    func noProc() throws {
        let desktop = try TestDesktop()
        // A repository that carries a program of that name, run as the front's hand-over would run it.
        let repository = desktop.root + "/repository"
        try FileSystem.makeDirectories(repository, permissions: 0o700)
        let marker = desktop.root + "/ran"
        try FileSystem.writeAtomically(
            repository + "/" + LinkctlLayout.fullName, text: "#!/bin/sh\ntouch \(marker)\n", permissions: 0o755)
        // bubblewrap with an empty /proc: readlink("/proc/self/exe") fails, as where /proc is not mounted.
        let r = try desktop.run([
            "bwrap", "--dev-bind", "/", "/", "--tmpfs", "/proc", "--chdir", repository, Paths.linkctl, "status",
        ])
        #expect(!FileSystem.exists(marker), "the repository's program ran")
        #expect(
            r.status == 69 && r.errorText.contains("could not find where it is installed"),
            "\(r.status) \(r.errorText)")
        // The control: with /proc, the same command reaches the real full linkctl (no bus here: it says so).
        let control = try desktop.run(["bwrap", "--dev-bind", "/", "/", "--chdir", repository, Paths.linkctl, "status"])
        #expect(
            !FileSystem.exists(marker) && control.errorText.contains("cannot reach the session bus"),
            "\(control.errorText)")
    }

    @Test(
        "a click while the daemon stalls past linkctl's 35 s (SIGSTOP): the front and the full linkctl each queue the link under the call's id and open nothing themselves; once the daemon goes on it meets each link twice (the late call, the inbox entry) and the browser gets each once"
    )
    func stalledDaemon() throws {
        let h = try Harness()
        let links = ["https://example.com/through-the-front", "https://example.com/through-the-full-linkctl"]
        let inbox = h.desktop.runtimeDir + "/linkrouter/inbox"
        kill(h.daemon.pid, SIGSTOP)
        var stopped = true
        defer { if stopped { kill(h.daemon.pid, SIGCONT) } }
        // Both clicks at once: each waits out the 35 s.
        var clicks: [(pid: Int32, out: String)] = []
        for (program, link) in zip([Paths.linkctl, Paths.linkctlFull], links) {
            let out = h.desktop.root + "/click-\(clicks.count)"
            clicks.append(
                (
                    try Subprocess.spawn(
                        [program, "open", link], environment: h.desktop.environment, stdout: .file(out),
                        stderr: .file(out + ".err")), out
                ))
        }
        for (click, program) in zip(clicks, [Paths.linkctl, Paths.linkctlFull]) {
            let status = Subprocess.wait(click.pid, timeoutMilliseconds: 90_000)
            let said = (try? FileSystem.readText(click.out)) ?? ""
            let err = (try? FileSystem.readText(click.out + ".err")) ?? ""
            #expect(status == 0 && said == "queued\n", "\(program): \(status) \(said) \(err)")
        }
        #expect(h.desktop.invocations(Harness.browser).isEmpty, "opened while the daemon had the links")
        let entries = FileSystem.list(inbox).filter { $0.hasSuffix(".link") }
        #expect(entries.count == 2)
        for name in entries {
            let text = (try? FileSystem.readText(inbox + "/" + name)) ?? ""
            #expect(text.split(separator: "\n").last?.hasPrefix("sent-as :") == true, "\(text)")
        }
        kill(h.daemon.pid, SIGCONT)
        stopped = false
        // Each link met twice: once routed, once dropped.
        #expect(eventually(timeoutMilliseconds: 20_000) { (try? h.app.counter("duplicate_links")) == 2 })
        #expect(Set(h.desktop.waitForBrowser(Harness.browser, count: 2)) == Set(links))
        #expect(h.desktop.invocations(Harness.browser).count == 2, "\(h.desktop.opened(Harness.browser))")
        #expect(eventually { FileSystem.list(inbox).filter { $0.hasSuffix(".link") }.isEmpty })
        #expect(h.daemonAnswers)
    }
}
