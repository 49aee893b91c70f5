import DBusKit
import Foundation
import Glibc
import SecretServiceTesting
import SystemKit
import Testing

/// Accounts (issue 22): declared once, signed in once against a real
/// provider (Glewlwyd), tokens kept in a real gnome-keyring on the test's
/// bus, handed out fresh by `linkctl token NAME`, refreshed when they run
/// out, read back after a restart; locked, absent and unknown are errors of
/// their own, with their own exit status, and the daemon stays up.
@Suite("Accounts: a login kept in the Secret Service")
struct AccountTests {
    static let redirect = "com.example.app:/callback"

    /// Everything one test needs: the desktop, its bus, a keyring, a provider and the daemon.
    final class World {
        let desktop: TestDesktop
        let bus: PrivateBus
        let keyring: GnomeKeyring
        let provider: Glewlwyd
        /// With `counted`: a proxy in front of the provider that logs every request it passes.
        let proxy: TamperProxy?
        var daemon: DaemonProcess
        let systemAccounts: String
        /// With `installed`: the daemon runs from a copy an upgrade can replace, and the bus activates it
        /// (`UpgradeTests`).
        let installed: InstalledDaemon?

        init(
            accessTokenSeconds: Int = 3600, counted: Bool = false, revocation: Bool = false, installed: Bool = false,
            par: String = "off", signing: String = "rsa",
            deviceSeconds: Int = 0, dpop: String = "off", oneUseRefresh: Bool = false
        ) throws {
            desktop = try TestDesktop()
            bus = try PrivateBus(desktop: desktop, activation: installed)
            self.installed = installed ? try InstalledDaemon(desktop: desktop, bus: bus) : nil
            keyring = try GnomeKeyring(desktop: desktop)
            if counted {
                let counting = try TamperProxy(desktop: desktop)
                provider = try Glewlwyd(
                    desktop: desktop, redirectURIs: [AccountTests.redirect], publicOrigin: counting.origin,
                    accessTokenSeconds: accessTokenSeconds, revocation: revocation,
                    par: par, signing: signing, deviceSeconds: deviceSeconds, dpop: dpop, oneUseRefresh: oneUseRefresh)
                try counting.connect(upstream: try #require(provider.directOrigin))
                proxy = counting
            } else {
                provider = try Glewlwyd(
                    desktop: desktop, redirectURIs: [AccountTests.redirect], accessTokenSeconds: accessTokenSeconds,
                    par: par, signing: signing,
                    deviceSeconds: deviceSeconds, dpop: dpop, oneUseRefresh: oneUseRefresh)
                proxy = nil
            }
            systemAccounts = desktop.root + "/etc-accounts"
            try FileSystem.makeDirectories(systemAccounts, permissions: 0o755)
            daemon = try DaemonProcess(
                desktop: desktop, arguments: ["--system-accounts-dir", systemAccounts],
                executable: self.installed?.executable ?? Paths.linkrouterd)
        }

        func restart() throws {
            _ = daemon.stop()
            daemon = try DaemonProcess(desktop: desktop, arguments: ["--system-accounts-dir", systemAccounts])
        }

        func add(_ name: String, _ extra: [String] = []) throws -> Subprocess.Outcome {
            try desktop.linkctl(
                [
                    "account", "add", name, "--issuer", provider.issuer, "--client-id", provider.clientID,
                    "--redirect-uri", AccountTests.redirect,
                ] + extra)
        }

        /// `linkctl login NAME --no-browser`, signed in at the provider as a person would, the callback clicked.
        func login(
            _ name: String, command: [String]? = nil, environment: [String]? = nil,
            inside wrap: ([String]) -> [String] = { $0 }
        ) throws -> (status: Int32, errorText: String, output: String) {
            try desktop.signIn(name, at: provider, command: command, environment: environment, inside: wrap)
        }

        func accounts() throws -> [[String: Any]] {
            let r = try desktop.linkctl("accounts", "--json")
            return (try? JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [[String: Any]]) ?? []
        }
    }

