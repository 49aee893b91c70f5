import Freedesktop
import LinkRouterAPI
import SystemKit
import Testing

/// linkctl as a person and as a desktop handler use it: whole help texts,
/// usage errors, exit codes, and `open` refusing anything but one URL.
@Suite("linkctl")
struct LinkctlTests {
    static let commands = [
        "open", "begin", "wait", "login", "token", "fetch", "account", "accounts", "credential", "agent", "logout",
        "grants",
        "sessions",
        "cancel", "status", "explain", "register", "claim", "install", "uninstall", "browser-policy", "doctor",
        "completion",
    ]

    @Test("help texts are exactly the golden ones; --version; exit 0")
    func help() throws {
        let d = try TestDesktop()
        let top = try d.linkctl("--help")
        #expect(top.status == 0)
        #expect(top.text == (try FileSystem.readText(Paths.root + "/Tests/IntegrationTests/Golden/linkctl--help.txt")))
        for c in Self.commands {
            let r = try d.linkctl(c, "--help")
            #expect(r.status == 0)
            #expect(
                r.text
                    == (try FileSystem.readText(Paths.root + "/Tests/IntegrationTests/Golden/linkctl-\(c)--help.txt")),
                "\(c)")
            #expect(try d.linkctl("help", c).text == r.text)
        }
        #expect(try d.linkctl("--version").text == "linkctl \(API.version)\n")
    }

    @Test(
        "usage errors exit 64 with the reason and a hint",
        arguments: [
            (["frobnicate"], "linkctl: unknown command \"frobnicate\"\nTry 'linkctl --help'.\n"),
            (
                ["wait"],
                "linkctl: wait needs SESSION\nUsage: linkctl wait [OPTION…] SESSION\nTry 'linkctl wait --help'.\n"
            ),
            (
                ["wait", "a", "b"],
                "linkctl: wait takes one operand (SESSION), not 2\nUsage: linkctl wait [OPTION…] SESSION\nTry 'linkctl wait --help'.\n"
            ),
            // A flag either works or is refused (issue 37): `token NAME --scope` once printed the account's own token.
            (
                ["token", "work", "--client-id", "c"],
                "linkctl: --client-id goes with linkctl token refresh (a refresh token you hold), not with an account's NAME, whose own token is handed out as it is\nUsage: linkctl token [OPTION…] [NAME [URL]|refresh]\nTry 'linkctl token --help'.\n"
            ),
            (
                [
                    "token", "refresh", "--issuer", "https://id.example.com", "--client-id", "c", "--refresh-token",
                    "r", "--min-valid", "60",
                ],
                "linkctl: --min-valid goes with linkctl token NAME, not with token refresh\nUsage: linkctl token [OPTION…] [NAME [URL]|refresh]\nTry 'linkctl token --help'.\n"
            ),
            // What a newcomer trips on (issue 47): a stray operand is no DPoP URL; a missing flag is named as a flag.
            (
                ["token", "work", "extra"],
                "linkctl: linkctl token takes one account NAME, not \"extra\" too (a second operand is the URL of a DPoP proof, with --dpop METHOD)\nUsage: linkctl token [OPTION…] [NAME [URL]|refresh]\nTry 'linkctl token --help'.\n"
            ),
            (
                ["account", "add", "work", "--client-id", "c"],
                "linkctl: give --issuer URL: the OpenID provider's issuer (its discovery gives the endpoints)\nUsage: linkctl account [OPTION…] add|remove NAME\nTry 'linkctl account --help'.\n"
            ),
            (
                ["begin", "--bogus"],
                "linkctl: unknown option --bogus\nUsage: linkctl begin [OPTION…]\nTry 'linkctl begin --help'.\n"
            ),
            (
                ["begin", "--ttl"],
                "linkctl: --ttl needs a value (SECONDS)\nUsage: linkctl begin [OPTION…]\nTry 'linkctl begin --help'.\n"
            ),
            (
                ["begin", "--ttl", "ten"],
                "linkctl: --ttl takes a number of seconds, not ten\nUsage: linkctl begin [OPTION…]\nTry 'linkctl begin --help'.\n"
            ),
            (
                ["begin", "--json=yes"],
                "linkctl: --json takes no value\nUsage: linkctl begin [OPTION…]\nTry 'linkctl begin --help'.\n"
            ),
            (
                ["wait", "not/a/session"],
                "linkctl: not/a/session is not a session path or id\nUsage: linkctl wait [OPTION…] SESSION\nTry 'linkctl wait --help'.\n"
            ),
            (
                ["register", "myapp"],
                "linkctl: myapp is not a reverse-domain scheme; register a scheme such as com.example.app (https is claimed with linkctl install --claim-https)\nUsage: linkctl register [OPTION…] SCHEME\nTry 'linkctl register --help'.\n"
            ),
        ])
    func usage(_ args: [String], _ stderr: String) throws {
        let d = try TestDesktop()
        let r = try d.linkctl(args)
        #expect(r.status == 64)
        #expect(r.errorText == stderr)
        #expect(r.text.isEmpty)
    }

    @Test(
        "open takes exactly one absolute URL with a scheme it handles, and otherwise never calls the daemon (U5, U10, E2)",
        arguments: [
            ["open", "--", "--help"], ["open", "-x"], ["open", "--", "-x"], ["open"], ["open", "--", ""],
            ["open", "--", "com.example.app:/cb?code=1&state=2", "com.example.app:/cb?code=3&state=4"],
            ["open", "--", "cb?code=1&state=2"], ["open", "--", "/callback?code=1"],
            ["open", "--", "file:///etc/passwd"],
            ["open", "--", "javascript:alert(1)"], ["open", "--", "myapp:/callback?state=1"],
            ["open", "--", "com.example.app:/cb?code=a\nb"],
        ])
    func openRefusals(_ args: [String]) throws {
        // No bus at all: had linkctl tried to reach the daemon, it would have queued the link (exit 0).
        let d = try TestDesktop()
        d.extraEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + d.root + "/no-such-bus"
        let r = try d.linkctl(args)
        #expect(r.status == 64, "\(args): \(r.status) \(r.errorText)")
        #expect(r.errorText.hasPrefix("linkctl: "))
        #expect(FileSystem.list(d.runtimeDir + "/linkrouter/inbox").isEmpty)
    }

    @Test("open routes, says the outcome, and a refusal is one line with the error name and exit 1")
    func open() throws {
        let h = try Harness()
        let (path, url) = try h.app.beginQuiet()
        let refused = try h.desktop.linkctl("open", "--", "com.example.app:/callback?code=c&state=nope")
        #expect(refused.status == 1)
        #expect(
            refused.errorText
                == "linkctl: no session is waiting for this state; the login may have been begun elsewhere, already finished and purged, or the link was forged (UnknownState)\n"
        )
        let ok = try h.desktop.linkctl("open", "--", "com.example.app:/callback?code=c&state=\(Harness.state(of: url))")
        #expect(ok.status == 0 && ok.text == "completed\n")
        #expect(try h.app.wait(path)["code"] == "c")
    }

    @Test("register writes a valid handler whose Exec is this linkctl, unquoted %u, and makes it the default")
    func register() throws {
        let d = try TestDesktop()
        let r = try d.linkctl("register", "com.Example.App", "--json")
        #expect(r.status == 0, "\(r.errorText)")
        let path = d.applications + "/linkrouter-com.example.app.desktop"
        let entry = DesktopEntry(
            id: "linkrouter-com.example.app.desktop", path: path, text: try FileSystem.readText(path))
        #expect(entry.exec == (FileSystem.resolve(Paths.linkctl) ?? Paths.linkctl) + " open -- %u")
        #expect(entry.noDisplay && entry.mimeTypes == ["x-scheme-handler/com.example.app"])
        let validate = try d.run(["desktop-file-validate", path])
        #expect(validate.status == 0 && validate.text.isEmpty, "\(validate.text)\(validate.errorText)")
        let query = try d.run(["xdg-mime", "query", "default", "x-scheme-handler/com.example.app"])
        #expect(query.text == "linkrouter-com.example.app.desktop\n")
        let cache = try FileSystem.readText(d.applications + "/mimeinfo.cache")
        #expect(cache.contains("x-scheme-handler/com.example.app=linkrouter-com.example.app.desktop;"))
        // Registering again changes nothing but the file's contents (idempotent).
        #expect(try d.linkctl("register", "com.example.app").status == 0)
        #expect(
            FileSystem.list(d.applications).filter { $0.hasPrefix("linkrouter-") } == [
                "linkrouter-com.example.app.desktop"
            ])
    }

    @Test("sessions, status and cancel, for people and with --json")
    func sessionsAndStatus() throws {
        let h = try Harness()
        let (path, _) = try h.app.beginQuiet()
        let id = String(path.split(separator: "/").last!)
        // The owner's app is found out after BeginSession answers (GetConnectionCredentials, then /proc).
        #expect(try eventually { try h.app.sessionProperty("OwnerApp", of: path) == "host" })
        let table = try h.desktop.linkctl("sessions")
        #expect(table.status == 0)
        #expect(table.text.hasPrefix("SESSION"))
        let row = table.text.split(separator: "\n").dropFirst().first.map { $0.split(separator: " ").map(String.init) }
        #expect(row == [id, "pending", "com.example.app:/callback", h.app.name, "host"])
        let json = try h.desktop.linkctl("sessions", "--json")
        #expect(
            json.text
                == "[{\"session\":\"\(path)\",\"status\":\"pending\",\"redirect_uri\":\"com.example.app:/callback\",\"owner\":\"\(h.app.name)\",\"owner_app\":\"host\"}]\n"
        )
        let status = try h.desktop.linkctl("status", "--json")
        #expect(status.text == "{\"running\":true,\"version\":\"\(API.version)\",\"pending\":1,\"sessions\":1}\n")
        let one = try h.desktop.linkctl("status", id)
        #expect(one.status == 0)
        // `key  value` lines with the values in one column (Output.fields), read back by that column.
        let lines = one.text.split(separator: "\n").map(String.init)
        let keys = lines.map { String($0.prefix { $0 != " " }) }
        let column = (keys.map(\.count).max() ?? 0) + 2
        var fields: [String: String] = [:]
        for (line, key) in zip(lines, keys) {
            let padding = line.dropFirst(key.count).prefix(column - key.count)
            #expect(padding.count == column - key.count && padding.allSatisfy { $0 == " " }, "\(line)")
            #expect(line.dropFirst(column).first != " ", "\(line)")
            fields[key] = String(line.dropFirst(column))
        }
        #expect(fields["Session"] == path)
        #expect(fields["Status"] == "pending")
        #expect(fields["RedirectUri"] == "com.example.app:/callback")
        #expect(fields["OwnerApp"] == "host")
        let cancel = try h.desktop.linkctl("cancel", id)
        #expect(cancel.status == 1 && cancel.errorText.contains("(AccessDenied)"))
        _ = try h.app.call("Cancel", path: path, interface: API.sessionInterface.rawValue)
        #expect(try h.desktop.linkctl("status", id, "--json").text.contains("\"Status\":\"cancelled\""))
    }

    @Test("with no daemon: status exits 69 and says why")
    func noDaemon() throws {
        let d = try TestDesktop()
        let bus = try PrivateBus(desktop: d)
        let r = try d.linkctl("status", "--json")
        #expect(r.status == 69)
        #expect(r.text.hasPrefix("{\"running\":false,\"reason\":\"linkrouterd is not reachable ("))
        // What to start, not a bare D-Bus error (issue 37).
        #expect(r.text.contains("systemctl --user start linkrouterd"))
        // linkrouterd is not on the test's PATH: the one beside linkctl is named, which a shell can run (issue 47).
        let token = try d.linkctl("token", "work")
        #expect(token.status == 69 && token.errorText.contains("or run /"), "\(token.errorText)")
        if let run = token.errorText.range(of: "or run "), let end = token.errorText.range(of: " in a terminal") {
            let named = String(token.errorText[run.upperBound..<end.lowerBound])
            #expect(named.hasSuffix("/linkrouterd") && FileSystem.isExecutable(named), "\(named)")
        }
        _ = bus
    }

    @Test(
        "linkctl completion: bash completes verbs, each verb's options and its operand words; zsh and fish read their scripts, and fish completes from the same table"
    )
    func completion() throws {
        let d = try TestDesktop()
        let script = d.root + "/linkctl.bash"
        try FileSystem.writeAtomically(script, text: try d.linkctl("completion", "bash").text, permissions: 0o644)
        func bash(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
            let r = try d.run([
                "bash", "-c",
                "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _linkctl; printf '%s\\n' \"${COMPREPLY[@]}\"",
            ])
            #expect(r.status == 0, "\(r.errorText)")
            return r.text.split(separator: "\n").map(String.init)
        }
        #expect(try bash(["linkctl", "tok"]) == ["token"])
        #expect(try bash(["linkctl", "token", "--int"]) == ["--interactive"])
        #expect(Set(try bash(["linkctl", "account", ""])).isSuperset(of: ["add", "remove", "--issuer", "--git-url"]))
        #expect(Set(try bash(["linkctl", "credential", ""])).isSuperset(of: ["git", "kube", "get", "--account"]))
        // Every verb of the table, and nothing else.
        #expect(Set(try bash(["linkctl", ""])) == Set(Self.commands + ["--help", "--version"]))
        for shell in ["zsh", "fish"] {
            let file = d.root + "/linkctl." + shell
            try FileSystem.writeAtomically(file, text: try d.linkctl("completion", shell).text, permissions: 0o644)
            let check = try d.run([shell, "-n", file])
            #expect(check.status == 0, "\(shell): \(check.errorText)")
        }
        let fish = try d.run([
            "fish", "--no-config", "-c", "source '\(d.root)/linkctl.fish'; complete -C 'linkctl token --int'",
        ])
        #expect(fish.text.hasPrefix("--interactive\t"), "\(fish.text)")
        let zsh = try d.run([
            "zsh", "-f", "-c",
            "autoload -Uz compinit; compinit -u -d '\(d.root)/zcompdump'; source '\(d.root)/linkctl.zsh' 2>/dev/null; whence -w _linkctl",
        ])
        #expect(zsh.text.contains("_linkctl: function"), "\(zsh.text) \(zsh.errorText)")
        let bad = try d.linkctl("completion", "tcsh")
        #expect(bad.status == 64 && bad.errorText.contains("bash, zsh or fish"))
    }
}