    @Test(
        "two accounts at one issuer: --issuer refuses naming both, then answers with the default; --default moves; git's and kubectl's helpers take --issuer; an unknown issuer and a name with an issuer are refused"
    )
    func byIssuer() throws {
        let w = try World()
        let issuer = w.provider.issuer
        #expect(try w.add("work").status == 0 && w.add("admin").status == 0)
        #expect(try w.login("work").status == 0 && w.login("admin").status == 0)
        func token(_ args: String...) throws -> String {
            let r = try w.desktop.linkctl(["token"] + args)
            #expect(r.status == 0, "\(args) \(r.errorText)")
            return r.text.trimmingCharacters(in: .newlines)
        }
        let (work, admin) = (try token("work"), try token("admin"))
        #expect(work != admin && !work.isEmpty)
        let both = try w.desktop.linkctl("token", "--issuer", issuer)
        #expect(
            both.status != 0 && both.errorText.contains("AmbiguousAccount") && both.errorText.contains("admin, work"),
            "\(both.errorText)")
        #expect(try w.add("admin", ["--default", "--replace"]).status == 0)
        #expect(try token("--issuer", issuer) == admin)
        #expect(try token("--issuer", issuer + "/") == admin, "a trailing / is no difference")
        // Made the default, work takes it from admin (whose file no longer says so).
        let moved = try w.add("work", ["--default", "--replace"])
        #expect(moved.status == 0 && moved.errorText.contains("admin is no longer the default"), "\(moved.errorText)")
        // Replaced with the same issuer and client: signed in as before, and said so (not "sign in with").
        #expect(
            moved.errorText.contains("Replaced account work") && moved.errorText.contains("a sign-in it has stays")
                && !moved.errorText.contains("sign in with"), "\(moved.errorText)")
        let adminFile = try FileSystem.readText(w.desktop.configHome + "/linkrouter/accounts/admin.conf")
        #expect(!adminFile.contains("default"), "\(adminFile)")
        #expect(try token("--issuer", issuer) == work)
        #expect(try w.accounts().first { $0["name"] as? String == "work" }?["default"] as? Bool == true)
        // The helpers, by issuer.
        let git = try w.desktop.run(
            [
                "/bin/sh", "-c",
                "printf 'protocol=https\\nhost=git.example.com\\n\\n' | \"$0\" credential git get --issuer \"$1\"",
                Paths.linkctl, issuer,
            ])
        #expect(git.status == 0 && git.text.contains("password=\(work)\n"), "\(git.errorText)")
        // Plain http to a host that is not loopback: nothing answered (no password, no quit), git asks its next helper.
        let clear = try w.desktop.run([
            "/bin/sh", "-c",
            "printf 'protocol=http\\nhost=git.example.com\\n\\n' | \"$0\" credential git get --account work",
            Paths.linkctl,
        ])
        #expect(clear.status == 0 && clear.text.isEmpty, "\(clear.text)")
        let kube = try w.desktop.linkctl("credential", "kube", "--issuer", issuer)
        #expect(kube.status == 0 && kube.text.contains("\"token\":\"\(work)\""), "\(kube.text) \(kube.errorText)")
        // Refused, each with why, nothing handed out.
        let unknown = try w.desktop.linkctl("token", "--issuer", "https://elsewhere.example.com")
        #expect(
            unknown.status != 0 && unknown.text.isEmpty && unknown.errorText.contains("no account of yours at"),
            "\(unknown.errorText)")
        let twice = try w.desktop.linkctl("token", "work", "--issuer", issuer)
        #expect(twice.status == 64 && twice.text.isEmpty)
        // Say what happened (issue 37): a login that runs out of --timeout is over, not waitable again; the URL to open
        // by hand is printed even when a browser was asked to open it.
        try w.desktop.addBrowser("org.example.Browser.desktop")
        let late = try w.desktop.linkctl("login", "work", "--timeout", "300")
        #expect(
            late.status == 3 && late.errorText.contains("the login ends with this linkctl")
                && !late.errorText.contains("waited for again")
                && late.errorText.contains("if it did not appear, open:")
                && late.errorText.contains(w.provider.authorizationEndpoint), "\(late.status) \(late.errorText)")
        #expect(w.daemon.isRunning)
    }

    @Test(
        "an account that declares git_urls answers git only for those, even named with --account: another host gets nothing (no quit), its own host the token"
    )
    func gitURLsOnly() throws {
        let w = try World()
        #expect(try w.add("work", ["--git-url", "https://git.example.com/team/"]).status == 0)
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        func fill(_ host: String, _ path: String) throws -> Subprocess.Outcome {
            try w.desktop.run([
                "/bin/sh", "-c",
                "printf 'protocol=https\\nhost=%s\\npath=%s\\n\\n' \"$1\" \"$2\" | \"$0\" credential git get --account work",
                Paths.linkctl, host, path,
            ])
        }
        let own = try fill("git.example.com", "team/repo.git")
        #expect(own.status == 0 && own.text.contains("password=\(token)\n"), "\(own.errorText)")
        for (host, path) in [("git.other.example.com", "team/repo.git"), ("git.example.com", "elsewhere/repo.git")] {
            let other = try fill(host, path)
            #expect(other.status == 0 && other.text.isEmpty, "\(host)/\(path): \(other.text)")
        }
    }

    @Test(
        "output a script can use: --header prints the header line, --env export lines a shell evals to the same token, --json the fields; two of them at once is a usage error"
    )
    func scriptOutput() throws {
        let w = try World()
        let added = try w.add("work")
        #expect(
            added.status == 0 && added.errorText.contains("discovery document was not fetched"), "\(added.errorText)")
        #expect(try w.login("work").status == 0)
        let token = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        #expect(!token.isEmpty)
        #expect(try w.desktop.linkctl("token", "work", "--header").text == "Authorization: Bearer \(token)\n")
        let evaluated = try w.desktop.run([
            "/bin/sh", "-c",
            "eval \"$(\"$0\" token work --env)\" && printf '%s|%s|%s|%s' \"$LINKROUTER_TOKEN\" \"$LINKROUTER_TOKEN_TYPE\" \"$LINKROUTER_EXPIRES_AT\" \"$LINKROUTER_SCOPE\"",
            Paths.linkctl,
        ])
        let parts = evaluated.text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 4 && parts[0] == token && parts[1].lowercased() == "bearer", "\(evaluated.text)")
        #expect(
            Int64(parts.count == 4 ? parts[2] : "") ?? 0 > Clock.unixSeconds() && parts.last?.contains("openid") == true
        )
        let both = try w.desktop.linkctl("token", "work", "--json", "--env")
        #expect(both.status == 64 && both.errorText.contains("give one of --json, --header and --env"))
    }

    @Test(
        "account add, login, token: kept in the keyring, handed out from memory, refreshed when it runs out, read back after a restart"
    )
    func keptAndRefreshed() throws {
        let w = try World(accessTokenSeconds: 4)
        let added = try w.add("work", ["--min-valid", "0"])
        #expect(added.status == 0, "\(added.errorText)")
        let file = w.desktop.configHome + "/linkrouter/accounts/work.conf"
        #expect(FileSystem.status(file)?.permissions == 0o600)
        #expect(try w.accounts().first?["signed_in"] as? Bool == false)
        // Not signed in yet: its own exit status, and the line that signs in.
        let before = try w.desktop.linkctl("token", "work")
        #expect(
            before.status == 4 && before.errorText.contains("linkctl login work"),
            "\(before.status) \(before.errorText)")

        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })

        let first = try w.desktop.linkctl("token", "work")
        #expect(first.status == 0, "\(first.errorText)")
        let token1 = first.text.trimmingCharacters(in: .newlines)
        #expect(!token1.isEmpty && !token1.contains(" "))
        let json = try w.desktop.linkctl("token", "work", "--json")
        let fields = (try? JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any]) ?? [:]
        #expect(
            fields["kind"] as? String == "access" && fields["token_type"] as? String != nil
                && fields["expires_at"] as? Int != nil)
        #expect(fields["refresh_token"] == nil, "the refresh token never leaves the daemon")
        #expect(try w.accounts().first?["signed_in"] as? Bool == true)
        #expect(try w.accounts().first?["keyring"] as? String == "default collection, unlocked")
        // As a script reads it: a JSON boolean, the expiry a number; the table shows the expiry as a time.
        let listed = try w.desktop.linkctl("accounts", "--json").text
        #expect(listed.contains("\"signed_in\":true") && !listed.contains("\"yes\""), "\(listed)")
        let table = try w.desktop.linkctl("accounts").text
        let expiry = try #require(fields["expires_at"] as? Int)
        #expect(table.contains(" UTC") && !table.contains(String(expiry)), "\(table)")

        // The access token lives 4 s: a later call gets a new one, refreshed once and written back.
        var token2 = token1
        #expect(
            eventually(timeoutMilliseconds: 20_000) {
                token2 = ((try? w.desktop.linkctl("token", "work"))?.text ?? "").trimmingCharacters(in: .newlines)
                return !token2.isEmpty && token2 != token1
            })

        // A new daemon has nothing in memory: the keyring gives the account back.
        try w.restart()
        #expect(try w.accounts().first?["signed_in"] as? Bool == true, "read from the keyring for the list")
        let after = try w.desktop.linkctl("token", "work")
        #expect(after.status == 0 && !after.text.isEmpty, "\(after.errorText)")
        #expect(try w.accounts().first?["signed_in"] as? Bool == true)

        // Signed out: gone from the keyring too, the declaration kept.
        let out = try w.desktop.linkctl("logout", "work")
        #expect(out.status == 0, "\(out.errorText)")
        // Glewlwyd here lists no revocation endpoint: said, not passed over.
        #expect(
            out.errorText.contains("offers no revocation, so the refresh token stays valid there until it expires"),
            "\(out.errorText)")
        #expect(try w.keyring.items(account: "work") == (unlocked: 0, locked: 0))
        #expect(try w.desktop.linkctl("token", "work").status == 4)
        #expect(try w.accounts().first?["signed_in"] as? Bool == false)
    }

    @Test(
        "a locked keyring is KeyringLocked (exit 5), an unknown account UnknownAccount, bad declarations refused; nothing is lost and the daemon stays up"
    )
    func faults() throws {
        let w = try World()
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        #expect(eventually(timeoutMilliseconds: 10_000) { (try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0) })

        try w.keyring.lockDefault()
        try w.restart()
        let locked = try w.desktop.linkctl("token", "work")
        #expect(locked.status == 5 && locked.errorText.contains("locked"), "\(locked.status) \(locked.errorText)")
        // Locked is not "signed out": the item is still there, and nothing was rewritten.
        #expect(try w.keyring.items(account: "work") == (unlocked: 0, locked: 1))
        let shown = try w.accounts().first
        #expect(
            shown?["keyring"] as? String == "default collection, locked" && shown?["signed_in"] is NSNull,
            "\(String(describing: shown))")

        let unknown = try w.desktop.linkctl("token", "nobody")
        #expect(unknown.status == 1 && unknown.errorText.contains("no account nobody"), "\(unknown.errorText)")
        let badName = try w.desktop.linkctl(
            "account", "add", "no/slash", "--issuer", "https://a.example", "--client-id", "c")
        #expect(badName.status == 64 && badName.errorText.contains("account name"))
        let badIssuer = try w.desktop.linkctl("account", "add", "x", "--issuer", "ftp://a.example", "--client-id", "c")
        #expect(badIssuer.status == 1 && badIssuer.errorText.contains("issuer must be an https URL"))
        let badUnsaved = try w.desktop.linkctl(
            "account", "add", "x", "--issuer", "https://a.example", "--client-id", "c", "--unsaved", "bogus")
        #expect(
            badUnsaved.status == 1 && badUnsaved.errorText.contains("unsaved must be runtime or drop, not bogus"),
            "\(badUnsaved.errorText)")
        #expect(!FileSystem.exists(w.desktop.configHome + "/linkrouter/accounts/x.conf"))
        let again = try w.add("work")
        #expect(again.status == 1 && again.errorText.contains("--replace"))
        // A file edited by hand into nonsense is skipped with a warning; the others still list.
        try FileSystem.writeAtomically(
            w.desktop.configHome + "/linkrouter/accounts/broken.conf", text: "[Account]\nissuer=nope\n",
            permissions: 0o600)
        #expect(try w.accounts().map { $0["name"] as? String } == ["work"])
        // Over D-Bus: a malformed name, an unknown option, an option of the wrong type: each its own clear error.
        func call(_ method: String, _ args: [String]) throws -> Subprocess.Outcome {
            try w.desktop.run(
                [
                    "gdbus", "call", "--session", "--dest", "org.linkrouter.LinkRouter1", "--object-path",
                    "/org/linkrouter/LinkRouter1", "--method",
                    "org.linkrouter.LinkRouter1." + method,
                ] + args)
        }
        for (method, args, words) in [
            ("GetToken", ["../work", "{}"], "account name"), ("GetToken", ["", "{}"], "account name"),
            ("GetToken", [String(repeating: "a", count: 65), "{}"], "account name"),
            ("GetToken", ["work", "{'password': <'x'>}"], "password"),
            ("GetToken", ["work", "{'min_valid': <'soon'>}"], "min_valid"), ("Logout", ["a b"], "account name"),
            ("AddAccount", ["x", "{'issuer': <'https://a.example'>, 'client_id': <'c'>, 'secret': <'s'>}"], "secret"),
            (
                "AddAccount",
                ["x", "{'issuer': <'https://a.example'>, 'client_id': <'c'>, 'registration_token': <'t'>}"],
                "leave out client_id"
            ),
            (
                "AddAccount", ["x", "{'issuer': <'https://a.example'>, 'client_id': <'c'>, 'unsaved': <'bogus'>}"],
                "unsaved must be runtime or drop, not bogus"
            ),
            ("RemoveAccount", ["nobody"], "no account nobody"),
        ] {
            let r = try call(method, args)
            #expect(r.status != 0 && r.errorText.contains(words), "\(method) \(args): \(r.errorText)")
        }
        // git's credential protocol: NUL, an oversized line, a line that is not key=value; refused with the rule,
        // nothing changed.
        for (input, words) in [
            ("protocol=https\\0\\nhost=x\\n", "NUL or CR"),
            ("host=" + String(repeating: "h", count: 70_000) + "\\n", "git's limit"), ("protocol\\n", "key=value"),
        ] {
            let r = try w.desktop.run([
                "sh", "-c", "printf '\(input)' | '\(Paths.linkctl)' credential git --account work get",
            ])
            #expect(r.status == 1 && r.errorText.contains(words) && r.text.isEmpty, "\(words): \(r.errorText)")
        }
        #expect(try w.keyring.items(account: "work") == (unlocked: 0, locked: 1))
        let probe = try DBusConnection(address: w.bus.address)
        #expect(w.daemon.isRunning && DaemonProcess.nameHasOwner(probe))
        // Removed while the keyring is locked: the declaration goes, the tokens cannot be forgotten, and it says so.
        let removed = try w.desktop.linkctl("account", "remove", "work")
        #expect(
            removed.status == 0 && removed.errorText.contains("warning") && removed.errorText.contains("locked"),
            "\(removed.errorText)")
        #expect(try w.accounts().isEmpty)
        #expect(try w.keyring.items(account: "work") == (unlocked: 0, locked: 1))
    }

    @Test(
        "git (Debian's 2.39) clones through linkctl credential git; after the token expired, the next clone refreshes it, no browser; store and erase change nothing kept"
    )
    func git() throws {
        let w = try World(accessTokenSeconds: 4)
        #expect(try w.add("work", ["--min-valid", "0"]).status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        // A repository with one commit, served by git http-backend behind the provider's token check.
        let root = w.desktop.root + "/git"
        let git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
        for step in [
            git + ["init", "-q", root + "/src"], ["sh", "-c", "echo hello > \(root)/src/README"],
            git + ["-C", root + "/src", "add", "README"],
            git + ["-C", root + "/src", "commit", "-q", "-m", "one"],
            git + ["clone", "-q", "--bare", root + "/src", root + "/served/repo.git"],
        ] {
            let r = try w.desktop.run(step)
            #expect(r.status == 0, "\(step): \(r.errorText)")
        }
        let portFile = w.desktop.root + "/git.port"
        let server = try Subprocess.spawn(
            [
                "/usr/bin/python3", Paths.fixtures + "/git_server.py", "--provider", w.provider.infoPath, "--root",
                root + "/served", "--port-file", portFile,
            ],
            environment: w.desktop.environment, stdout: .null, stderr: .file(w.desktop.root + "/git-server.err"))
        defer {
            Subprocess.stop(server, name: "git_server.py")
        }
        #expect(eventually(timeoutMilliseconds: 10_000) { FileSystem.status(portFile) != nil })
        let url = "http://127.0.0.1:" + ((try? FileSystem.readText(portFile)) ?? "") + "/repo.git"
        let helper = "!'" + Paths.linkctl + "' credential git --account work"
        func clone(_ dest: String) throws -> Subprocess.Outcome {
            try w.desktop.run([
                "env", "GIT_TERMINAL_PROMPT=0", "git", "-c", "credential.helper=", "-c", "credential.helper=" + helper,
                "clone", "-q", url, root + "/" + dest,
            ])
        }
        // Without the helper the forge refuses: the check is real.
        let bare = try w.desktop.run(["env", "GIT_TERMINAL_PROMPT=0", "git", "clone", "-q", url, root + "/none"])
        #expect(bare.status != 0)
        let first = try clone("one")
        #expect(first.status == 0, "\(first.errorText)")
        #expect((try? FileSystem.readText(root + "/one/README")) == "hello\n")
        // The token lives 4 s; once it has expired the next clone gets a new one from the daemon.
        let used = (try w.desktop.linkctl("token", "work", "--json")).text
        let expires = Int64((used.split(separator: "\"expires_at\":").last ?? "").prefix { $0.isNumber }) ?? 0
        #expect(eventually(timeoutMilliseconds: 15_000) { Clock.unixSeconds() > expires })
        let second = try clone("two")
        #expect(second.status == 0, "\(second.errorText)")
        // git runs the helper itself, no shell: `credential.helper = linkrouter` finds git-credential-linkrouter (a
        // symlink to linkctl) on PATH.
        #expect(symlink(Paths.linkctl, w.desktop.root + "/bin/git-credential-linkrouter") == 0)
        let direct = try w.desktop.run([
            "env", "GIT_TERMINAL_PROMPT=0", "git", "-c", "credential.helper=", "-c",
            "credential.helper=linkrouter --account work", "clone", "-q", url, root + "/direct",
        ])
        #expect(direct.status == 0, "\(direct.errorText)")
        #expect((try? FileSystem.readText(root + "/direct/README")) == "hello\n")
        let log = ((try? FileSystem.readText(root + "/git-requests.log")) ?? "").split(separator: "\n")
        let tokens = Set(log.filter { $0.hasPrefix("200 ") })
        #expect(tokens.count >= 2, "\(log)")
        // git's store after a success writes nothing; its erase after a 401 drops that token
        // only: the next one is refreshed, the sign-in (the keyring item) stays.
        let keyringFile = w.desktop.dataHome + "/keyrings/login.keyring"
        let current = (try w.desktop.linkctl("token", "work")).text.trimmingCharacters(in: .newlines)
        let written = FileSystem.status(keyringFile)?.modifiedNanoseconds
        func credential(_ op: String, _ input: String, account: String? = "work") throws -> Subprocess.Outcome {
            try FileSystem.writeAtomically(w.desktop.root + "/git-input", text: input, permissions: 0o600)
            let flag = account.map { "--account " + $0 } ?? ""
            return try w.desktop.run([
                "sh", "-c", "'\(Paths.linkctl)' credential git \(flag) \(op) < '\(w.desktop.root)/git-input'",
            ])
        }
        #expect(
            try credential("store", "protocol=http\nhost=127.0.0.1\nusername=oauth2\npassword=\(current)\n").status == 0
        )
        #expect(FileSystem.status(keyringFile)?.modifiedNanoseconds == written)
        #expect(
            try credential("erase", "protocol=http\nhost=127.0.0.1\nusername=oauth2\npassword=\(current)\n").status == 0
        )
        let next = (try w.desktop.linkctl("token", "work")).text.trimmingCharacters(in: .newlines)
        #expect(!next.isEmpty && next != current)
        #expect(try w.keyring.items(account: "work") == (unlocked: 1, locked: 0))
        // Without --account: the account whose git_urls match the request's URL answers; no match, and git asks its
        // next helper.
        let origin = String(url.dropLast("/repo.git".count))
        #expect(try w.add("work", ["--replace", "--min-valid", "0", "--git-url", origin + "/"]).status == 0)
        let byURL = try w.desktop.run([
            "env", "GIT_TERMINAL_PROMPT=0", "git", "-c", "credential.helper=", "-c",
            "credential.helper=!'" + Paths.linkctl + "' credential git", "clone", "-q", url, root + "/three",
        ])
        #expect(byURL.status == 0, "\(byURL.errorText)")
        let elsewhere = try credential("get", "protocol=https\nhost=elsewhere.example\n", account: nil)
        #expect(elsewhere.status == 0 && elsewhere.text.isEmpty, "\(elsewhere.text)")
        // A bad request to the helper is refused with the rule, not guessed at.
        let bad = try w.desktop.run([
            "sh", "-c", "printf 'protocol=https\\r\\nhost=x\\n' | '\(Paths.linkctl)' credential git --account work get",
        ])
        #expect(bad.status == 1 && bad.errorText.contains("NUL or CR"), "\(bad.errorText)")
    }

    @Test(
        "kubectl (Debian's 1.20) authenticates through linkctl credential kube: the ExecCredential of its apiVersion; not signed in fails at once with the login line"
    )
    func kubectl() throws {
        let kubectl = Paths.root + "/.build/test-tools/kubernetes-client/usr/bin/kubectl"
        try #require(FileSystem.status(kubectl) != nil, "scripts/setup --test unpacks Debian's kubectl there")
        let w = try World()
        #expect(try w.add("work").status == 0)
        let dir = w.desktop.root + "/kube"
        let portFile = w.desktop.root + "/kube.port"
        let server = try Subprocess.spawn(
            [
                "/usr/bin/python3", Paths.fixtures + "/kube_server.py", "--provider", w.provider.infoPath, "--dir", dir,
                "--port-file", portFile,
            ],
            environment: w.desktop.environment, stdout: .null, stderr: .file(w.desktop.root + "/kube-server.err"))
        defer {
            Subprocess.stop(server, name: "kube_server.py")
        }
        #expect(eventually(timeoutMilliseconds: 15_000) { FileSystem.status(portFile) != nil })
        let port = (try? FileSystem.readText(portFile)) ?? ""
        let config = w.desktop.root + "/kubeconfig"
        try FileSystem.writeAtomically(
            config,
            text: """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster:
                    server: https://127.0.0.1:\(port)
                    insecure-skip-tls-verify: true
                users:
                - name: work
                  user:
                    exec:
                      apiVersion: client.authentication.k8s.io/v1beta1
                      command: \(Paths.linkctl)
                      args: ["credential", "kube", "--account", "work"]
                contexts:
                - name: test
                  context: {cluster: test, user: work}
                current-context: test

                """, permissions: 0o600)
        func get() throws -> Subprocess.Outcome {
            try w.desktop.run([kubectl, "--kubeconfig", config, "get", "--raw", "/api"])
        }
        // Not signed in: the plugin fails at once, and says how to sign in.
        let before = try get()
        #expect(before.status != 0 && before.errorText.contains("linkctl login work"), "\(before.errorText)")
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let after = try get()
        #expect(after.status == 0 && after.text.contains("APIVersions"), "\(after.errorText)")
        let log = ((try? FileSystem.readText(dir + "/requests.log")) ?? "").split(separator: "\n")
        #expect(log.contains { $0.hasPrefix("200 ") }, "\(log)")
        // The plugin's answer, as kubectl reads it: the version it was asked in, the token, its expiry in RFC 3339.
        let direct = try w.desktop.run([
            "env",
            "KUBERNETES_EXEC_INFO={\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"spec\":{\"interactive\":false}}",
            Paths.linkctl, "credential", "kube", "--account", "work",
        ])
        let reply = (try? JSONSerialization.jsonObject(with: Data(direct.text.utf8)) as? [String: Any]) ?? [:]
        let status = reply["status"] as? [String: Any] ?? [:]
        #expect(
            reply["apiVersion"] as? String == "client.authentication.k8s.io/v1"
                && reply["kind"] as? String == "ExecCredential")
        #expect((status["token"] as? String)?.isEmpty == false)
        #expect((status["expirationTimestamp"] as? String)?.hasSuffix("Z") == true)
        let garbage = try w.desktop.run([
            "env", "KUBERNETES_EXEC_INFO=not json", Paths.linkctl, "credential", "kube", "--account", "work",
        ])
        #expect(garbage.status == 1 && garbage.errorText.contains("KUBERNETES_EXEC_INFO"))
    }

    @Test(
        "100 concurrent linkctl token while the token must be refreshed: one request at the token endpoint, every caller the same new token"
    )
    func oneRefreshForAll() throws {
        let w = try World(accessTokenSeconds: 600, counted: true)
        #expect(try w.add("work").status == 0)
        let login = try w.login("work")
        #expect(login.status == 0, "\(login.errorText)")
        let proxy = try #require(w.proxy)
        func tokenPosts() -> Int {
            proxy.requests().filter {
                $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/token") == true
            }.count
        }
        let exchanged = tokenPosts()
        #expect(exchanged == 1)
        let old = (try w.desktop.linkctl("token", "work")).text.trimmingCharacters(in: .newlines)
        #expect(tokenPosts() == exchanged, "served from memory")
        // A server refused it: the next caller must get a refreshed one.
        try FileSystem.writeAtomically(w.desktop.root + "/refused", text: "password=\(old)\n", permissions: 0o600)
        #expect(
            try w.desktop.run([
                "sh", "-c", "'\(Paths.linkctl)' credential git --account work erase < '\(w.desktop.root)/refused'",
            ]).status == 0)
        var pids: [Int32] = []
        for i in 0..<100 {
            pids.append(
                try Subprocess.spawn(
                    [Paths.linkctl, "token", "work"], environment: w.desktop.environment,
                    stdout: .file(w.desktop.root + "/t\(i).out"),
                    stderr: .file(w.desktop.root + "/t\(i).err")))
        }
        let statuses = pids.map { Subprocess.wait($0, timeoutMilliseconds: 120_000) }
        #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses.filter { $0 != 0 }.count) failed")
        let tokens = Set(
            (0..<100).map {
                ((try? FileSystem.readText(w.desktop.root + "/t\($0).out")) ?? "").trimmingCharacters(in: .newlines)
            })
        #expect(tokens.count == 1 && !tokens.contains(old) && !tokens.contains(""), "\(tokens.count) distinct")
        #expect(tokenPosts() == exchanged + 1, "\(tokenPosts() - exchanged) refreshes")
    }

    @Test(
        "a Flatpak-made app (bubblewrap, /.flatpak-info, its bus through xdg-dbus-proxy) sees no host account and gets no host token (no one to ask: AccessDenied); it declares its own (AddAccount), signs in to it with its own CLI, gets its own token; another app sees none of it; RemoveAccount forgets it; the host's is untouched; SignProof for the host's account is refused as GetToken is",
        .enabled(if: FlatpakSandbox.unavailable == nil, "\(FlatpakSandbox.unavailable ?? "")"))
    func sandboxed() throws {
        let w = try World()
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let hostToken = try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines)
        let sandbox = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Curious")
        let bus = try sandbox.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        func inside(_ argv: [String]) -> [String] {
            sandbox.command(["/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + bus] + argv)
        }
        func call(_ method: String, _ args: [String], in box: FlatpakSandbox? = nil, bus busAddress: String? = nil)
            throws -> Subprocess.Outcome
        {
            try w.desktop.run(
                (box ?? sandbox).command(
                    [
                        "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=" + (busAddress ?? bus), "/usr/bin/gdbus", "call",
                        "--session", "--dest", "org.linkrouter.LinkRouter1",
                        "--object-path", "/org/linkrouter/LinkRouter1", "--method",
                        "org.linkrouter.LinkRouter1." + method,
                    ] + args))
        }
        // The person's account: with no notification server to ask them, refused (ConsentTests has the prompt).
        let unasked = "AccessDenied"
        let token = try call("GetToken", ["work", "{}"])
        #expect(
            token.status != 0 && token.errorText.contains(unasked) && token.errorText.contains("no one could be asked")
                && !token.text.contains(hostToken), "\(token.text) \(token.errorText)")
        // No proof of the host account's DPoP key either: a proof is the owner's, as its token is.
        let proof = try call("SignProof", ["work", "GET", "https://api.example/", "{}"])
        #expect(proof.status != 0 && proof.errorText.contains(unasked), "\(proof.text) \(proof.errorText)")
        let list = try call("ListAccounts", [])
        #expect(list.status == 0 && !list.text.contains("work"), "\(list.text) \(list.errorText)")
        let begin = try call("BeginSession", ["{'account': <'work'>, 'open_browser': <false>}"])
        #expect(begin.status != 0 && begin.errorText.contains(unasked), "\(begin.errorText)")

        // Its own account, of the same name (declared before the person's: a new declaration of one of the person's
        // names is refused, ConsentTests.lookAlikeAccounts): kept apart, signed in by its own CLI with its own client.
        let options =
            "{'issuer': <'\(w.provider.issuer)'>, 'client_id': <'\(w.provider.appClientID)'>, 'redirect_uri': <'\(AccountTests.redirect)'>}"
        let badAdd = try call("AddAccount", ["work", "{'issuer': <'http://plain.example'>}"])
        #expect(badAdd.status != 0 && badAdd.errorText.contains("InvalidArgument"), "\(badAdd.errorText)")
        let person = w.desktop.configHome + "/linkrouter/accounts/work.conf"
        let declared = try FileSystem.readText(person)
        try FileSystem.remove(person)
        let add = try call("AddAccount", ["work", options])
        try FileSystem.writeAtomically(person, text: declared, permissions: 0o600)
        #expect(add.status == 0, "\(add.errorText)")
        let file = w.desktop.configHome + "/linkrouter/accounts/apps/flatpak/org.example.Curious/work.conf"
        #expect(FileSystem.status(file)?.permissions == 0o600)
        let notYet = try w.desktop.run(inside([Paths.linkctl, "token", "work"]))
        #expect(
            notYet.status == 4 && notYet.errorText.contains("linkctl login work"),
            "\(notYet.status) \(notYet.errorText)")
        let login = try w.login("work", inside: inside)
        #expect(login.status == 0, "\(login.errorText)")
        let own = try w.desktop.run(inside([Paths.linkctl, "token", "work"]))
        let appToken = own.text.trimmingCharacters(in: .newlines)
        #expect(own.status == 0 && !appToken.isEmpty && appToken != hostToken, "\(own.errorText)")
        #expect(
            eventually(timeoutMilliseconds: 10_000) {
                (try? w.keyring.items(account: "flatpak:org.example.Curious/work")) ?? (0, 0) == (1, 0)
            })
        let ownList = try w.desktop.run(inside([Paths.linkctl, "accounts", "--json"]))
        let rows = (try? JSONSerialization.jsonObject(with: Data(ownList.text.utf8)) as? [[String: Any]]) ?? []
        #expect(
            rows.count == 1 && rows.first?["owner"] as? String == "flatpak:org.example.Curious"
                && rows.first?["signed_in"] as? Bool == true, "\(ownList.text)")
        // The host sees both listed, and still gets its own token.
        let owners = try w.accounts().compactMap { $0["owner"] as? String }.sorted()
        #expect(owners == ["flatpak:org.example.Curious", "user"], "\(owners)")
        #expect(try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines) == hostToken)

        // Another app sees none of it, and cannot remove it.
        let other = try FlatpakSandbox(desktop: w.desktop, appID: "org.example.Other")
        let otherBus = try other.startProxy(talk: ["org.linkrouter.LinkRouter1"])
        let stolen = try call("GetToken", ["work", "{}"], in: other, bus: otherBus)
        #expect(
            stolen.status != 0 && stolen.errorText.contains(unasked) && !stolen.text.contains(appToken)
                && !stolen.text.contains(hostToken), "another app's account is never a question; the person's is")
        #expect(try call("RemoveAccount", ["work"], in: other, bus: otherBus).errorText.contains("UnknownAccount"))

        // Removed by its app: the file and the keyring item gone; the host's account untouched.
        let removed = try call("RemoveAccount", ["work"])
        #expect(removed.status == 0, "\(removed.errorText)")
        #expect(FileSystem.status(file) == nil)
        #expect((try? w.keyring.items(account: "flatpak:org.example.Curious/work")) ?? (1, 1) == (0, 0))
        #expect((try? w.keyring.items(account: "work")) ?? (0, 0) == (1, 0))
        #expect(try call("GetToken", ["work", "{}"]).errorText.contains(unasked), "the person's work again")
        #expect(try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines) == hostToken)
    }

    @Test(
        "linkctl token --interactive signs in when the account is not (the URL on stderr, the token alone on stdout), and kubectl's exec with spec.interactive does too; without either, exit 4 and nothing begun"
    )
    func interactive() throws {
        let w = try World()
        #expect(try w.add("work").status == 0)
        let plain = try w.desktop.linkctl("token", "work")
        #expect(plain.status == 4 && plain.text.isEmpty)
        #expect(try w.desktop.linkctl("sessions", "--all").text.isEmpty)
        let signed = try w.login("work", command: [Paths.linkctl, "token", "work", "--interactive", "--no-browser"])
        let token = signed.output.trimmingCharacters(in: .newlines)
        #expect(
            signed.status == 0 && !token.isEmpty && !token.contains("\n") && !token.contains(" "), "\(signed.errorText)"
        )
        #expect(try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines) == token)
        // With a display but no browser that can start (none is set here yet): said, with the URL to open elsewhere,
        // and the sign-in goes on through it; never a silent wait.
        #expect(try w.add("nobrowser").status == 0)
        let unopened = try w.login("nobrowser", command: [Paths.linkctl, "token", "nobrowser", "--interactive"])
        #expect(
            unopened.status == 0 && unopened.errorText.contains("the browser could not be started")
                && unopened.errorText.contains("Open this URL in your browser to sign in to nobrowser"),
            "\(unopened.status) \(unopened.errorText)")
        #expect(!unopened.output.isEmpty && !unopened.output.contains("\n\n"), "\(unopened.output)")

        // kubectl ≥ 1.22 says whether a person is at its terminal; then the login runs (the browser opened by the
        // daemon).
        #expect(try w.add("kube").status == 0)
        func exec(interactive: Bool) -> [String] {
            w.desktop.environment.filter { !$0.hasPrefix("KUBERNETES_EXEC_INFO=") }
                + [
                    #"KUBERNETES_EXEC_INFO={"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":"#
                        + "\(interactive)}}"
                ]
        }
        let env = exec(interactive: false)
        let notAsked = try Subprocess.run(
            [Paths.linkctl, "credential", "kube", "--account", "kube"], environment: env, timeoutMilliseconds: 30_000)
        #expect(notAsked.status == 4 && notAsked.text.isEmpty, "\(notAsked.errorText)")
        _ = try w.desktop.addBrowser(Harness.browser)
        let kube = try w.login(
            "kube", command: [Paths.linkctl, "credential", "kube", "--account", "kube"],
            environment: exec(interactive: true))
        let credential = (try? JSONSerialization.jsonObject(with: Data(kube.output.utf8)) as? [String: Any]) ?? [:]
        #expect(
            kube.status == 0 && credential["apiVersion"] as? String == "client.authentication.k8s.io/v1",
            "\(kube.errorText)")
        #expect(
            (credential["status"] as? [String: Any])?["token"] as? String
                == (try w.desktop.linkctl("token", "kube")).text.trimmingCharacters(in: .newlines))
        #expect(w.desktop.invocations(Harness.browser).count == 1, "the daemon opened the browser once")
        // Removing a signed-in account forgets its tokens too: nothing of it is left.
        #expect(try w.keyring.items(account: "kube") == (unlocked: 1, locked: 0))
        let removed = try w.desktop.linkctl("account", "remove", "kube")
        #expect(removed.status == 0 && removed.errorText.contains("tokens are forgotten"), "\(removed.errorText)")
        #expect(try w.keyring.items(account: "kube") == (unlocked: 0, locked: 0))
        #expect(FileSystem.status(w.desktop.configHome + "/linkrouter/accounts/kube.conf") == nil)
        #expect(try w.desktop.linkctl("token", "kube").status == 1)
    }

    @Test(
        "linkctl logout revokes at the provider when its metadata offers revocation (RFC 7009): the refresh token, with its hint, after the tokens are forgotten here, and says what the provider did; Glewlwyd refuses a public client (401): said, and the sign-out stands"
    )
    func logoutRevokes() throws {
        let w = try World(counted: true, revocation: true)
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        #expect(try w.desktop.linkctl("token", "work").status == 0)
        let out = try w.desktop.linkctl("logout", "work")
        #expect(out.status == 0, "\(out.errorText)")
        // Answered once the provider had its say: the request is in the proxy's log, and its refusal in linkctl's words.
        let revoke =
            proxy.requests().first(where: {
                $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/revoke") == true
            }) ?? [:]
        #expect(
            out.errorText.contains("the provider did not revoke its refresh token")
                && out.errorText.contains("stays valid there until it expires"), "\(out.errorText)")
        #expect(revoke["token_type_hint"] as? String == "refresh_token" && revoke["status"] as? Int == 401, "\(revoke)")
        let after = try w.desktop.linkctl("token", "work")
        #expect(after.status == 4, "signed out here whatever the provider said: \(after.errorText)")
        #expect((try? w.keyring.items(account: "work")) ?? (1, 1) == (0, 0))
        #expect(try w.desktop.linkctl("status").status == 0, "the daemon is still up")
    }

    @Test(
        "docker-credential-linkrouter (linkctl by that name): get answers a listed registry with the account's token, an unlisted one docker's not-found line; list, version; store refused"
    )
    func docker() throws {
        let w = try World()
        #expect(
            try w.add("work", ["--registry", "registry.example.com", "--username", "oauth2accesstoken"]).status == 0)
        #expect(try w.login("work").status == 0)
        let helper = w.desktop.root + "/bin/docker-credential-linkrouter"
        #expect(symlink(Paths.linkctl, helper) == 0)
        func run(_ op: String, _ input: String) throws -> Subprocess.Outcome {
            try FileSystem.writeAtomically(w.desktop.root + "/docker-input", text: input, permissions: 0o600)
            return try w.desktop.run(["sh", "-c", "'\(helper)' \(op) < '\(w.desktop.root)/docker-input'"])
        }
        let got = try run("get", "https://registry.example.com/v1/\n")
        let json = (try? JSONSerialization.jsonObject(with: Data(got.text.utf8)) as? [String: Any]) ?? [:]
        let token = (try w.desktop.linkctl("token", "work")).text.trimmingCharacters(in: .newlines)
        #expect(
            got.status == 0 && json["ServerURL"] as? String == "https://registry.example.com/v1/",
            "\(got.text) \(got.errorText)")
        #expect(json["Username"] as? String == "oauth2accesstoken" && json["Secret"] as? String == token)
        let other = try run("get", "https://index.docker.io/v1/\n")
        #expect(other.status == 1 && other.text == "credentials not found in native keychain\n")
        // The listed registry reached in the clear gets no token (issue 36).
        let clear = try run("get", "http://registry.example.com/v1/\n")
        #expect(
            clear.status == 1 && clear.text == "credentials not found in native keychain\n"
                && !clear.text.contains(token))
        let list = try run("list", "")
        #expect(list.status == 0 && list.text == "{\"registry.example.com\":\"oauth2accesstoken\"}\n", "\(list.text)")
        #expect(try run("version", "").text.hasPrefix("docker-credential-linkrouter (linkrouter) "))
        let store = try run("store", "{\"ServerURL\":\"x\",\"Username\":\"u\",\"Secret\":\"s\"}")
        #expect(store.status == 1 && store.errorText.contains("linkctl login"))
        #expect(
            try w.desktop.linkctl("token", "work").text.trimmingCharacters(in: .newlines) == token, "nothing changed")
    }

    @Test(
        "faults around a refresh: the daemon SIGKILLed while the keyring write of the new set hangs, then after it; the keyring daemon killed mid-write. The next linkctl token works or says why, never a silent sign-out"
    )
    func refreshFaults() throws {
        let w = try World(counted: true)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        let proxy = try #require(w.proxy)
        func tokenPosts() -> Int {
            proxy.requests().filter {
                $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/token") == true
            }.count
        }
        func reject(_ token: String) throws {
            try FileSystem.writeAtomically(w.desktop.root + "/refused", text: "password=\(token)\n", permissions: 0o600)
            _ = try w.desktop.run([
                "sh", "-c", "'\(Paths.linkctl)' credential git --account work erase < '\(w.desktop.root)/refused'",
            ])
        }
        /// A refresh whose answer reaches the daemon while the keyring is stopped (SIGSTOP): held at the proxy until
        /// the keyring is frozen, so the check before the refresh found it answering and the write after it hangs.
        func refreshIntoAFrozenKeyring(stdout: Subprocess.Stream, stderr: Subprocess.Stream) throws -> Int32 {
            let delivered = proxy.delivered()
            try proxy.hold()
            let call = try Subprocess.spawn(
                [Paths.linkctl, "token", "work"], environment: w.desktop.environment, stdout: stdout, stderr: stderr)
            #expect(
                eventually(timeoutMilliseconds: 20_000) {
                    proxy.heldCount() > delivered
                })
            kill(w.keyring.pid, SIGSTOP)
            try proxy.set("honest")
            try proxy.release()
            #expect(eventually(timeoutMilliseconds: 20_000) { proxy.delivered() > delivered })
            return call
        }
        let first = (try w.desktop.linkctl("token", "work")).text.trimmingCharacters(in: .newlines)

        // 1. The refresh has happened at the provider, its keyring write hangs (the keyring
        // is stopped), and the daemon is killed: the keyring still has the old set.
        try reject(first)
        let waiting = try refreshIntoAFrozenKeyring(stdout: .null, stderr: .null)
        _ = w.daemon.stop(signal: SIGKILL)
        kill(w.keyring.pid, SIGCONT)
        _ = Subprocess.wait(waiting, timeoutMilliseconds: 10_000)
        try w.restart()
        let afterKill = try w.desktop.linkctl("token", "work")
        #expect(afterKill.status == 0 && !afterKill.text.isEmpty, "\(afterKill.status) \(afterKill.errorText)")
        #expect(try w.keyring.items(account: "work") == (unlocked: 1, locked: 0))

        // 2. Killed just after a refresh was written: the new set is what the next daemon reads.
        let current = afterKill.text.trimmingCharacters(in: .newlines)
        try reject(current)
        let refreshed = (try w.desktop.linkctl("token", "work")).text.trimmingCharacters(in: .newlines)
        #expect(!refreshed.isEmpty && refreshed != current)
        _ = w.daemon.stop(signal: SIGKILL)
        try w.restart()
        let afterWrite = try w.desktop.linkctl("token", "work")
        #expect(
            afterWrite.status == 0 && afterWrite.text.trimmingCharacters(in: .newlines) == refreshed,
            "\(afterWrite.errorText)")

        // 3. The keyring daemon dies mid-write: the new token is handed out with a warning, kept
        // in memory, and the account is not signed out; the daemon stays up.
        try reject(refreshed)
        let pending = try refreshIntoAFrozenKeyring(
            stdout: .file(w.desktop.root + "/mid.out"), stderr: .file(w.desktop.root + "/mid.err"))
        // The provider has answered: the new set is on its way to the stopped keyring.
        kill(w.keyring.pid, SIGKILL)
        #expect(
            Subprocess.wait(pending, timeoutMilliseconds: 60_000) == 0,
            "\((try? FileSystem.readText(w.desktop.root + "/mid.err")) ?? "")")
        let warned = (try? FileSystem.readText(w.desktop.root + "/mid.err")) ?? ""
        #expect(warned.contains("warning") && warned.contains("not in the keyring"), "\(warned)")
        let listed = try w.accounts().first
        #expect(listed?["signed_in"] as? Bool == true && listed?["unsaved"] != nil)
        #expect(w.daemon.isRunning)
    }

    @Test(
        "a provider that is down (503 at its token endpoint): RefreshFailed (exit 1), the account still signed in; while it backs off no caller reaches the provider; once it is back the next call refreshes"
    )
    func providerDown() throws {
        let w = try World(counted: true)
        let proxy = try #require(w.proxy)
        #expect(try w.add("work").status == 0)
        #expect(try w.login("work").status == 0)
        func tokenPosts() -> Int {
            proxy.requests().filter {
                $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasSuffix("/token") == true
            }.count
        }
        let first = (try w.desktop.linkctl("token", "work")).text.trimmingCharacters(in: .newlines)
        try FileSystem.writeAtomically(w.desktop.root + "/refused", text: "password=\(first)\n", permissions: 0o600)
        _ = try w.desktop.run([
            "sh", "-c", "'\(Paths.linkctl)' credential git --account work erase < '\(w.desktop.root)/refused'",
        ])
        try proxy.set("token-unavailable")
        let before = tokenPosts()
        let down = try w.desktop.linkctl("token", "work")
        #expect(
            down.status == 1 && down.errorText.contains("RefreshFailed") && down.errorText.contains("503"),
            "\(down.status) \(down.errorText)")
        #expect(tokenPosts() == before + 1)
        // Backing off: answered at once, the provider not asked again.
        let again = try w.desktop.linkctl("token", "work")
        #expect(again.status == 1 && again.errorText.contains("tried again after"), "\(again.errorText)")
        #expect(tokenPosts() == before + 1)
        #expect(try w.accounts().first?["refresh_failures"] as? Int == 1)
        #expect(try w.keyring.items(account: "work") == (unlocked: 1, locked: 0), "not signed out")
        // Back: the first call after the wait refreshes; every call before it was answered without a request.
        try proxy.set("honest")
        var back = ""
        #expect(
            eventually(timeoutMilliseconds: 20_000) {
                back = ((try? w.desktop.linkctl("token", "work"))?.text ?? "").trimmingCharacters(in: .newlines)
                return !back.isEmpty
            })
        #expect(back != first && tokenPosts() == before + 2, "\(tokenPosts() - before) requests")
        #expect(try w.accounts().first?["refresh_failures"] == nil)
    }
}
